"""The sessions a server holds: loaded from the store on first use, one lock each, and their watchers.

Requests on one session are serialized by its lock (a request reads and changes the session as a
whole); different sessions run side by side. Every event a session emits is numbered and pushed, in
order, to every WebSocket watching it: the event is queued on the watcher's event loop while the
session's lock is held, so no watcher can see two events in another order.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from trpg_arena.agents.session import Session
from trpg_arena.agents.store import SessionRow, SessionStore
from trpg_arena.rules import TrpgArenaError

WATCHER_QUEUE = 10_000  # events a watcher may fall behind before it is cut off (it reconnects and reloads)


class UnknownSession(TrpgArenaError, LookupError):
    """A session id the store does not hold (or that was just deleted)."""


class Watcher:
    """One WebSocket's queue of session events, fed from any thread onto its event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(WATCHER_QUEUE)
        self.closed = False

    def push(self, message: dict[str, Any] | None) -> None:
        """Queue a message (None ends the stream); a watcher too far behind is ended instead."""
        try:
            self.loop.call_soon_threadsafe(self._put, message)
        except RuntimeError:  # its event loop is gone: the socket has closed
            self.closed = True

    def _put(self, message: dict[str, Any] | None) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:  # too far behind: drop what waits and end the stream
            self.closed = True
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(None)


@dataclass
class Entry:
    """A session held by the server: the `Session` (loaded on first use), its lock, name and watchers."""

    id: str
    name: str
    session: Session | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)
    watchers: list[Watcher] = field(default_factory=list)
    seq: int = 0  # events pushed so far
    deleted: bool = False

    def publish(self, message: dict[str, Any]) -> None:
        """Number a message and queue it for every watcher (call with the lock held)."""
        self.seq += 1
        numbered = {"seq": self.seq, "session": self.id, **message}
        for w in list(self.watchers):
            w.push(numbered)
            if w.closed:
                self.watchers.remove(w)


class SessionHub:
    """Sessions of one store, with a lock per session (see the module docstring)."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self._entries: dict[str, Entry] = {}
        self._lock = threading.Lock()

    def add(self, session: Session, name: str) -> Entry:
        """Hold a session just created in the store."""
        assert session.id is not None
        entry = Entry(session.id, name, session)
        session.subscribe(lambda m: entry.publish(_public(m)))
        with self._lock:
            self._entries[session.id] = entry
        return entry

    @contextmanager
    def use(self, sid: str) -> Iterator[Entry]:
        """The session `sid` under its lock (loaded from the store if needed); `UnknownSession` if not stored."""
        entry = self._entry(sid)
        with entry.lock:
            if entry.deleted:
                raise UnknownSession(f"no session '{sid}' (it was deleted)")
            if entry.session is None:
                session = Session.load(self.store, sid)
                session.subscribe(lambda m: entry.publish(_public(m)))
                entry.session = session
            yield entry

    def _entry(self, sid: str) -> Entry:
        with self._lock:
            entry = self._entries.get(sid)
            if entry is not None:
                return entry
        row = self.row(sid)
        with self._lock:
            return self._entries.setdefault(sid, Entry(sid, row.name))

    def row(self, sid: str) -> SessionRow:
        """A stored session's summary; `UnknownSession` listing a few known ids if it is not stored."""
        rows = self.store.sessions()
        for row in rows:
            if row.id == sid:
                return row
        known = ", ".join(r.id for r in rows[:10]) or "none"
        raise UnknownSession(f"no session '{sid}' (stored: {known})")

    def sessions(self) -> list[SessionRow]:
        """Every stored session, most recently updated first (those started elsewhere included)."""
        return self.store.sessions()

    def delete(self, sid: str) -> None:
        """Delete a session from the store; its watchers are told and disconnected."""
        with self.use(sid) as entry:
            self.store.delete(sid)
            entry.deleted = True
            entry.publish({"type": "deleted"})
            for w in entry.watchers:
                w.push(None)
            entry.watchers.clear()
        with self._lock:
            self._entries.pop(sid, None)

    def watch(self, entry: Entry, loop: asyncio.AbstractEventLoop) -> Watcher:
        """A new watcher of `entry` (call with its lock held, so it sees every event after the current one)."""
        watcher = Watcher(loop)
        entry.watchers.append(watcher)
        return watcher

    def unwatch(self, sid: str, watcher: Watcher) -> None:
        """Stop feeding a watcher (its socket closed)."""
        watcher.closed = True
        with self._lock:
            entry = self._entries.get(sid)
        if entry is not None:
            with entry.lock:
                if watcher in entry.watchers:
                    entry.watchers.remove(watcher)


def _public(message: dict[str, Any]) -> dict[str, Any]:
    """A session event without the agents' saved states (internal and possibly large)."""
    record = message.get("record")
    if record is None:
        return message
    return {**message, "record": public_record(record)}


def public_record(record: dict[str, Any]) -> dict[str, Any]:
    """A decision record as clients see it: everything but the agents' saved states."""
    return {k: v for k, v in record.items() if k != "agents"}
