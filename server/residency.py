"""Which sessions a server keeps loaded: the ones in play; the rest come back from the store when asked for.

A loaded session holds its whole combat (state, event log, agents), so a server that kept every
session it ever served would only grow (hundreds of finished skirmishes took gigabytes). A session
leaves memory once it is over and nobody watches it, once it has been idle for `IDLE_S`, or when more
than `MAX_LOADED` are loaded (the least recently used first). A session a page watches, or whose
action waits for dice typed at the table (held in memory only), stays. The session's small `Entry`
(its lock, name and event count) stays too, so two requests never hold two locks for one session;
the next request loads the session again from the store, exactly as it was.

Memory Python frees stays with the process unless the allocator hands it back: after unloading, glibc's
`malloc_trim` returns the freed pages to the system (at most every `GIVE_BACK_S`), so the server's
resident size falls again after a burst of sessions instead of staying at its peak.
"""

from __future__ import annotations

import ctypes
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trpg_arena.server.hub import Entry

MAX_LOADED = 64  # sessions in memory at once (a table plays a few; a load test or a VTT many)
IDLE_S = 600.0  # seconds without a request after which a session is unloaded
GIVE_BACK_S = 1.0  # at most this often is freed memory handed back to the system (a trim takes milliseconds)


def _malloc_trim() -> Callable[[], object] | None:
    """The C library's ``malloc_trim(0)`` (glibc: give freed heap pages back to the system), or None without it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim  # absent from musl: AttributeError
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: trim(0)


MALLOC_TRIM = _malloc_trim()


class Residency:
    """The loaded sessions of a hub, least recently used first, and the rule for unloading them."""

    def __init__(self, max_loaded: int = MAX_LOADED, idle_s: float = IDLE_S) -> None:
        self.max_loaded = max_loaded
        self.idle_s = idle_s
        self._recent: OrderedDict[str, Entry] = OrderedDict()
        self._lock = threading.Lock()
        self._freed = False  # sessions were unloaded since memory was last handed back
        self._given_back = 0.0

    def used(self, entry: Entry) -> None:
        """A request has just used `entry` (call with its lock held): a finished, unwatched session leaves now."""
        entry.used = time.monotonic()
        with self._lock:
            self._recent[entry.id] = entry
            self._recent.move_to_end(entry.id)
        session = entry.session
        if session is not None and session.combat.over and self._may_unload(entry):
            self.unload(entry)

    def trim(self) -> None:
        """Unload the finished and idle sessions and those beyond `max_loaded` (whose lock is free right now).

        Called after every request and by the hub's poller a few times a second, so a session played to
        the end inside the request that created it leaves memory moments later.
        """
        now = time.monotonic()
        with self._lock:
            oldest_first = list(self._recent.values())
        excess = len(oldest_first) - self.max_loaded
        for entry in oldest_first:
            session = entry.session
            if session is not None and not (excess > 0 or session.combat.over or now - entry.used >= self.idle_s):
                continue
            if not entry.lock.acquire(blocking=False):
                continue  # in use by a request: it stays
            try:
                if entry.session is None or self._may_unload(entry):
                    self.unload(entry)  # (a session deleted meanwhile is only forgotten)
                    excess -= 1
            finally:
                entry.lock.release()
        self._give_back(now)

    def unload(self, entry: Entry) -> None:
        """Drop the loaded session of `entry` (call with its lock held); the store still has all of it."""
        entry.session = None
        with self._lock:
            self._recent.pop(entry.id, None)
            self._freed = True

    def _give_back(self, now: float) -> None:
        """Hand the memory of unloaded sessions back to the system, at most every `GIVE_BACK_S`."""
        with self._lock:
            if MALLOC_TRIM is None or not self._freed or now - self._given_back < GIVE_BACK_S:
                return
            self._freed = False
            self._given_back = now
        MALLOC_TRIM()

    def __len__(self) -> int:
        with self._lock:
            return len(self._recent)

    @staticmethod
    def _may_unload(entry: Entry) -> bool:
        session = entry.session
        return session is not None and not entry.watchers and session.dice_asked is None
