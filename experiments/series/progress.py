"""Progress while games are played: a live bar on a terminal, plain lines in a log.

A CI log (or anything that is not a terminal) cannot show a live bar, and a run of many minutes
that prints nothing looks hung. There, `Ticker` prints one line when a task starts, then each time
another tenth of it is done (at most every 5 s) or half a minute has passed, and one at its end: what is done, the
rate and the time left.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

EVERY_SECONDS = 30.0  # a line at least this often while work goes on (CI systems kill jobs silent for minutes)
GAP_SECONDS = 5.0  # and not more often than this for the tenths (a short series gets its first and last line)


class Ticker:
    """Plain progress lines for one task of `total` units (games, steps)."""

    def __init__(self, console: Console, label: str, total: int, unit: str = "games",
                 start: float | None = None) -> None:
        self.console, self.label, self.total, self.unit = console, label, total, unit
        self.done = 0
        # `start`: when the work began, if before this ticker (the rate must count the first unit's time too)
        self.start = time.perf_counter() if start is None else start
        self.last_time = time.perf_counter()
        self.last_tenth = 0
        self.printed = -1
        self.extra = ""
        self.console.print(f"{escape(label)}: started, {total:,} {unit} to go", soft_wrap=True, highlight=False)

    def update(self, done: int, extra: str = "") -> None:
        """Record progress; prints a line on each tenth done and at least every `EVERY_SECONDS`."""
        self.done, self.extra = done, extra
        now = time.perf_counter()
        tenth = 10 * done // max(self.total, 1)
        since = now - self.last_time
        if tenth > self.last_tenth and since >= GAP_SECONDS or since >= EVERY_SECONDS:
            self.last_tenth = tenth
            self.last_time = now
            self._line()

    def advance(self, n: int = 1) -> None:
        """`n` more units done."""
        self.update(self.done + n, self.extra)

    def finish(self) -> None:
        """The closing line (unless the last line already said it all)."""
        if self.printed != self.done:
            self._line(final=True)

    def _line(self, final: bool = False) -> None:
        self.printed = self.done
        seconds = time.perf_counter() - self.start
        speed = self.done / seconds if seconds > 0 else 0.0
        parts = [f"{self.done:,}/{self.total:,} {self.unit} ({100 * self.done / max(self.total, 1):.0f} %)",
                 f"{rate_text(speed)} {self.unit}/s", f"{seconds:,.0f} s"]
        if self.done < self.total and speed > 0:
            parts.append("stopped early" if final else f"about {(self.total - self.done) / speed:,.0f} s left")
        if self.extra:
            parts.append(self.extra)
        self.console.print(f"{escape(self.label)}: {', '.join(parts)}", soft_wrap=True, highlight=False)


def rate_text(speed: float) -> str:
    """A rate with one decimal, or enough digits to show two of a rate under 1 (a search game takes a minute)."""
    if speed >= 1 or speed <= 0:
        return f"{speed:,.1f}"
    return f"{speed:.{1 + math.ceil(-math.log10(speed))}f}"


@contextmanager
def series_progress(console: Console) -> Iterator[Callable[[str, int], Callable[[Any], None]]]:
    """A progress display; what it yields makes a bar and returns the `on_game` callback that advances it.

    Use: ``with series_progress(console) as bar: run_series(spec, on_game=bar("label", spec.games))``.
    A bar on a terminal; plain lines (`Ticker`) otherwise.
    """
    if not console.is_terminal:
        tickers: list[Ticker] = []

        def line(label: str, total: int) -> Callable[[Any], None]:
            begun = time.perf_counter()  # the task's games start now, though its lines wait for the first to end

            def advance(_record: Any) -> None:  # the first game opens the task's lines: no lines for none played
                if not tickers or tickers[-1].label != label or tickers[-1].done >= total:
                    if tickers:
                        tickers[-1].finish()
                    tickers.append(Ticker(console, label, total, start=begun))
                tickers[-1].advance()

            return advance

        try:
            yield line
        finally:
            if tickers:
                tickers[-1].finish()
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as progress:
        def bar(label: str, total: int) -> Callable[[Any], None]:
            task = progress.add_task(label, total=total)
            return lambda _record: progress.advance(task)

        yield bar
