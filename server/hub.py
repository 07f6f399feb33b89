"""The sessions a server holds: loaded from the store on first use, one lock each, and their watchers.

Requests on one session are serialized by its lock (a request reads and changes the session as a
whole); different sessions run side by side. Agents never think under that lock: leaving it, a request starts
the agent work the session needs on the hub's `Thinker` (see `server.thinking`), which takes the lock
only to hand a finished proposal back. Every event a session emits is numbered and pushed, in
order, to every WebSocket watching it: the event is queued on the watcher's event loop while the
session's lock is held, so no watcher can see two events in another order.

Other processes may change the same sessions (the terminal's autopilot, another server on the file):
every use first catches the session up with the store (one cheap read when nothing changed), and
while the hub runs (`start`) a thread polls the store's heads so that watched sessions catch up, and
their watchers hear what happened, within `POLL_INTERVAL_S` even when nobody here sends a request.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from trpg_arena.agents.deadline import current as agent_deadline
from trpg_arena.rules import TrpgArenaError
from trpg_arena.server.residency import Residency
from trpg_arena.server.thinking import Job, Thinker
from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionMissing, SessionRow, SessionStore, StoreUnusable

WATCHER_QUEUE = 10_000  # events a watcher may fall behind before it is cut off (it reconnects and reloads)
POLL_INTERVAL_S = 0.25  # how often watched sessions are compared with the store's heads (changes elsewhere)

log = logging.getLogger("trpg_arena.server")


LOCK_GRACE = 2.0  # seconds past its deadline a request still waits for a session held by another


def _lock_wait() -> float:
    """How long the running request may wait for a session's lock (-1: for ever, outside any deadline)."""
    deadline = agent_deadline()
    remaining = deadline.remaining() if deadline is not None else None
    return -1 if remaining is None else remaining + LOCK_GRACE


class SessionBusy(TrpgArenaError):
    """A session held by other requests' agent work past this request's deadline (503: ask again)."""


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
    used: float = 0.0  # when a request last used it (`time.monotonic`), for `Residency`
    # agent work, computed by the hub's `Thinker` outside the lock (see `server.thinking`)
    job: Job | None = None  # the proposal being computed now
    run_left: int = 0  # agent decisions a run may still take without a person
    run_error: str | None = None  # why the last run stopped early (an agent that cannot play), until reported
    store_failure: StoreUnusable | None = None  # a run found the file unusable (removed, damaged): answered 503
    progress: int = 0  # agent decisions runs have taken (a waiting request sees the run go on)
    quiet: threading.Event = field(default_factory=lambda: _set(threading.Event()))  # set: no agent work

    def publish(self, message: dict[str, Any]) -> None:
        """Number a message and queue it for every watcher (call with the lock held)."""
        self.seq += 1
        numbered = {"seq": self.seq, "session": self.id, **message}
        for w in list(self.watchers):
            w.push(numbered)
            if w.closed:
                self.watchers.remove(w)


def _set(event: threading.Event) -> threading.Event:
    event.set()
    return event


class SessionHub:
    """Sessions of one store, with a lock per session (see the module docstring)."""

    def __init__(self, store: SessionStore, agent_seconds: float | None = None, think_off_lock: bool = False) -> None:
        self.store = store
        # `think_off_lock`: agents think on the thinker's workers, never under a session's lock (the HTTP
        # server); without it a session computes a proposal when asked, under the lock of whoever asks
        self.thinker = Thinker(agent_seconds) if think_off_lock else None
        self._entries: dict[str, Entry] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None
        self.residency = Residency()  # which sessions stay loaded (finished and idle ones leave memory)

    # --- changes made by other processes ----------------------------------------------------------
    def start(self) -> None:
        """Start polling the store for changes other processes make to watched sessions (see the module doc)."""
        if self._poller is None:
            self._stop.clear()
            self._poller = threading.Thread(target=self._poll, name="trpg-arena store poller", daemon=True)
            self._poller.start()

    def stop(self) -> None:
        """Stop polling (at shutdown)."""
        self._stop.set()
        if self.thinker is not None:
            self.thinker.shutdown()
        if self._poller is not None:
            self._poller.join(timeout=5)
            self._poller = None

    def _poll(self) -> None:
        said = ""  # the last failure logged: a file gone for good is said once, not four times a second
        while not self._stop.wait(POLL_INTERVAL_S):
            self.residency.trim()  # idle sessions leave memory even when no request comes
            with self._lock:
                watched = [e for e in self._entries.values() if e.watchers and e.session is not None]
            if not watched:
                continue
            try:
                revisions = self.store.revisions()
            except Exception as e:  # a busy or closing file: try again next time
                if str(e) != said:
                    log.warning("polling the session store: %s", e)
                said = str(e)
                continue
            said = ""
            for entry in watched:
                session = entry.session
                if session is None or revisions.get(entry.id) == session.revision:
                    continue
                if not entry.lock.acquire(blocking=False):
                    continue  # a request holds it: it caught up first; the next poll looks again
                try:
                    if not entry.deleted:
                        self._catch_up(entry)
                except Exception as e:  # a session the file can no longer give: its requests will say why
                    log.warning("session %s: %s", entry.id, e)
                finally:
                    entry.lock.release()

    def _catch_up(self, entry: Entry) -> None:
        """Bring a held session up to the store (call with its lock held); its watchers hear what changed.

        A session deleted elsewhere is dropped: its watchers are told, and `UnknownSession` is raised.
        """
        assert entry.session is not None
        try:
            entry.session.refresh()
        except SessionMissing:
            self._drop(entry)
            raise UnknownSession(f"no session '{entry.id}' (it was deleted)") from None

    def _drop(self, entry: Entry) -> None:
        """Forget a deleted session (lock held): its watchers are told and disconnected."""
        entry.deleted = True
        entry.run_left = 0
        if self.thinker is not None:
            self.thinker.cancel(entry)
        self.residency.unload(entry)
        entry.publish({"type": "deleted"})
        for w in entry.watchers:
            w.push(None)
        entry.watchers.clear()
        with self._lock:
            if self._entries.get(entry.id) is entry:
                del self._entries[entry.id]

    def add(self, session: Session, name: str) -> Entry:
        """Hold a session just created in the store."""
        assert session.id is not None
        entry = Entry(session.id, name, session)
        session.think_here = self.thinker is None
        session.subscribe(lambda m: entry.publish(_public(m)))
        with self._lock:
            self._entries[session.id] = entry
        with entry.lock:
            self.residency.used(entry)
        self.residency.trim()
        return entry

    @contextmanager
    def use(self, sid: str, settle: float = 0.0) -> Iterator[Entry]:
        """The session `sid` under its lock (loaded from the store if needed); `UnknownSession` if not stored.

        Leaving it, agent work the session now needs is started (off the lock). `settle`: first wait up
        to that many seconds (lock not held) for agent work going on to finish, so that a proposal
        computed quickly is shown at once.
        """
        if settle > 0:
            with self.use(sid) as entry:
                pass
            # at most `settle` in all: a run whose decisions keep landing is waited on by the request that
            # started it (`settle` with its own deadline), never by a reader passing by
            self.settle(entry, settle, time.monotonic() + settle)
        entry = self._entry(sid)
        # a request waits for the session at most until its own deadline (plus a grace): requests piling
        # up behind agent work are answered 503 instead of holding every worker thread of the server
        if not entry.lock.acquire(timeout=_lock_wait()):
            raise SessionBusy(f"session '{sid}' is busy with agent work; ask again in a few seconds")
        try:
            if entry.deleted:
                raise UnknownSession(f"no session '{sid}' (it was deleted)")
            if entry.session is None:
                try:
                    session = Session.load(self.store, sid)
                except SessionMissing:
                    self._drop(entry)
                    raise UnknownSession(f"no session '{sid}' (it was deleted)") from None
                session.think_here = self.thinker is None
                session.subscribe(lambda m: entry.publish(_public(m)))
                entry.session = session
                # left while a routine answer's dice were asked (memory only): answered again, the dice asked
                # again, as the terminal does; the question is never put to a person
                session.settle_routine()
            else:
                self._catch_up(entry)  # another process may have changed it since
            try:
                yield entry
            finally:
                if entry.job is not None:
                    entry.job.shown = True  # this request may have answered "thinking"
                self._advance(entry)
                self.residency.used(entry)
        finally:
            entry.lock.release()
        self.residency.trim()

    def settle(self, entry: Entry, seconds: float, until: float | None = None) -> None:
        """Wait for the agent work of `entry` (lock not held; see `Thinker.settle`); at once without a thinker."""
        if self.thinker is not None:
            self.thinker.settle(entry, seconds, until)

    def _advance(self, entry: Entry) -> None:
        if self.thinker is None:
            return
        try:
            self.thinker.advance(entry)
        except Exception:  # the request's own answer stands; the session's next use says what is wrong
            log.exception("session %s: starting its agents' work", entry.id)

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
        shown = sid if len(sid) <= 64 else f"{sid[:64]}..."  # ids are at most 64 characters: never echo a long one
        raise UnknownSession(f"no session '{shown}' (stored: {known})")

    def sessions(self) -> list[SessionRow]:
        """Every stored session, most recently updated first (those started elsewhere included)."""
        return self.store.sessions()

    def delete(self, sid: str, revision: int | None = None) -> None:
        """Delete a session from the store (only if at `revision`, when given); its watchers are told."""
        with self.use(sid) as entry:
            assert entry.session is not None
            entry.session.expect(revision)
            self.store.delete(sid)
            self._drop(entry)

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
