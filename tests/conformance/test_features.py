"""Registry-wide: every encounter of a rule system maps to its one feature layout, from either side.

Every built-in encounter and every encounter file under ``tests/`` of the system (the agents' stall
reproductions, the held-out ``tests/unseen`` encounters) is played a little with random moves and
encoded from each side at every decision: the vector always has the layout's length, is float32,
finite and in [-1, 1], and describes the decider the way the layout documents.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.conftest import SYSTEMS
from trpg_arena.agents import RandomAgent
from trpg_arena.rules import Combat, builtin_encounters, get_ruleset, load_encounter
from trpg_arena.rules.core.features import encode, layout_for

TESTS = Path(__file__).resolve().parents[1]


def encounter_files(rid: str) -> list[str]:
    """Built-ins and the encounter files under tests/ of one rule system."""
    names = list(builtin_encounters(get_ruleset(rid)))
    for path in sorted(TESTS.rglob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError:
            continue
        if isinstance(data, dict) and data.get("ruleset") == rid and "combatants" in data:
            names.append(str(path))
    return names


CASES = [(rid, name) for rid in SYSTEMS for name in encounter_files(rid)]


@pytest.mark.parametrize(("rid", "name"), CASES, ids=[f"{r}:{Path(n).stem}" for r, n in CASES])
def test_every_encounter_maps_to_the_systems_one_layout(rid: str, name: str) -> None:
    layout = layout_for(rid)
    enc = load_encounter(name)
    layout.check(enc)
    combat = Combat(enc, seed=3)
    agent = RandomAgent(seed=3)
    actor_present = layout.names.index("actor.present")
    actor_decider = layout.names.index("actor.is_decider")
    ours = layout.names.index("global.decider_is_ours")
    for _ in range(60):
        d = combat.decision
        for side in enc.sides():
            x = encode(combat, side)
            assert x.shape == (layout.size,) and x.dtype == np.float32
            assert np.isfinite(x).all() and x.min() >= -1.0 and x.max() <= 1.0
            assert x[actor_present] == 1.0
            if d is not None:
                mine = combat.side_of(d.actor) == side
                assert x[ours] == float(mine)
                assert x[actor_decider] == float(mine), "the actor row is the decider on its own side"
        if d is None:
            break
        combat.act(agent.act(combat))


@pytest.mark.parametrize("rid", SYSTEMS)
def test_the_layout_is_named_fixed_and_fingerprinted(rid: str) -> None:
    layout = layout_for(rid)
    assert layout.size == len(layout.names) == len(set(layout.names))
    assert layout.names[0] == "global.decider_is_ours"
    assert layout.limits.per_side == layout.limits.enemies >= 6  # every built-in brawl fits
    rows = layout.size - len(layout.global_columns)
    assert rows == (layout.limits.per_side + layout.limits.enemies) * layout.row_size
    assert len(layout.fingerprint) == 16 and layout_for(rid) is layout
