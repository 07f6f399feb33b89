"""Scripted agents close fights they can win instead of waiting for the round cap (no stalemates by passivity).

Each encounter under `encounters/` reproduces a stall the scripted agents used to fall into (its comment says
how); played scripted against scripted from many seeds, most games must now end with a winner, well before
the round cap.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from trpg_arena.agents import make_agent
from trpg_arena.rules import Combat, load_encounter

HERE = Path(__file__).parent / "encounters"
SEEDS = range(20)

# encounter file -> the least share of the games that must end with a winner
DECISIVE = {
    "kiai_standoff.yaml": 0.9,  # two fighters just out of each other's striking distance
    "reincarnator_pillars.yaml": 0.9,  # two prone shooters on either side of a sight-blocking pillar
    "moonlit_trance.yaml": 0.9,  # a tranced fighter with no emotion or TP, and an ally who can clear it
    "moonlit_spent.yaml": 0.75,  # a fighter whose only attack costs TP: none of it spent on stances
}


def round_cap(c: Combat) -> int:
    """The encounter's round cap (moonlit keeps it among its options)."""
    enc = c.encounter
    cap = getattr(enc, "round_cap", None) or getattr(enc.options, "round_cap", None)
    return int(cap or enc.options.moon_round_cap)


def play_scripted(path: Path, seed: int) -> Combat:
    enc = load_encounter(path)
    c = Combat(enc, seed=seed)
    agents = {side: make_agent("scripted", enc.ruleset, seed=seed * 10 + i) for i, side in enumerate(c.sides)}
    while not c.over:
        c.act(agents[c.decision.side].act(c))
    return c


@pytest.mark.parametrize("name", sorted(DECISIVE))
def test_scripted_self_play_ends_decisively(name: str) -> None:
    games = [play_scripted(HERE / name, seed) for seed in SEEDS]
    decided = [c for c in games if c.result != "draw"]
    assert len(decided) >= DECISIVE[name] * len(games), f"{len(games) - len(decided)} of {len(games)} drawn"
    cap = round_cap(games[0])
    rounds = sum(c.outcome.rounds for c in games) / len(games)
    assert rounds <= 0.6 * cap, f"the games last {rounds:.1f} rounds on average (round cap {cap})"


def test_every_stalemate_encounter_is_tested() -> None:
    assert {p.name for p in HERE.glob("*.yaml")} == set(DECISIVE)
