"""One game of a series, played through the session loop, reduced to a small JSON-safe record."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from trpg_arena.experiments.runner import agents_for
from trpg_arena.rules import Combat, EncounterBase, load_encounter
from trpg_arena.table.session import Session
from trpg_arena.table.stats import CombatStats

if TYPE_CHECKING:
    from trpg_arena.experiments.series.spec import SeriesSpec


@dataclass(frozen=True)
class GameRecord:
    """What one game leaves behind: enough for every reducer, small enough to ship between processes."""

    index: int
    seed: int
    swapped: bool
    agents: tuple[str, ...]  # agent spec per side, in side order, as played
    result: str  # the winning side or "draw"
    termination: str
    rounds: int
    decisions: int
    falls: tuple[str, ...]  # combatants put out of the fight, in order
    damage: tuple[tuple[str, str, int], ...]  # (source or "-", target, damage) per pair that dealt any
    rules: tuple[str, ...]  # rule ids the game's events cite, sorted

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return asdict(self)

    def line(self) -> str:
        """One canonical JSON line (the results file is these lines, so backends compare byte for byte)."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GameRecord:
        """Inverse of `to_json`."""
        return cls(int(d["index"]), int(d["seed"]), bool(d["swapped"]), tuple(d["agents"]), str(d["result"]),
                   str(d["termination"]), int(d["rounds"]), int(d["decisions"]), tuple(d["falls"]),
                   tuple((str(s), str(t), int(n)) for s, t, n in d["damage"]), tuple(d["rules"]))


@lru_cache(maxsize=64)
def encounter_of(content: str, name: str) -> EncounterBase:
    """An encounter rebuilt from canonical JSON, once per process (workers play many games of it)."""
    return load_encounter(json.loads(content), source=name)


def play_one(spec: SeriesSpec, i: int) -> GameRecord:
    """Play game `i` of the series: the same record for the same spec and index, in any process."""
    enc = spec.encounter()
    seed = spec.seed(i)
    lineup = list(spec.lineup[::-1] if spec.swapped(i) else spec.lineup)
    combat = Combat(enc, seed=seed)
    session = Session.attach(combat, agents_for(enc, lineup, seed))
    start = combat.combatants
    steps: list[tuple[int, list, list]] = []
    seen = len(combat.log)
    while combat.decision is not None:
        round_ = max(1, combat.round)
        if session.run(max_decisions=1) == 0:
            break  # nobody left to decide (cannot happen with agents on every side; kept as a guard)
        steps.append((round_, combat.log[seen:], combat.combatants))
        seen = len(combat.log)
    stats = CombatStats.collect(start, steps)
    out = combat.outcome
    assert out is not None, "a series game ended without an outcome"
    rules = sorted({e.rule for e in combat.log if e.rule})
    damage = tuple((s or "-", t, v["damage"]) for (s, t), v in stats.pairs.items() if v["damage"])
    return GameRecord(i, seed, spec.swapped(i), tuple(lineup), out.result, out.termination.value, out.rounds,
                      stats.decisions, tuple(f.combatant for f in stats.falls), damage, tuple(rules))


def play_batch(spec: SeriesSpec, indices: list[int]) -> list[GameRecord]:
    """Several games in one call: the unit of work a pool process or a Ray task takes."""
    return [play_one(spec, i) for i in indices]
