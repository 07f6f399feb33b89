"""A rule system's own `trained` presets: listed by `trpg-arena agents`, used by `trained:PRESET` there only."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from trpg_arena.agents import make_agent
from trpg_arena.agents.learned.agent import PRESETS
from trpg_arena.agents.learned.system_presets import SYSTEM_CHANGES, presets_for
from trpg_arena.rules import RULESETS


def _trained_presets_line(rid: str) -> str:
    r = subprocess.run([sys.executable, "-m", "trpg_arena.experiments.cli", "agents", rid], capture_output=True,
                       text=True, timeout=120, env={**os.environ, "COLUMNS": "1000"})
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("trained "))
    return lines[at + 1]


def test_some_system_has_its_own_trained_presets() -> None:
    assert SYSTEM_CHANGES and set(SYSTEM_CHANGES) <= set(RULESETS)


@pytest.mark.parametrize("rid", sorted(SYSTEM_CHANGES))
def test_a_systems_changes_are_what_its_trained_agent_is_built_with(rid: str) -> None:
    line = _trained_presets_line(rid)
    for preset, changes in SYSTEM_CHANGES[rid].items():
        agent = make_agent(f"trained:{preset}", rid, seed=0)
        for key, value in changes.items():
            assert getattr(agent, key) == value
            assert f"{key}={value}" in line.split(f"{preset} (")[1].split(")")[0]


def test_a_system_keeps_the_common_presets_it_does_not_change() -> None:
    for rid in RULESETS:
        changes = SYSTEM_CHANGES.get(rid, {})
        for preset, values in PRESETS.items():
            assert presets_for(rid)[preset] == {**values, **changes.get(preset, {})}
            if preset not in changes:
                assert presets_for(rid)[preset] == values
    changed = next(iter(SYSTEM_CHANGES))
    key, value = next(iter(SYSTEM_CHANGES[changed]["normal"].items()))
    other = next(rid for rid in RULESETS if key not in SYSTEM_CHANGES.get(rid, {}).get("normal", {}))
    assert getattr(make_agent("trained:normal", changed, seed=0), key) == value
    assert getattr(make_agent("trained:normal", other, seed=0), key) != value  # the change stays on its system


def test_reincarnators_and_moonlits_easy_are_their_own_and_their_normal_the_common_one() -> None:
    """The handicaps the duels' screens chose (docs/strength.md, "reincarnator and moonlit: the presets as ...").

    reincarnator's common `easy` was level with its `normal`, so its own samples at 0.5 among 12 of the script's
    candidates over the system's play-out check; moonlit's is the common `easy` its ladder measured (0.1 over the
    script's four), kept when the common one changed; their `normal` is the common one.
    """
    easy, normal, hard = (make_agent(f"trained:{p}", "reincarnator", seed=0) for p in ("easy", "normal", "hard"))
    assert (easy.candidates, easy.samples, easy.temperature, easy.guard) == (12, 16, 0.5, 0.5)
    assert (easy.playouts, easy.verify, easy.depth) == (hard.playouts, hard.verify, hard.depth) == (16, 1, 15)
    assert (normal.temperature, normal.guard) == (PRESETS["normal"]["temperature"], PRESETS["normal"]["guard"])
    assert presets_for("moonlit")["easy"] == {"candidates": 4, "samples": 4, "temperature": 0.1, "guard": 0.2,
                                              "through": 1}
    moonlit_normal = make_agent("trained:normal", "moonlit", seed=0)
    assert (moonlit_normal.temperature, moonlit_normal.guard) == (0.05, 0.15) == \
        (PRESETS["normal"]["temperature"], PRESETS["normal"]["guard"])


def test_investigators_normal_is_the_common_one() -> None:
    """investigator's own `normal` (0.1, tuned on its duel) was level with `easy` on its skirmish; the common 0.05
    put each step of its duel's and skirmish's fresh ladders above 90 Elo (docs/strength.md, the re-cut)."""
    normal = make_agent("trained:normal", "investigator", seed=0)
    assert (normal.temperature, normal.guard) == (0.05, 0.15) == \
        (PRESETS["normal"]["temperature"], PRESETS["normal"]["guard"])
    assert (normal.reply, normal.horizon, normal.candidates) == (1, 24, 5)  # `hard`'s look, handicapped
    assert normal.share == 0  # at every decision: its skirmish's step below `hard` was 147 Elo without a share


@pytest.mark.parametrize("rid,share", [("kiai", 0.5), ("reincarnator", 1.0), ("moonlit", 1.0)])
def test_normal_spreads_its_handicap_over_the_side_where_skirmishes_sank_it(rid: str, share: float) -> None:
    """Sampled at every decision, their `normal` was 251-390 Elo below `hard` on the skirmishes; kiai's at one
    decision in n came within 14 Elo of `hard` on one fresh ladder, so it samples at one in sqrt(n)
    (docs/strength.md, "The handicap spread over the side")."""
    normal = make_agent("trained:normal", rid, seed=0)
    assert (normal.temperature, normal.guard, normal.share) == (0.05, 0.15, share)
    assert make_agent("trained:easy", rid, seed=0).share == make_agent("trained:hard", rid, seed=0).share == 0
