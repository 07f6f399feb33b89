"""Self-play balance regression: has a rules, agent or stat-block change shifted who wins?

Each suite entry is a series (`series.SeriesSpec`); its results are compared with a recorded
baseline that must carry the same spec (`series.baseline.check`). The comparison keeps the first
side's wins, draws and losses apart, pairs the games when the seeds are the baseline's, and is
either the sequential test (stops as soon as the answer is clear) or the fixed-N test
(`series.sprt`). Statuses map to exit codes for CI (`EXIT`).
"""

from __future__ import annotations

import math
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
from trpg_arena.experiments.series.sprt import (
    METRICS,
    Sequential,
    difference,
    first_side_tally,
    fixed_test,
    units,
    wilson,
    z_for,
)
from trpg_arena.experiments.series.suite import Entry
from trpg_arena.experiments.series.words import points, share
from trpg_arena.rules import TrpgArenaError

# Exit codes of `trpg-arena regress`, worst status wins: CI tells a regression from a broken setup.
EXIT = {"ok": 0, "recorded": 0, "shifted": 1, "error": 2, "stale": 3}
WORST = ("stale", "error", "shifted", "ok", "recorded")
TALLIED = {"win": "wins", "loss": "losses"}  # a metric's count in `describe` (its rate is that count over games)
# Progress of an entry's games: called with a label and the games it will play, it returns the per-game callback
# (`series_progress`'s bar). Called once that number is known: a paired run may play fewer than --games.
Progress = Callable[[str, int], Callable[[GameRecord], None]]


@dataclass
class Outcome:
    """One entry's verdict."""

    entry: Entry
    status: str  # ok, shifted, recorded, stale, error
    message: str = ""
    spec: SeriesSpec | None = None
    records: list[GameRecord] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)

    def to_json(self, exact: bool = False) -> dict[str, Any]:
        """JSON-safe form (records left out: they go to the run's results files).

        The change's figures are rounded to 4 decimals for the file unless `exact`: the report is written from
        the exact ones, since a figure rounded twice can read one way in one table and another in the next.
        """
        summary = self.summary
        if not exact and "change" in summary:
            summary = {**summary, "change": {m: _rounded(c) for m, c in summary["change"].items()}}
        return {"entry": self.entry.label, "status": self.status, "message": self.message,
                "headline": self.headline(), "baseline": str(self.entry.baseline), **summary}

    def headline(self, mark: Callable[[str], str] = str) -> str:
        """One plain sentence: ``kiai/duel [a,b]: side A wins 12 % [8, 17] now, 49 % [44, 54] before: shifted``.

        `mark` dresses the verdict word (``**shifted**`` in Markdown).
        """
        now, was = self.summary.get("run"), self.summary.get("reference")
        verdict = mark(self.status)
        if self.status in ("ok", "shifted") and now and was:
            cut = self.summary.get("cut_from")
            return (f"{self.entry.label}: side {now['first_side']} wins {share(now['wins'], now['games'])} now, "
                    f"{share(was['wins'], was['games'])} before: {verdict}"
                    + (f" ({now['games']} games: --games {cut} cut to the baseline's)" if cut else ""))
        if self.status == "recorded" and now:
            return (f"{self.entry.label}: {verdict}, side {now['first_side']} wins "
                    f"{share(now['wins'], now['games'])} over {now['games']} games")
        if self.status == "stale":
            return f"{self.entry.label}: not compared, {verdict}: {self.message}"
        return f"{self.entry.label}: not run, {verdict}: {self.message}"


EXPLAIN = {0: "every entry unchanged or recorded", 1: "balance shifted", 2: "bad input",
           3: "a stale baseline", 4: "an internal error"}


def exit_line(code: int, legend: bool = True) -> str:
    """The exit code in words, with the meaning of every code (a legend that cannot be read as counts)."""
    meanings = ", ".join(f"{k} = {v}" for k, v in EXPLAIN.items())
    return f"exit {code}: {EXPLAIN[code]}" + (f" (exit codes: {meanings})" if legend else "")


def tally(outcomes: list[Outcome]) -> str:
    """``4 entries: 1 ok, 1 shifted, 1 stale, 1 error``."""
    counts = {s: sum(o.status == s for o in outcomes) for s in ("ok", "recorded", "shifted", "stale", "error")}
    return (f"{len(outcomes)} {'entry' if len(outcomes) == 1 else 'entries'}: "
            + ", ".join(f"{n} {s}{'s' if s == 'error' and n > 1 else ''}" for s, n in counts.items() if n))


def exit_code(outcomes: list[Outcome]) -> int:
    """The suite's exit code: that of its worst status."""
    for status in WORST:
        if any(o.status == status for o in outcomes):
            return EXIT[status]
    return 0


def describe(spec: SeriesSpec, records: list[GameRecord]) -> dict[str, Any]:
    """The first side's tally, win and loss rates with their Wilson intervals, and mean rounds."""
    first = spec.sides[0]
    t = first_side_tally(records, first)
    n = len(records)
    lo, hi = wilson(t["wins"], n)
    loss_lo, loss_hi = wilson(t["losses"], n)
    return {"first_side": first, "games": n, **t, "win_rate": round(t["wins"] / n, 4) if n else 0.0,
            "win_interval95": [round(lo, 4), round(hi, 4)],
            "loss_rate": round(t["losses"] / n, 4) if n else 0.0, "loss_interval95": [round(loss_lo, 4),
                                                                                       round(loss_hi, 4)],
            "mean_rounds": round(sum(r.rounds for r in records) / n, 2) if n else 0.0}


def change(new: dict[str, list[float]], base: dict[str, list[float]], paired: bool) -> dict[str, Any]:
    """Per metric, the shift of the run's rate from the baseline's with its 95 % interval.

    The same shift and variance the tests use (`sprt.difference`): paired units when the seeds are
    the baseline's, else the two samples' means. Without the tests' variance floor: an identical replay
    changed no game, and its change is ``0 points [0, 0]`` in every line and table. Exact: `Outcome.to_json`
    rounds it for the file.
    """
    z = z_for(0.05)
    out = {}
    for m in METRICS:
        d, var = difference(new[m], base[m][:len(new[m])] if paired else base[m], paired, floor=0.0)
        half = z * math.sqrt(var)
        out[m] = {"shift": d, "interval95": [d - half, d + half]}
    return out


def _rounded(shift: dict[str, Any]) -> dict[str, Any]:
    """A metric's change with its figures rounded to 4 decimals (the JSON file's form)."""
    return {"shift": round(shift["shift"], 4), "interval95": [round(x, 4) for x in shift["interval95"]]}


def comparison(side: str, now: dict[str, Any], was: dict[str, Any], shift: dict[str, Any]) -> str:
    """The plain sentence of a comparison: rates now and before with intervals, and the change."""
    def part(key: str, verb: str) -> str:
        s, counted = shift[key], TALLIED[key]
        return (f"{verb} {share(now[counted], now['games'])} now, {share(was[counted], was['games'])} before "
                f"({points(s['shift'], *s['interval95'])})")

    return f"side {side} {part('win', 'wins')}; {part('loss', 'loses')}"


def run_entry(entry: Entry, *, record: bool = False, seed: int | None = None, allow: frozenset[str] = frozenset(),
              workers: int | None = None, backend: str = "local",
              progress: Progress | None = None) -> Outcome:
    """Record or check one entry; user errors become an `error` / `stale` outcome, not an exception."""
    try:
        spec = SeriesSpec.build(entry.encounter, entry.agents, entry.games,
                                entry.seed if seed is None else seed, entry.swap)
    except (ValueError, TypeError) as e:
        return Outcome(entry, "error", str(e))
    try:
        return _run(entry, spec, record, allow, workers, backend, progress)
    except TrpgArenaError as e:  # found only once games are played (a policy agent's missing model file)
        return Outcome(entry, "error", str(e), spec)


def _watch(progress: Progress | None, label: str, games: int) -> Callable[[GameRecord], None] | None:
    """The per-game callback of `games` games under `label`, if progress is shown."""
    return progress(label, games) if progress is not None else None


def _run(entry: Entry, spec: SeriesSpec, record: bool, allow: frozenset[str], workers: int | None, backend: str,
         progress: Progress | None) -> Outcome:
    """`run_entry` once the spec is built: record the baseline, or compare with it."""
    if record:
        played = list(run_series(spec, workers, backend, on_game=_watch(progress, entry.label, spec.games)))
        write_baseline(entry.baseline, spec, played)
        return Outcome(entry, "recorded", f"baseline written to {entry.baseline}", spec, played,
                       {"run": describe(spec, played)})
    try:
        base_spec, base_records = read_baseline(entry.baseline)
        check(entry.baseline, base_spec, spec, allow)
    except StaleBaselineError as e:
        return Outcome(entry, "stale", str(e), spec)
    except BaselineError as e:
        return Outcome(entry, "error", str(e), spec)
    paired = base_spec.first_seed == spec.first_seed and base_spec.swap == spec.swap
    asked = spec.games
    if paired and spec.games > base_spec.games:
        spec = spec.with_games(base_spec.games)  # games beyond the baseline's have nobody to pair with
    # said from the first progress line: a count short of --games ended in "stopped early", with no word why
    cut = f" (--games {asked} cut to the baseline's {spec.games})" if spec.games < asked else ""
    on_game = _watch(progress, entry.label + cut, spec.games)
    first = spec.sides[0]
    base_units = units(base_records, first, spec.swap)
    size = 2 if spec.swap else 1
    records: list[GameRecord] = []
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
    new_units = units(records, first, spec.swap)
    # paired: "before" is the baseline's same games (the same dice), so before, now and the change agree
    reference = describe(base_spec, base_records[:len(records)] if paired else base_records)
    summary: dict[str, Any] = {"run": describe(spec, records), "reference": reference, "test": test,
                               "games_used": len(records), "change": change(new_units, base_units, paired)}
    msg = (comparison(first, summary["run"], summary["reference"], summary["change"])
           + f"; {len(records)} games" + (" on the baseline's dice" if paired else
                                             f", baseline {base_spec.games} games on other dice"))
    if spec.games < asked:  # said: the progress line ended short of the games asked for with no word why
        summary["cut_from"] = asked
        msg += (f" (--games {asked} cut to the baseline's {spec.games}: on its dice each game pairs with the "
                "baseline's game of its seed)")
    return Outcome(entry, "shifted" if shifted else "ok", msg, spec, records, summary)
