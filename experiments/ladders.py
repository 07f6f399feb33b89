"""Several encounters' ladders from one command: every system's duel rated by the same settings.

`trpg-arena ladder kiai/duel moonlit/duel ...` plays each encounter's ladder (`ladder.run_ladder`, with
that system's own default line-up unless agents are named) into one parent folder
(``runs/ladder/<UTC time>-ladders``): ``ladders-spec.json`` (the encounters, in order), one ladder
folder per encounter, and ``ladders.md`` with every table, the page a strength table is copied from.
Every line-up is checked before the first game, so a spec one system lacks is refused before an hour
of another system's games. ``--resume PARENT`` finishes each encounter's ladder that was begun and
starts the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from trpg_arena.experiments.ladder import LadderError, check_ladder_options, ladder_pairs, run_ladder
from trpg_arena.experiments.series import SeriesSpec
from trpg_arena.experiments.series.folders import run_folder
from trpg_arena.experiments.series.runner import check_backend

SPEC_FILE = "ladders-spec.json"


def check_lineups(encounters: list[str], lineup: Callable[[str], list[str]], neighbours: int,
                  reference: str | None = None) -> None:
    """Refuse (ValueError naming the agent) a line-up an encounter's rule system cannot play, before any game."""
    for encounter in encounters:
        names = lineup(encounter)
        if len(names) < 2 or len(set(names)) != len(names):
            raise ValueError(f"{encounter}: a ladder needs at least two different agents")
        try:
            pairs = ladder_pairs(names, neighbours, reference)
        except ValueError as e:
            raise ValueError(f"{encounter}: {e}") from None
        for a, b in pairs:
            SeriesSpec.build(encounter, [a, b], 1)


def open_parent(out: Path, encounters: list[str], resume: Path | None) -> Path:
    """A fresh parent folder under `out`, or the `resume` folder when it holds a ladder of these encounters."""
    if resume is None:
        parent = run_folder(out, "ladders")
        (parent / SPEC_FILE).write_text(json.dumps({"encounters": encounters}, indent=1) + "\n", encoding="utf-8")
        return parent
    spec_file = resume / SPEC_FILE
    if not spec_file.is_file():
        raise LadderError(f"--resume {resume}: not a ladder of several encounters (no {SPEC_FILE})")
    try:
        kept = json.loads(spec_file.read_text(encoding="utf-8"))["encounters"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise LadderError(f"--resume {resume}: cannot read {SPEC_FILE} ({e})") from None
    if kept != encounters:
        raise LadderError(f"--resume {resume}: that ladder was run on {', '.join(kept)}; rerun its own command "
                          "with --resume, or start a fresh ladder")
    return resume


def begun(parent: Path, encounter: str) -> Path | None:
    """The ladder folder of `encounter` inside `parent`, if its ladder was begun."""
    for folder in sorted(p for p in parent.iterdir() if p.is_dir()):
        spec_file = folder / "ladder-spec.json"
        if spec_file.is_file() and json.loads(spec_file.read_text(encoding="utf-8")).get("encounter") == encounter:
            return folder
    return None


def run_ladders(encounters: list[str], lineup: Callable[[str], list[str]], games: int, seed: int, neighbours: int,
                bootstrap: int, out: Path, console: Console, workers: int | None = None, backend: str = "local",
                resume: Path | None = None, search_games: int | None = None,
                cost_seconds: float = 0.0, reference: str | None = None) -> dict[str, Any]:
    """Each encounter's ladder in turn, into one parent folder with ``ladders.md`` holding every table.

    `lineup(encounter)` gives that encounter's agents; `reference`, if any, plays every agent of each.
    Returns ``{"folder": parent, "ladders": [...]}``, each ladder's result as `run_ladder` returns it.
    """
    if len(set(encounters)) != len(encounters):
        raise ValueError("each encounter once: a ladder of an encounter twice would rate the same games twice")
    check_lineups(encounters, lineup, neighbours, reference)
    # every ladder's own check comes after the parent folder and the first encounter's games: refuse here first
    check_ladder_options(games, search_games, neighbours, bootstrap, cost_seconds)
    check_backend(backend, workers)  # before the parent folder: a refused run leaves none
    parent = open_parent(out, encounters, resume)
    console.print(f"ladders of {', '.join(encounters)} in {parent}; after a stop, run the same command with "
                  f"--resume {parent}", highlight=False, soft_wrap=True)
    results = []
    for encounter in encounters:
        results.append(run_ladder(encounter, lineup(encounter), games, seed, neighbours, bootstrap, parent, console,
                                  workers, backend, begun(parent, encounter) if resume is not None else None,
                                  search_games, cost_seconds, resume_hint=parent, reference=reference))
    (parent / "ladders.md").write_text(_markdown(results), encoding="utf-8")
    return {"folder": str(parent), "ladders": results}


def _markdown(results: list[dict[str, Any]]) -> str:
    """Every ladder's page under one title, each a section named by its encounter."""
    parts = ["# Ladders\n"]
    for result in results:
        page = (Path(result["folder"]) / "ladder.md").read_text(encoding="utf-8")
        parts.append("#" + page)  # its title becomes a section
    return "\n".join(parts)
