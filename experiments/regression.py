"""Self-play balance regression: has a rules, agent or stat-block change shifted who wins?

Each suite entry is a series (`series.SeriesSpec`); its results are compared with a recorded
baseline that must carry the same spec (`series.baseline.check`). The comparison keeps the first
side's wins, draws and losses apart, pairs the games when the seeds are the baseline's, and is
either the sequential test (stops as soon as the answer is clear) or the fixed-N test
(`series.sprt`). Statuses map to exit codes for CI (`EXIT`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from trpg_arena.experiments.series import GameRecord, SeriesSpec, run_series
from trpg_arena.experiments.series.baseline import (
    BaselineError,
    StaleBaselineError,
    check,
    read_baseline,
    write_baseline,
)
from trpg_arena.experiments.series.sprt import Sequential, first_side_tally, fixed_test, units, wilson
from trpg_arena.experiments.series.suite import Entry

# Exit codes of `trpg-arena regress`, worst status wins: CI tells a regression from a broken setup.
EXIT = {"ok": 0, "recorded": 0, "shifted": 1, "error": 2, "stale": 3}
WORST = ("stale", "error", "shifted", "ok", "recorded")


@dataclass
class Outcome:
    """One entry's verdict."""

    entry: Entry
    status: str  # ok, shifted, recorded, stale, error
    message: str = ""
    spec: SeriesSpec | None = None
    records: list[GameRecord] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form (records left out: they go to the run's results files)."""
        return {"entry": self.entry.label, "status": self.status, "message": self.message,
                "baseline": str(self.entry.baseline), **self.summary}


def exit_code(outcomes: list[Outcome]) -> int:
    """The suite's exit code: that of its worst status."""
    for status in WORST:
        if any(o.status == status for o in outcomes):
            return EXIT[status]
    return 0


def describe(spec: SeriesSpec, records: list[GameRecord]) -> dict[str, Any]:
    """The first side's tally, win rate with its Wilson interval, and mean rounds."""
    first = spec.sides[0]
    t = first_side_tally(records, first)
    n = len(records)
    lo, hi = wilson(t["wins"], n)
    return {"first_side": first, "games": n, **t, "win_rate": round(t["wins"] / n, 4) if n else 0.0,
            "win_interval95": [round(lo, 4), round(hi, 4)],
            "mean_rounds": round(sum(r.rounds for r in records) / n, 2) if n else 0.0}


def run_entry(entry: Entry, *, record: bool = False, seed: int | None = None, allow: frozenset[str] = frozenset(),
              workers: int | None = None, backend: str = "local",
              on_game: Callable[[GameRecord], None] | None = None) -> Outcome:
    """Record or check one entry; user errors become an `error` / `stale` outcome, not an exception."""
    try:
        spec = SeriesSpec.build(entry.encounter, entry.agents, entry.games,
                                entry.seed if seed is None else seed, entry.swap)
    except (ValueError, TypeError) as e:
        return Outcome(entry, "error", str(e))
    if record:
        records = list(run_series(spec, workers, backend, on_game=on_game))
        write_baseline(entry.baseline, spec, records)
        return Outcome(entry, "recorded", f"baseline written to {entry.baseline}", spec, records,
                       describe(spec, records))
    try:
        base_spec, base_records = read_baseline(entry.baseline)
        check(entry.baseline, base_spec, spec, allow)
    except StaleBaselineError as e:
        return Outcome(entry, "stale", str(e), spec)
    except BaselineError as e:
        return Outcome(entry, "error", str(e), spec)
    paired = base_spec.first_seed == spec.first_seed and base_spec.swap == spec.swap
    if paired and spec.games > base_spec.games:
        spec = spec.with_games(base_spec.games)  # games beyond the baseline's have nobody to pair with
    first = spec.sides[0]
    base_units = units(base_records, first, spec.swap)
    size = 2 if spec.swap else 1
    records: list[GameRecord] = []
    summary: dict[str, Any] = {}
    if entry.test == "sprt":
        seq = Sequential(entry.delta, entry.alpha, entry.beta)
        verdict = None
        for r in run_series(spec, workers, backend, on_game=on_game):
            records.append(r)
            if len(records) % size == 0:
                verdict = seq.update(units(records, first, spec.swap), base_units, paired)
                if verdict is not None:
                    break
        test: dict[str, Any] = {"kind": "sprt", "delta": entry.delta, "alpha": entry.alpha, "beta": entry.beta,
                                "paired": paired, "unit": "pair" if spec.swap else "game",
                                "bounds": [round(b, 4) for b in seq.bounds],
                                "decided": dict(sorted(seq.decided.items())), "trace": seq.trace}
        if verdict is None:  # the game cap came first: the fixed-N test on everything played decides
            fixed = fixed_test(units(records, first, spec.swap), base_units, paired, entry.alpha)
            test.update(truncated=True, fallback=fixed)
            shifted = fixed["shifted"]
        else:
            test["truncated"] = False
            shifted = verdict == "shifted"
        test["shifted"] = shifted
    else:
        records = list(run_series(spec, workers, backend, on_game=on_game))
        test = fixed_test(units(records, first, spec.swap), base_units, paired, entry.alpha)
        shifted = test["shifted"]
    summary = {"run": describe(spec, records), "reference": describe(base_spec, base_records), "test": test,
               "games_used": len(records)}
    now, was = summary["run"], summary["reference"]
    msg = (f"{first} wins/draws/losses {now['wins']}/{now['draws']}/{now['losses']} of {len(records)} "
           f"vs baseline {was['wins']}/{was['draws']}/{was['losses']} of {was['games']}")
    return Outcome(entry, "shifted" if shifted else "ok", msg, spec, records, summary)
