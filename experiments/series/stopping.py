"""SIGTERM stops a long run like Ctrl-C, so what it played so far is kept and said.

Background jobs (``nohup ... &`` from a script, a CI step's timeout) start with SIGINT ignored and are
stopped with SIGTERM, whose default kills the process before it can write or say anything. Inside
`sigterm_interrupts` the main thread raises `KeyboardInterrupt` on SIGTERM instead; workers forked
from it get the default action back, so `Pool.terminate` never waits on one.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_FORK_HOOK: list[bool] = []


def _stop(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _default_sigterm_in_child() -> None:
    """In a forked pool worker: SIGTERM kills at once again (`Pool.terminate` relies on it).

    A Python-level handler only runs between bytecodes, so a worker blocked in an uninterruptible
    lock wait would never act on it and `terminate` would wait for it forever.
    """
    if signal.getsignal(signal.SIGTERM) is _stop:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Within the block, SIGTERM raises `KeyboardInterrupt` in the main thread (elsewhere: no change)."""
    if threading.current_thread() is not threading.main_thread():  # signal handlers are the main thread's
        yield
        return
    if not _FORK_HOOK:
        os.register_at_fork(after_in_child=_default_sigterm_in_child)
        _FORK_HOOK.append(True)
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
