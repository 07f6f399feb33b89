"""Running whole combats headless: agents per side, seeds, results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trpg_arena.agents import Agent, make_agent
from trpg_arena.rules import Combat, EncounterBase, load_encounter
from trpg_arena.table.session import play


@dataclass(frozen=True)
class GameResult:
    """One finished combat."""

    encounter: str
    seed: int
    agents: dict[str, str]  # side -> agent name
    result: str  # winning side or "draw"
    termination: str
    rounds: int
    decisions: int


def check_lineup(sides: Sequence[str], names: Sequence[str]) -> None:
    """Exactly one agent spec per side, or a `ValueError` saying how many and (for one) how to repeat it."""
    names = list(names)
    if len(names) != len(sides):
        hint = f" (to play it on every side: {','.join(names * len(sides))})" if len(names) == 1 else ""
        raise ValueError(f"--agents needs one agent per side ({len(sides)}: {', '.join(sides)}), got "
                         f"{len(names)}: {','.join(names)}{hint}")


def agents_for(encounter: EncounterBase, names: Sequence[str], seed: int) -> dict[str, Agent]:
    """One agent per side, from agent specs in the encounter's side order (exactly one spec per side)."""
    sides = encounter.sides()
    check_lineup(sides, names)
    return {side: make_agent(n, encounter.ruleset, seed=seed * 7919 + i)
            for i, (side, n) in enumerate(zip(sides, names))}


def play_game(encounter: Any, names: Sequence[str], seed: int, swap: bool = False) -> tuple[Combat, GameResult]:
    """Play one combat to the end; `swap` gives the first agent name to the second side."""
    enc = load_encounter(encounter)
    names = list(names)
    if swap:
        names = names[::-1]
    agents = agents_for(enc, names, seed)
    combat = Combat(enc, seed=seed)
    before = combat.decision_count
    play(combat, agents)
    decisions = combat.decision_count - before
    sides = enc.sides()
    out = combat.outcome
    assert out is not None
    by_side = dict(zip(sides, names))
    return combat, GameResult(enc.encounter, seed, by_side, out.result, out.termination.value, out.rounds, decisions)
