"""Run folders that keep each game as it ends, so a stopped run resumes where it stopped.

A command that plays series for minutes or hours (`evaluate`, `tournament`, `ladder`) writes its
settings into a fresh run folder before the first game and appends each game to a results file as
it ends. The same command with ``--resume FOLDER`` checks that the folder's settings are its own
and plays only the games missing: game ``i`` of a series is a pure function of the spec and ``i``,
so the finished folder is the one an unbroken run writes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from trpg_arena.experiments.series.folders import run_folder
from trpg_arena.experiments.series.game import GameRecord
from trpg_arena.experiments.series.progress import series_progress
from trpg_arena.experiments.series.runner import run_series
from trpg_arena.experiments.series.spec import SeriesSpec
from trpg_arena.experiments.series.stopping import sigterm_interrupts
from trpg_arena.rules import TrpgArenaError


class ResumeError(TrpgArenaError, ValueError):
    """A run folder that cannot be resumed by this command (the message says why)."""


def open_run(out: Path, what: str, settings_file: str, settings: dict[str, Any], resume: Path | None,
             kind: str) -> Path:
    """A fresh run folder under `out` holding `settings`, or the `resume` folder when its settings are these.

    `kind` names the run in messages ("ladder", "evaluation"). A setting only one side has differs too.
    """
    if resume is None:
        folder = run_folder(out, what)
        (folder / settings_file).write_text(json.dumps(settings, indent=1) + "\n", encoding="utf-8")
        return folder
    path = resume / settings_file
    article = "an" if kind[0] in "aeiou" else "a"
    if not path.is_file():
        raise ResumeError(f"--resume {resume}: not {article} {kind} run folder (no {settings_file})")
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:  # ValueError: broken JSON, or bytes that are no UTF-8 text
        raise ResumeError(f"--resume {resume}: cannot read {settings_file} ({e})") from None
    if not isinstance(kept, dict):
        raise ResumeError(f"--resume {resume}: {settings_file} holds no settings")
    # an encounter's content (a dict) is named, not printed whole
    differ = [k if isinstance(settings.get(k), dict) else f"{k} {kept.get(k)!r} -> {settings.get(k)!r}"
              for k in dict.fromkeys([*settings, *kept]) if kept.get(k) != settings.get(k)]
    if differ:
        raise ResumeError(f"--resume {resume}: that {kind} was run with other settings ({'; '.join(differ)}); "
                          f"rerun its own command with --resume, or start a fresh {kind}")
    return resume


def kept_games(path: Path) -> list[GameRecord]:
    """The games a results file written as they ended holds, in order, and the file cut back to them.

    A stop can cut the last line short (or, on a pool, leave a later game's line without its
    predecessors): the file keeps the run of games 0, 1, 2... from its start and the rest is played again.
    """
    if not path.exists():
        return []
    try:
        records = read_games(path)
    except (OSError, UnicodeDecodeError) as e:  # another file under the name: not cut back, named
        raise ResumeError(f"{path}: cannot be read as a run's results ({e}); start a fresh run") from None
    path.write_text("".join(r.line() + "\n" for r in records), encoding="utf-8")
    return records


def read_games(path: Path) -> list[GameRecord]:
    """The run of games 0, 1, 2... from the start of a results file, the file left as it is (see `kept_games`)."""
    records: list[GameRecord] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = GameRecord.from_json(json.loads(line))
        except (ValueError, KeyError, TypeError):
            break
        if record.index != len(records):
            break
        records.append(record)
    return records


def _play_rest(spec: SeriesSpec, path: Path, played: list[GameRecord], workers: int | None, backend: str,
               on_game: Callable[[GameRecord], None]) -> None:
    """Play the series' games after those in `played`, appending each to `path` and `played` as it ends."""
    # one game a task on this machine, so each is written as it ends (the runner's batch of several is
    # lost whole at a stop); a Ray task keeps the runner's batch, whose start-up one game would not repay
    batch = 1 if backend == "local" else None
    with path.open("a", encoding="utf-8") as fh:
        for record in run_series(spec, workers, backend, batch=batch, start=len(played)):
            fh.write(record.line() + "\n")
            fh.flush()  # a stop loses at most the games being played (one a local worker)
            played.append(record)
            on_game(record)


def _say_kept(console: Console, folder: Path, kept: int, total: int, resumed: bool, hint: Path | None = None) -> None:
    """The line a run starts with: where its games are kept and how to resume it (or what a resume found).

    `hint` is the folder a resume names when it is not `folder` (a ladder of several encounters resumes
    from their parent folder).
    """
    if resumed:
        console.print(f"resuming {folder}: {kept} of {total} games kept", highlight=False)
    else:
        console.print(f"run folder {folder}: every game is kept as it ends; after a stop, run the same command "
                      f"with --resume {hint or folder}", highlight=False, soft_wrap=True)


def _say_stopped(console: Console, folder: Path, kept: int, total: int, hint: Path | None = None) -> None:
    """The line a stopped run ends with (Ctrl-C, SIGTERM): what it kept and the command that finishes it."""
    console.print(f"stopped after {kept} of {total} games, all kept in {folder}; run the same command with "
                  f"--resume {hint or folder} to play the rest", highlight=False, soft_wrap=True)


def play_kept(console: Console, folder: Path, series: list[tuple[str, SeriesSpec, Path]], workers: int | None,
              backend: str, resumed: bool, hint: Path | None = None) -> list[list[GameRecord]]:
    """Each (label, spec, results file) in turn: its kept games read back and the rest played; the games of each.

    Says at the start where the games are kept (or what a resume found) and, on Ctrl-C or SIGTERM, what
    was kept and how to finish, then lets the interrupt go on. `hint`: see `_say_kept`.
    """
    kept = [kept_games(path) for _, _, path in series]
    total = sum(spec.games for _, spec, _ in series)
    _say_kept(console, folder, sum(map(len, kept)), total, resumed, hint)
    try:
        with sigterm_interrupts(), series_progress(console) as bar:
            for (label, spec, path), played in zip(series, kept, strict=True):
                if len(played) < spec.games:
                    _play_rest(spec, path, played, workers, backend, bar(label, spec.games - len(played)))
    except KeyboardInterrupt:
        # counted from the files, not the lists: the stop can fall between writing a game and listing it
        _say_stopped(console, folder, sum(len(kept_games(path)) for _, _, path in series), total, hint)
        raise
    return kept
