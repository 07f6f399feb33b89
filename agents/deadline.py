"""How long agents may think: a `Deadline` that a caller puts around agent work and searches read.

A server gives every request's agent work a deadline (and ends them all at once when it shuts
down); a search that reaches it answers with the best action found so far (`expired` is checked
between simulations). Outside any deadline nothing changes: a terminal or a runner plays exactly by
the agents' own budgets, so seeded play stays reproducible.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class Deadline:
    """A moment after which agent work should stop, or an earlier `cancel`; thread-safe."""

    def __init__(self, seconds: float | None) -> None:
        self.end = None if seconds is None else time.monotonic() + seconds
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        """Stop now (the work answers with what it has)."""
        self._cancelled.set()

    def expired(self) -> bool:
        """Whether the time is up, the deadline was cancelled or the process is shutting down."""
        return (self._cancelled.is_set() or _stopping.is_set()
                or (self.end is not None and time.monotonic() >= self.end))

    def remaining(self) -> float | None:
        """Seconds left (0 once expired), None without a time limit."""
        if self.expired():
            return 0.0
        return None if self.end is None else max(0.0, self.end - time.monotonic())


_current: ContextVar[Deadline | None] = ContextVar("trpg_arena_agent_deadline", default=None)
_stopping = threading.Event()  # set once for the whole process: every deadline expires


@contextmanager
def within(deadline: Deadline) -> Iterator[Deadline]:
    """Agent work in this block (this thread or context) stops at `deadline`."""
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


def current() -> Deadline | None:
    """The deadline around the work running now, if any."""
    return _current.get()


def expired() -> bool:
    """Whether the work running now should stop (its deadline passed or the process is stopping)."""
    deadline = _current.get()
    return _stopping.is_set() if deadline is None else deadline.expired()


def stop_all() -> None:
    """Expire every deadline now and from now on (a server that is shutting down)."""
    _stopping.set()
