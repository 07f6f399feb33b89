"""Broken encounter files are refused with a located error, never a raw crash or a game that holds a process.

A seeded fuzz over every rule system's built-in encounters, as a user writes them (the YAML) and in full
(every field the library fills in): one to three random mutations each (a key deleted, a value of the wrong
type, a huge, negative or empty one, a list entry repeated). `load_encounter` either refuses it with a
`TrpgArenaError` or the encounter plays a few random legal actions without a crash. Then every whole
number of every built-in encounter is set to a billion in turn: refused, or a game that still plays (a
pool of a billion dice or a walk of a billion metres would never come back).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import SYSTEMS
from tests.kernel.test_corrupt_snapshots import places
from trpg_arena.agents import RandomAgent
from trpg_arena.rules import RULESETS, Combat, EncounterError, load_encounter
from trpg_arena.rules.core.errors import TrpgArenaError

MUTANTS = 500  # per system
STEPS = 30  # random legal actions an accepted encounter plays
WRONG = (None, -1, 0, 10**9, -10**9, 2.5, float("nan"), "", "x", "999", True, [], {}, [1, 2], [-1, -1],
         [100, 100], {"a": 1}, [["orc"]])
BILLION = 10**9


@cache
def builtins(rid: str) -> tuple[dict[str, Any], ...]:
    """Each built-in encounter of a system twice: its YAML as written, and in full as loaded."""
    folder = Path(RULESETS[rid].info.data_dir) / "encounters"
    out: list[dict[str, Any]] = []
    for f in sorted(folder.glob("*.yaml")):
        out.append(yaml.safe_load(f.read_text(encoding="utf-8")))
        out.append(load_encounter(f"{rid}/{f.stem}").model_dump(mode="json"))
    return tuple(out)


def mutated(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = copy.deepcopy(data)
    for _ in range(rng.choice((1, 1, 2, 3))):
        path = rng.choice([p for p in places(out) if p])  # anywhere but the root
        parent: Any = out
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        roll = rng.random()
        if roll < 0.65:
            parent[key] = copy.deepcopy(rng.choice(WRONG))
        elif roll < 0.85:
            del parent[key]
        elif isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
    return out


def plays(data: dict[str, Any], seed: int) -> None:
    """Load it and play a few random legal actions; a refusal must be the project's own located error."""
    try:
        enc = load_encounter(data)
    except TrpgArenaError:
        return
    combat = Combat(enc, seed=seed)
    walker = RandomAgent(seed=seed)
    for _ in range(STEPS):
        if combat.over:
            break
        combat.act(walker.act(combat))


@pytest.mark.parametrize("rid", SYSTEMS)
def test_mutated_encounters_are_refused_or_play(rid: str) -> None:
    rng = random.Random(f"encounters-{rid}")
    files = builtins(rid)
    for i in range(MUTANTS):
        plays(mutated(rng.choice(files), rng), seed=i)


def whole_numbers(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(node, bool):
        return
    if isinstance(node, int):
        yield path
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from whole_numbers(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from whole_numbers(v, (*path, i))


@pytest.mark.parametrize("rid", SYSTEMS)
def test_a_billion_in_any_number_is_refused_or_still_plays(rid: str) -> None:
    full = builtins(rid)[1::2]
    for data in full:
        for path in whole_numbers(data):
            changed = copy.deepcopy(data)
            node: Any = changed
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = BILLION
            plays(changed, seed=len(path))


@pytest.mark.parametrize("rid", SYSTEMS)
def test_true_or_false_is_no_number(rid: str) -> None:
    """YAML's `true` in a number field was read as 1 (pydantic's lax mode): `max_hp: true` played as 1 HP."""
    data = load_encounter(f"{rid}/duel").model_dump(mode="json")
    numbers = [k for k, v in data["combatants"][0].items() if isinstance(v, int) and not isinstance(v, bool)]
    assert numbers
    for key in numbers:
        bad = copy.deepcopy(data)
        bad["combatants"][0][key] = True
        with pytest.raises(EncounterError, match=f"{key}': a number, not true or false"):
            load_encounter(bad)
