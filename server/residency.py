"""Which sessions a server keeps loaded: the ones in play; the rest come back from the store when asked for.

A loaded session holds its whole combat (state, event log, agents), so a server that kept every
session it ever served would only grow (hundreds of finished skirmishes took gigabytes). A session
leaves memory once it is over and nobody watches it, once it has been idle for `IDLE_S`, or when more
than `MAX_LOADED` are loaded (the least recently used first). A session a page watches, or whose
action waits for dice typed at the table (held in memory only), stays. The session's small `Entry`
(its lock, name and event count) stays too, so two requests never hold two locks for one session;
the next request loads the session again from the store, exactly as it was.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trpg_arena.server.hub import Entry

MAX_LOADED = 64  # sessions in memory at once (a table plays a few; a load test or a VTT many)
IDLE_S = 600.0  # seconds without a request after which a session is unloaded


class Residency:
    """The loaded sessions of a hub, least recently used first, and the rule for unloading them."""

    def __init__(self, max_loaded: int = MAX_LOADED, idle_s: float = IDLE_S) -> None:
        self.max_loaded = max_loaded
        self.idle_s = idle_s
        self._recent: OrderedDict[str, Entry] = OrderedDict()
        self._lock = threading.Lock()

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

    def unload(self, entry: Entry) -> None:
        """Drop the loaded session of `entry` (call with its lock held); the store still has all of it."""
        entry.session = None
        with self._lock:
            self._recent.pop(entry.id, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._recent)

    @staticmethod
    def _may_unload(entry: Entry) -> bool:
        session = entry.session
        return session is not None and not entry.watchers and session.dice_asked is None
