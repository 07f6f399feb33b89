"""`trpg-arena regress`: suites or one encounter, recorded or compared, printed, reported, JUnit XML."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from trpg_arena.experiments.out_files import check_folder, check_own_kind
from trpg_arena.experiments.regress_report import write_regress_report
from trpg_arena.experiments.regression import Outcome, exit_code, exit_line, run_entry, tally
from trpg_arena.experiments.series.baseline import check_recordable
from trpg_arena.experiments.series.folders import run_folder, write_results
from trpg_arena.experiments.series.junit import junit_xml
from trpg_arena.experiments.series.progress import series_progress
from trpg_arena.experiments.series.runner import check_backend
from trpg_arena.experiments.series.spec import MAX_GAMES
from trpg_arena.experiments.series.suite import Entry, is_suite, load_suite, make_entry
from trpg_arena.rules import load_encounter

ALLOWED = ("content", "env_version", "lineup", "swap")


@dataclass(frozen=True)
class RegressArgs:
    """The command line of `regress`."""

    target: str
    agents: list[str]
    baseline: Path | None
    record: bool
    games: int | None
    seed: int | None
    test: str | None
    delta: float | None
    alpha: float | None
    beta: float | None
    allow: frozenset[str]
    workers: int | None
    backend: str
    junit: Path | None
    out: Path


def entries_of(a: RegressArgs) -> list[Entry]:
    """The suite's entries, or the one encounter's, with the command line's settings on top."""
    bad = a.allow - set(ALLOWED)
    if bad:
        raise ValueError(f"--allow takes {', '.join(ALLOWED)}; got {', '.join(sorted(bad))}")
    if a.games is not None and not 2 <= a.games <= MAX_GAMES:
        raise ValueError(f"--games must be from 2 to {MAX_GAMES:,}, got {a.games:,}")
    for name in ("delta", "alpha", "beta"):
        value = getattr(a, name)
        if value is not None and not 0 < value < 1:
            raise ValueError(f"--{name} must lie strictly between 0 and 1, got {value}")
    overrides = {"games": a.games, "test": a.test, "delta": a.delta, "alpha": a.alpha, "beta": a.beta}
    if is_suite(a.target):
        if a.baseline is not None:
            raise ValueError("--baseline is for one encounter; a suite names its baselines (its 'baselines' folder)")
        entries = load_suite(Path(a.target))
        return [make_entry(e.encounter, e.agents, e.baseline, **{**_settings(e), **{k: v for k, v in
                                                                                   overrides.items()
                                                                                   if v is not None}})
                for e in entries]
    load_encounter(a.target)  # a missing or broken encounter is named before anything else
    if a.baseline is None:
        raise ValueError("regress ENCOUNTER needs --baseline FILE (the file to compare with, or to write with "
                         "--record); or give a suite YAML")
    return [make_entry(a.target, tuple(a.agents), a.baseline, **overrides)]


def check_junit(path: Path) -> None:
    """``--junit FILE``: a new file, or a JUnit report (CI rewrites its own each run); a person's file is kept."""
    check_folder(path.parent, f"--junit {path}: its folder")
    check_own_kind(path, "--junit", "a JUnit report", _is_junit)


def _is_junit(path: Path) -> bool:
    try:
        return b"<testsuite" in path.read_bytes()[:512]
    except OSError:
        return False


def _coloured(o: Outcome, style: dict[str, str]) -> str:
    """The entry's headline with its verdict coloured (the rest escaped: labels and messages hold brackets)."""
    marker = "\x00"
    text = escape(o.headline(lambda s: marker + s + marker))
    before, verdict, after = text.split(marker)
    return f"{before}[{style[verdict]}]{verdict}[/]{after}"


def _settings(e: Entry) -> dict[str, object]:
    return {"games": e.games, "seed": e.seed, "test": e.test, "delta": e.delta, "alpha": e.alpha, "beta": e.beta,
            "swap": e.swap}


def run_regress(a: RegressArgs, console: Console, err: Console) -> int:
    """Run every entry, print the verdicts, write the run folder; returns the exit code."""
    check_backend(a.backend, a.workers)  # the command's own options, before any entry is read or folder made
    check_folder(a.out)
    if a.junit is not None:
        check_junit(a.junit)
    entries = entries_of(a)
    if a.record:  # before the first game: a file that is no baseline is a person's, never replaced
        for e in entries:
            check_folder(e.baseline.parent, f"baseline {e.baseline}: its folder")
            check_recordable(e.baseline)
    started = time.perf_counter()
    outcomes: list[Outcome] = []
    with series_progress(err) as bar:
        for e in entries:
            t0 = time.perf_counter()
            o = run_entry(e, record=a.record, seed=a.seed, allow=a.allow, workers=a.workers, backend=a.backend,
                          progress=bar)
            o.summary["seconds"] = round(time.perf_counter() - t0, 2)
            outcomes.append(o)
    seconds = time.perf_counter() - started
    folder = run_folder(a.out, Path(a.target).stem if is_suite(a.target) else a.target)
    for i, o in enumerate(outcomes):
        if o.records:
            write_results(folder / f"results-{i:02d}.jsonl", o.records)
    (folder / "summary.json").write_text(json.dumps({"target": a.target, "record": a.record,
                                                     "exit": exit_code(outcomes),
                                                     "entries": [o.to_json() for o in outcomes]}, indent=1) + "\n",
                                         encoding="utf-8")
    junit_xml(outcomes, folder / "junit.xml", f"regress {a.target}", seconds)
    if a.junit is not None:
        a.junit.parent.mkdir(parents=True, exist_ok=True)
        junit_xml(outcomes, a.junit, f"regress {a.target}", seconds)
    write_regress_report(folder, f"regress {a.target}", outcomes)
    style = {"ok": "green", "recorded": "green", "shifted": "bold red", "stale": "bold red", "error": "bold red"}
    for o in outcomes:  # one whole line per entry, the report's first paragraph: for people, CI logs and grep
        console.print(_coloured(o, style), soft_wrap=True)
    for o in outcomes:  # what went wrong on stderr too, a whole line each (for a shift: the loss rate and change)
        if o.status in ("stale", "error", "shifted"):
            err.print(f"[red]{o.status}[/red] {escape(o.entry.label)}: {escape(o.message)}", soft_wrap=True)
    code = exit_code(outcomes)
    console.print(f"{tally(outcomes)}; report {folder / 'report.html'}")
    console.print(exit_line(code))
    return code
