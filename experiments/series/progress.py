"""Rich progress for series: one bar per series, advanced as game records stream in."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from trpg_arena.experiments.series.game import GameRecord


@contextmanager
def series_progress(console: Console) -> Iterator[Callable[[str, int], Callable[[GameRecord], None]]]:
    """A progress display; what it yields makes a bar and returns the `on_game` callback that advances it.

    Use: ``with series_progress(console) as bar: run_series(spec, on_game=bar("label", spec.games))``.
    """
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as progress:
        def bar(label: str, total: int) -> Callable[[GameRecord], None]:
            task = progress.add_task(label, total=total)
            return lambda _record: progress.advance(task)

        yield bar
