"""The embedded session store: many sessions in one SQLite file, appended to after every decision.

WAL mode with one small transaction per decision: a process killed at any moment loses at most the
decision in flight. A session is its setup row, a checkpoint (a full combat snapshot) now and then,
and one row per decision (the action, the faces typed by hand, the agents' states after it). Undone
decisions are kept, marked, never deleted. A file that is empty, not a trpg-arena store, damaged or
read-only is refused (`StoreUnusable`, see `store_file`) before anything is written to it or beside it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trpg_arena.agents.store_file import StoreError, StoreUnusable, WatchedConnection, check_file

__all__ = ["SessionRow", "SessionStore", "StoreError", "StoreUnusable"]

STORE_FORMAT = "trpg-arena-sessions/1"
SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL,
    ruleset TEXT NOT NULL, encounter TEXT NOT NULL, setup TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'running', result TEXT, decisions INTEGER NOT NULL DEFAULT 0);
CREATE TABLE checkpoints (
    session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, n INTEGER NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (session, n));
CREATE TABLE decisions (
    session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, seq INTEGER NOT NULL, n INTEGER NOT NULL,
    live INTEGER NOT NULL DEFAULT 1, data TEXT NOT NULL, PRIMARY KEY (session, seq));
CREATE INDEX decisions_live ON decisions (session, live, n);
"""


@dataclass(frozen=True)
class SessionRow:
    """A stored session's summary."""

    id: str
    name: str
    created: float
    updated: float
    ruleset: str
    encounter: str
    status: str
    result: str | None
    decisions: int

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return dict(self.__dict__)


class SessionStore:
    """Sessions in one SQLite file (created if missing; a foreign or corrupt file is refused untouched)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        fresh = check_file(self.path, STORE_FORMAT)  # refused files are left exactly as they were
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = WatchedConnection(sqlite3.connect(self.path, check_same_thread=False, isolation_level=None),
                                         self.path)
            self._db.execute("PRAGMA foreign_keys = ON")
            if fresh:
                self._db.execute("PRAGMA journal_mode = WAL")
                self._db.execute("BEGIN")
                for statement in _statements(SCHEMA):
                    self._db.execute(statement)
                self._db.execute("INSERT INTO meta VALUES ('format', ?)", (STORE_FORMAT,))
                self._db.execute("COMMIT")
            else:
                row = self._db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
                if row is None or row[0] != STORE_FORMAT:
                    raise StoreError(f"{self.path}: not a trpg-arena session database "
                                     f"(format {row[0] if row else 'missing'}; expected {STORE_FORMAT})")
                self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: durable across a process crash
        except (sqlite3.DatabaseError, OSError) as e:
            raise StoreUnusable(f"{self.path}: not a usable trpg-arena session database ({e})") from None

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._db.close()

    # --- writing --------------------------------------------------------------------------------
    def _write(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                for sql, args in statements:
                    self._db.execute(sql, args)
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def create(self, name: str, ruleset: str, encounter: str, setup: dict[str, Any],
               checkpoint: dict[str, Any]) -> str:
        """Store a new session (its setup and the checkpoint at decision 0); returns its id."""
        sid = uuid.uuid4().hex[:12]
        now = time.time()
        self._write([
            ("INSERT INTO sessions (id, name, created, updated, ruleset, encounter, setup) VALUES (?,?,?,?,?,?,?)",
             (sid, name, now, now, ruleset, encounter, json.dumps(setup))),
            ("INSERT INTO checkpoints VALUES (?, 0, ?)", (sid, json.dumps(checkpoint))),
        ])
        return sid

    def append(self, sid: str, n: int, record: dict[str, Any], *, status: str, result: str | None,
               checkpoint: dict[str, Any] | None = None) -> None:
        """Append decision `n` (and optionally a checkpoint after it) in one transaction."""
        with self._lock:
            seq = self._db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM decisions WHERE session = ?",
                                   (sid,)).fetchone()[0]
            writes: list[tuple[str, tuple[Any, ...]]] = [
                ("INSERT INTO decisions (session, seq, n, data) VALUES (?,?,?,?)", (sid, seq, n, json.dumps(record))),
                ("UPDATE sessions SET updated = ?, status = ?, result = ?, decisions = ? WHERE id = ?",
                 (time.time(), status, result, n + 1, sid)),
            ]
            if checkpoint is not None:
                writes.append(("INSERT OR REPLACE INTO checkpoints VALUES (?,?,?)",
                               (sid, n + 1, json.dumps(checkpoint))))
            self._write(writes)

    def undo_to(self, sid: str, n: int, *, status: str, result: str | None) -> None:
        """Mark every live decision from index `n` on as undone (kept, not deleted) and drop later checkpoints."""
        self._write([
            ("UPDATE decisions SET live = 0 WHERE session = ? AND n >= ? AND live = 1", (sid, n)),
            ("DELETE FROM checkpoints WHERE session = ? AND n > ?", (sid, n)),
            ("UPDATE sessions SET updated = ?, status = ?, result = ?, decisions = ? WHERE id = ?",
             (time.time(), status, result, n, sid)),
        ])

    def update_setup(self, sid: str, setup: dict[str, Any]) -> None:
        """Replace a session's setup (seats, dice mode), e.g. after the GM switches a seat to hand-rolled dice."""
        self._write([("UPDATE sessions SET setup = ?, updated = ? WHERE id = ?", (json.dumps(setup), time.time(),
                                                                                sid))])

    def delete(self, sid: str) -> None:
        """Delete a session and everything stored for it."""
        self.get(sid)
        self._write([("DELETE FROM decisions WHERE session = ?", (sid,)),
                     ("DELETE FROM checkpoints WHERE session = ?", (sid,)),
                     ("DELETE FROM sessions WHERE id = ?", (sid,))])

    # --- reading --------------------------------------------------------------------------------
    def sessions(self) -> list[SessionRow]:
        """Every stored session, most recently updated first."""
        with self._lock:
            rows = self._db.execute("SELECT id, name, created, updated, ruleset, encounter, status, result, "
                                    "decisions FROM sessions ORDER BY updated DESC").fetchall()
        return [SessionRow(*r) for r in rows]

    def get(self, sid: str) -> SessionRow:
        """One session's summary; `StoreError` naming the known ids if it is not stored."""
        for row in self.sessions():
            if row.id == sid:
                return row
        known = ", ".join(r.id for r in self.sessions()[:10]) or "none"
        raise StoreError(f"{self.path}: no session '{sid}' (stored: {known})")

    def setup(self, sid: str) -> dict[str, Any]:
        """A session's setup (encounter, seed, seats)."""
        self.get(sid)
        with self._lock:
            row = self._db.execute("SELECT setup FROM sessions WHERE id = ?", (sid,)).fetchone()
        return _loads(row[0], self.path, f"session {sid} setup")

    def history(self, sid: str) -> list[dict[str, Any]]:
        """The live decisions of a session, in order."""
        with self._lock:
            rows = self._db.execute("SELECT n, data FROM decisions WHERE session = ? AND live = 1 ORDER BY n",
                                    (sid,)).fetchall()
        out = []
        for i, (n, data) in enumerate(rows):
            if n != i:
                raise StoreError(f"{self.path}: session {sid} has a gap in its decisions at {i}")
            out.append(_loads(data, self.path, f"session {sid} decision {n}"))
        return out

    def checkpoint(self, sid: str, at_most: int) -> tuple[int, dict[str, Any]]:
        """The latest checkpoint at or before decision `at_most`."""
        with self._lock:
            row = self._db.execute("SELECT n, data FROM checkpoints WHERE session = ? AND n <= ? ORDER BY n DESC "
                                   "LIMIT 1", (sid, at_most)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: session {sid} has no checkpoint")
        return int(row[0]), _loads(row[1], self.path, f"session {sid} checkpoint {row[0]}")


def _loads(text: str, path: Path, what: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, json.JSONDecodeError) as e:
        raise StoreError(f"{path}: {what} is corrupt ({e})") from None


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
