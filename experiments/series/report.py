"""Reports a designer can share: Markdown plus one self-contained HTML file (plots inlined as PNG).

Per series: the sides' win rates with Wilson 95 % intervals, each agent's results on each side it
played, rounds to the end, damage dealt and taken by source and target (the post-combat
statistics, `table.stats`), which combatant falls first, the rule ids the rule system can cite
that no game cited (rules the agents never use: a design smell or a bug) and, for a regression,
the baseline beside the new run, the change in plain words and the sequential test's trace.
A report is a list of `Part`s (Markdown and its plots); `page.html_of` turns each into HTML.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trpg_arena.experiments.series import charts
from trpg_arena.experiments.series.game import GameRecord
from trpg_arena.experiments.series.page import PAGE, html_of
from trpg_arena.experiments.series.spec import SeriesSpec
from trpg_arena.experiments.series.sprt import wilson
from trpg_arena.experiments.series.words import points, rate, share
from trpg_arena.rules import RULESETS

RULE_ID = re.compile(r"[\"']([A-Z]{2,5}-\d+(?:\.\d+)+[a-z]?)[\"']")
TEST_WORDS = {"win+": "a rise of the win rate", "win-": "a fall of the win rate",
              "loss+": "a rise of the loss rate", "loss-": "a fall of the loss rate"}


@dataclass
class Part:
    """A piece of a report: Markdown (headings, paragraphs, lists, tables) and the plots under it."""

    markdown: str
    images: dict[str, str] = field(default_factory=dict)
    continued: bool = False  # goes on the part before it (no rule between them)


def citable_rules(ruleset: str) -> set[str]:
    """Rule ids the rule system's code can put on an event (id literals in its package's sources)."""
    folder = RULESETS[ruleset].info.data_dir
    return {m for f in folder.rglob("*.py") for m in RULE_ID.findall(f.read_text(encoding="utf-8"))}


def facts(spec: SeriesSpec, records: list[GameRecord]) -> dict[str, Any]:
    """The numbers of one series' section of the report."""
    n = len(records)
    sides = list(spec.sides)
    results = Counter(r.result for r in records)
    rates = {s: (results[s], *wilson(results[s], n)) for s in [*sides, "draw"]}
    dealt: Counter[tuple[str, str]] = Counter()
    for r in records:
        for s, t, v in r.damage:
            dealt[(s, t)] += v
    first = Counter(r.falls[0] if r.falls else "(nobody fell)" for r in records)
    # each line-up slot's wins and games on each side it played (a model played on the wrong side shows here)
    label = [f"{a} (line-up slot {i + 1})" for i, a in enumerate(spec.lineup)]
    per_side: dict[str, dict[str, list[int]]] = {k: {s: [0, 0] for s in sides} for k in label}
    for r in records:
        for slot in range(len(sides)):
            side = sides[len(sides) - 1 - slot if r.swapped else slot]
            cell = per_side[label[slot]][side]
            cell[1] += 1
            cell[0] += r.result == side
    by_agent = Counter({k: sum(w for w, _ in per_side[k].values()) for k in label})
    fired = set().union(*(set(r.rules) for r in records)) if records else set()
    return {"games": n, "sides": sides, "rates": rates, "rounds": Counter(r.rounds for r in records),
            "damage": dealt, "first_fall": first, "by_agent": by_agent, "per_side": per_side,
            "never": sorted(citable_rules(spec.ruleset) - fired, key=_rule_key),
            "mean_rounds": sum(r.rounds for r in records) / n if n else 0.0}


def _rule_key(rid: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[-.]", rid))


def _cell(wins: int, games: int) -> str:
    return f"{wins} of {games}: {share(wins, games, digits=1)}" if games else "-"


def sequential_words(test: dict[str, Any], side: str, games_used: int) -> str:
    """The sequential test's settings and decision in a plain paragraph."""
    decided = test.get("decided", {})
    trace = test.get("trace") or [{}]
    unit = "side-swapped pairs" if test.get("unit") == "pair" else "games"
    found = [words for k, words in TEST_WORDS.items() if decided.get(k) == "H1"]
    ruled = [words for k, words in TEST_WORDS.items() if decided.get(k) == "H0"]
    played = f"{games_used} games" + (f" ({trace[-1].get('units', 0)} {unit})" if unit != "games" else "")
    text = (f"The sequential test looks for a change of {100 * test['delta']:.0f} points or more in the win rate "
            f"or the loss rate of side {side} (false alarms at most {100 * test['alpha']:.0f} %, a change of "
            f"that size missed at most {100 * test['beta']:.0f} %), "
            + ("on the baseline's own dice, game by game. " if test["paired"] else
               "on other dice than the baseline's (unpaired). ")
            + f"After {played} it ")
    if found:
        text += f"found {' and '.join(found)}."
    elif test.get("truncated"):
        fb = test.get("fallback", {})
        text += (f"had not decided at the game cap; the fixed-N test on all {games_used} games then found "
                 + ("a change" if fb.get("shifted") else "no change") + f" ({p_values(fb)}).")
    else:
        text += "ruled out " + ", ".join(ruled[:-1]) + (" and " if len(ruled) > 1 else "") + ruled[-1] + "."
    lo, hi = test["bounds"]
    last = ", ".join(f"{charts.TEST_NAMES.get(k, k)} {v:.1f}" for k, v in trace[-1].items() if k != "units")
    return text + f" (Bounds {lo:.2f} and {hi:.2f}; last log-likelihood ratios: {last}.)"


def _verdict_lines(extra: dict[str, Any], side: str) -> list[str]:
    lines = [f"**Verdict: {extra['status']}**: {extra['message']}", ""]
    now, was, shift = extra.get("run"), extra.get("reference"), extra.get("change")
    if now and was and shift:
        lines += [f"| side {side} | baseline ({was['games']} games) | this run ({now['games']} games) | "
                  "change (95 % interval) |", "|---|---:|---:|---:|"]
        for key, word in (("win", "wins"), ("loss", "losses")):  # from the counts, as the tables below
            lines.append(f"| {word} | {share(was[word], was['games'], digits=1)} | "
                         f"{share(now[word], now['games'], digits=1)} | "
                         f"{points(shift[key]['shift'], *shift[key]['interval95'], digits=1)} |")
        lines.append("")
    test = extra.get("test") or {}
    if test.get("kind") == "sprt":
        lines += [sequential_words(test, side, extra.get("games_used", 0)), ""]
    elif test:
        exact = shift or {}  # the test's shifts are the change's, rounded: written from the change's exact ones
        lines += [f"Fixed-N test (two-sided, false alarms at most {100 * test['alpha']:.0f} % over both rates): "
                  + ", ".join(f"{m} rate {100 * exact.get(m, v)['shift']:+.1f} points (p = {v['p_value']:.3g})"
                              for m, v in test["metrics"].items())
                  + (": a change" if test["shifted"] else ": no change") + f" ({needs(test)}).", ""]
    return lines


def needs(test: dict[str, Any]) -> str:
    """What a fixed-N test calls a change: the 95 % interval beside it can leave out 0 where the test does not."""
    alpha, metrics = test["alpha"], len(test["metrics"]) or 1
    return (f"a change needs p below {alpha / metrics:.3g} for one rate: the {100 * alpha:.0f} % of false alarms "
            f"is shared by the {metrics} rates, so a 95 % interval of one rate may leave out 0 with no change found")


def p_values(test: dict[str, Any]) -> str:
    """``win rate p = 0.04, loss rate p = 0.31; a change needs ...``: a fixed-N test's figures in a sentence."""
    said = ", ".join(f"{m} rate p = {v['p_value']:.3g}" for m, v in test.get("metrics", {}).items())
    return f"{said}; {needs(test)}" if said else needs(test)


def _md_head(title: str, spec: SeriesSpec, f: dict[str, Any], extra: dict[str, Any] | None) -> str:
    lines = [f"## {title}", "",
             f"`{spec.name}` ({spec.ruleset} env_version {spec.env_version}, content {spec.content_hash}), "
             f"line-up `{','.join(spec.lineup)}`, {f['games']} games from seed {spec.first_seed}, "
             f"sides {'swapped in pairs' if spec.swap else 'not swapped'}.", ""]
    if extra:
        lines += _verdict_lines(extra, spec.sides[0])
    return "\n".join(lines)


def _md_details(f: dict[str, Any]) -> str:
    g = max(f["games"], 1)
    lines = ["| outcome | games | share (95 % interval) |", "|---|---:|---:|"]
    for s, (k, lo, hi) in f["rates"].items():
        lines.append(f"| {'side ' + s + ' wins' if s != 'draw' else 'draw'} | {k} | {rate(k / g, lo, hi, digits=1)} |")
    lines += ["", "| agent | " + " | ".join(f"won as side {s}" for s in f["sides"]) + " | won in all |",
              "|---|" + "---:|" * (len(f["sides"]) + 1)]
    for a, cells in f["per_side"].items():
        lines.append(f"| {a} | " + " | ".join(_cell(w, n) for w, n in cells.values()) + f" | "
                     f"{_cell(f['by_agent'][a], f['games'])} |")
    ids = sorted({s for s, _ in f["damage"]} | {t for _, t in f["damage"]})
    lines += ["", f"Rounds to the end: mean {f['mean_rounds']:.1f}, "
              + ", ".join(f"{r}: {c}" for r, c in sorted(f["rounds"].items())), "",
              "| combatant | damage dealt per game | damage taken per game | falls first |", "|---|---:|---:|---:|"]
    for c in ids:
        dealt = sum(v for (s, _), v in f["damage"].items() if s == c)
        taken = sum(v for (_, t), v in f["damage"].items() if t == c)
        lines.append(f"| {'(no source)' if c == '-' else c} | {dealt / g:.2f} | {taken / g:.2f} | "
                     f"{f['first_fall'].get(c, 0)} |")
    lines += ["", "Falls first: " + ", ".join(f"{k} {v}" for k, v in f["first_fall"].most_common()), "",
              f"Rule ids never cited in any game ({len(f['never'])}): " + (", ".join(f["never"]) or "none"), ""]
    return "\n".join(lines)


def series_parts(spec: SeriesSpec, records: list[GameRecord], extra: dict[str, Any] | None = None,
                 title: str | None = None) -> list[Part]:
    """The section of one series: its verdict and comparison plots (a regression's), then its numbers and plots."""
    f = facts(spec, records)
    extra = extra or {}
    compare: dict[str, str] = {}
    if extra.get("run") and extra.get("reference"):
        compare["baseline beside this run"] = charts.beside(extra["run"], extra["reference"], extra["status"])
    if extra.get("test"):
        llr = charts.sequential(extra["test"])
        if llr:
            compare["sequential test"] = llr
    images = {"who wins": charts.wins(f), "rounds": charts.rounds(f)}
    heat = charts.damage(f)
    if heat:
        images["damage"] = heat
    images["falls first"] = charts.falls(f)
    head = title or f"{spec.name} [{','.join(spec.lineup)}]"
    return [Part(_md_head(head, spec, f, extra or None), compare),
            Part(_md_details(f), images, continued=True)]


def write_parts(folder: Path, title: str, parts: list[Part]) -> tuple[Path, Path]:
    """Write report.md and report.html from the parts; returns their paths."""
    md = "\n".join([f"# {title}", "", *(p.markdown for p in parts)])
    body = [f"<h1>{html.escape(title)}</h1>", *(html_of(p.markdown, p.images, p.continued) for p in parts)]
    md_path, html_path = folder / "report.md", folder / "report.html"
    md_path.write_text(md, encoding="utf-8")
    html_path.write_text(PAGE.format(title=html.escape(title), body="\n".join(body)), encoding="utf-8")
    return md_path, html_path


def write_report(folder: Path, title: str, sections: list[tuple[SeriesSpec, list[GameRecord]]],
                 extras: list[dict[str, Any] | None] | None = None) -> tuple[Path, Path]:
    """Write report.md and report.html for one or more series; returns their paths."""
    extras = extras or [None] * len(sections)
    return write_parts(folder, title, [part for (spec, records), extra in zip(sections, extras)
                                       for part in series_parts(spec, records, extra)])
