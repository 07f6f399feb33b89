"""The report of a `regress` run: what changed, in plain words first, then every entry's evidence.

It opens with one sentence per entry (``kiai/duel [a,b]: side A wins 12 % [8, 17] now, 49 % [44, 54]
before: shifted``), then a table of every entry with its verdict, games and the change of the win
rate, then a section per entry: the comparison and plots for those that played, the error text for
stale and failed ones. A run where every entry failed still gets its report.
"""

from __future__ import annotations

from pathlib import Path

from trpg_arena.experiments.regression import Outcome, exit_code, exit_line, tally
from trpg_arena.experiments.series.report import Part, series_parts, write_parts
from trpg_arena.experiments.series.words import pct, points


def _change(o: Outcome, metric: str) -> str:
    shift = o.summary.get("change", {}).get(metric)
    return points(shift["shift"], *shift["interval95"]) if shift else "-"


def overview(outcomes: list[Outcome]) -> Part:
    """The first paragraph and the table of every entry."""
    lines = [f"{tally(outcomes)}; {exit_line(exit_code(outcomes), legend=False)}.", ""]
    lines += [f"- {o.headline(lambda s: f'**{s}**')}" for o in outcomes]
    lines += ["", "| entry | verdict | games | first side's win rate: before, now | change of the win rate | "
              "change of the loss rate |", "|---|---|---:|---:|---:|---:|"]
    for o in outcomes:
        now, was = o.summary.get("run"), o.summary.get("reference")
        rates = f"{pct(was['wins'] / was['games'])} → {pct(now['wins'] / now['games'])}" if now and was else "-"
        lines.append(f"| {o.entry.label} | **{o.status}** | {len(o.records)} | {rates} | {_change(o, 'win')} | "
                     f"{_change(o, 'loss')} |")
    return Part("\n".join(lines) + "\n")


def entry_parts(o: Outcome) -> list[Part]:
    """An entry's section: the series' evidence when it played, else its verdict and error text."""
    if o.spec is not None and o.records:
        return series_parts(o.spec, o.records, o.to_json(exact=True), title=o.entry.label)
    return [Part(f"## {o.entry.label}\n\n**Verdict: {o.status}**: {o.message}\n\nBaseline file: "
                f"`{o.entry.baseline}`.\n")]


def write_regress_report(folder: Path, title: str, outcomes: list[Outcome]) -> tuple[Path, Path]:
    """report.md and report.html of a regress run."""
    return write_parts(folder, title, [overview(outcomes), *(p for o in outcomes for p in entry_parts(o))])
