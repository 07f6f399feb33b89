"""The embedded session store: many sessions in one SQLite file, appended to after every decision.

WAL mode with one small transaction per decision: a process killed at any moment loses at most the
decision in flight. Each change is also copied from the WAL into the file itself (a passive checkpoint,
about a millisecond), so the file alone holds every session: copied, or renamed while in use. A session
is its setup row, a checkpoint (a full combat snapshot) now and then, and one row per decision (the
action, the faces typed by hand, the agents' states after it). Undone decisions are kept, marked, never
deleted. A file that is empty, not a trpg-arena store, damaged or read-only is refused (`StoreUnusable`,
see `store_file`) before anything is written to it or beside it.

Several processes may share one file (the terminal and the server, two servers). Every session has a
*head*: its `revision`, raised by every stored change, and its live decision count. Each write checks
the head it was computed from in the same transaction and is refused with `StoreConflict` when another
process changed the session first (its copy is behind: reload it); a unique index refuses a second live
row for one decision number whatever happens. A write the file cannot take now (another connection
holds it) is `StoreBusy`: nothing was written.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trpg_arena.table.store_file import StoreError, StoreUnusable, WatchedConnection, check_file

STORE_FORMAT = "trpg-arena-sessions/1"
SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL,
    ruleset TEXT NOT NULL, encounter TEXT NOT NULL, setup TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'running', result TEXT, decisions INTEGER NOT NULL DEFAULT 0,
    revision INTEGER NOT NULL DEFAULT 0);
CREATE TABLE checkpoints (
    session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, n INTEGER NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (session, n));
CREATE TABLE decisions (
    session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, seq INTEGER NOT NULL, n INTEGER NOT NULL,
    live INTEGER NOT NULL DEFAULT 1, data TEXT NOT NULL, PRIMARY KEY (session, seq));
CREATE INDEX decisions_live ON decisions (session, live, n);
CREATE UNIQUE INDEX decisions_one_live ON decisions (session, n) WHERE live = 1;
"""
# what files written before sessions had a head lack; added when such a file is opened (its data untouched)
UPGRADES = (
    ("revision", "ALTER TABLE sessions ADD COLUMN revision INTEGER NOT NULL DEFAULT 0"),
    ("decisions_one_live", "CREATE UNIQUE INDEX decisions_one_live ON decisions (session, n) WHERE live = 1"),
)
BUSY_TIMEOUT = 5.0  # seconds a write waits for another connection's transaction before `StoreBusy`


class StoreBusy(StoreError):
    """The file is held by another connection's write for longer than the wait: nothing was written; retry."""


class StoreConflict(StoreError):
    """A write computed from an older head of the session than the stored one: another process changed it."""

    def __init__(self, message: str, *, revision: int) -> None:
        super().__init__(message)
        self.revision = revision  # the stored head's


class SessionMissing(StoreError, LookupError):
    """A session id the file does not hold (never stored, or deleted, perhaps by another process)."""


@dataclass(frozen=True)
class Head:
    """Where a stored session stands: its revision (raised by every change) and its live decision count."""

    revision: int
    decisions: int


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
    revision: int

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return dict(self.__dict__)


class SessionStore:
    """Sessions in one SQLite file (created if missing; a foreign or corrupt file is refused untouched)."""

    def __init__(self, path: str | Path, *, busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        fresh = check_file(self.path, STORE_FORMAT, REQUIRED)  # refused files are left exactly as they were
        self._gone: str | None = None  # why the path no longer names the file opened, once it does not
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._connection = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                               timeout=busy_timeout)
            self._db = WatchedConnection(self._connection, self.path)
            self._identity = _identity(self.path)  # the file opened, checked before every read and write
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
                self._upgrade()
            self._db.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: durable across a process crash
        except (sqlite3.DatabaseError, OSError) as e:
            raise StoreUnusable(f"{self.path}: not a usable trpg-arena session database ({e})") from None

    def _check_same_file(self) -> None:
        """Before a read or a write: the path still names the file opened; if not, it is refused from then on.

        A file removed, renamed or replaced (another file put at its path) is no longer the session database.

        SQLite reads and writes on through its open handle whatever the path names now: every decision stored
        after that would be lost when the process stops (a file removed, or renamed: SQLite leaves its last
        changes in the WAL under the old name), another process would start a new file there, and reads would
        show sessions no other program can open. Every change already stored is in the file itself (see
        `_checkpoint`), under whatever name it has now.
        """
        if self._gone is None:
            try:
                now: tuple[int, int] | None = _identity(self.path)
            except OSError:
                now = None
            if now == self._identity:
                return
            what = "removed or renamed" if now is None else "replaced"
            self._gone = (f"{self.path}: the session database file was {what} while in use; nothing more is read "
                          "from it or written to it (open the file that is there now)")
            self._db.unusable = self._gone
        raise StoreUnusable(self._gone)

    def check_writable(self) -> None:
        """Raise `StoreUnusable` once the file is found damaged, read-only, removed or replaced: no change starts."""
        if self._db.unusable is not None:
            raise StoreUnusable(self._db.unusable)
        with self._lock:
            self._check_same_file()

    def _upgrade(self) -> None:
        """Add what a file of an older version lacks (see `UPGRADES`); its sessions and decisions are untouched."""
        have = {r[1] for r in self._db.execute("PRAGMA table_info(sessions)")}
        have |= {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        for name, statement in UPGRADES:
            if name in have:
                continue
            try:
                self._write([(statement, ())])
            except StoreError as e:
                if not isinstance(e.__cause__, sqlite3.IntegrityError):
                    raise
                # an older version already stored one decision twice: the index cannot be built, and the
                # head each write checks still keeps new writes in order (that session fails to load alone)

    def close(self) -> None:
        """Close the file, every change in it (SQLite leaves a renamed file's last changes in its WAL otherwise)."""
        with self._lock:
            self._checkpoint()
            self._db.close()

    def _checkpoint(self) -> None:
        """Copy the changes the WAL holds into the file itself, as far as no reader needs them (never waits).

        A file renamed while in use is then whole without its WAL, which SQLite leaves under the old name; so
        it is still done for a file gone from its path, never for one found damaged or read-only.
        """
        if self._db.unusable is not None and self._gone is None:
            return
        try:
            self._connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error:  # a busy file: the WAL keeps the changes until the next one
            pass

    # --- writing --------------------------------------------------------------------------------
    @contextmanager
    def _transaction(self) -> Iterator[WatchedConnection]:
        """One write transaction (taken at once: no other writer can slip in between its reads and writes).

        All or nothing: any failure rolls it back; a file held too long by another connection is `StoreBusy`.
        """
        with self._lock:
            self._check_same_file()
            try:
                self._db.execute("BEGIN IMMEDIATE")
                yield self._db
                self._db.execute("COMMIT")
                self._checkpoint()
            except BaseException as e:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                if isinstance(e, sqlite3.OperationalError) and ("locked" in str(e) or "busy" in str(e)):
                    raise StoreBusy(f"{self.path}: the session database is busy (another program is writing to "
                                    "it); nothing was changed, try again") from e
                if isinstance(e, sqlite3.Error):
                    raise StoreError(f"{self.path}: the change could not be stored ({e}); nothing was "
                                     "changed") from e
                raise

    def _write(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        with self._transaction() as db:
            for sql, args in statements:
                db.execute(sql, args)

    def _advance(self, db: WatchedConnection, sid: str, revision: int | None, decisions: int | None = None) -> int:
        """Check the session's head inside a write transaction; returns the next revision.

        `revision` (when given) must be the stored one, and `decisions` the live count: otherwise another
        process changed the session since this copy read it, and `StoreConflict` refuses the write.
        """
        row = db.execute("SELECT revision, decisions FROM sessions WHERE id = ?", (sid,)).fetchone()
        if row is None:
            raise SessionMissing(f"{self.path}: no session '{sid}' (deleted?)")
        stored, count = int(row[0]), int(row[1])
        if (revision is not None and revision != stored) or (decisions is not None and decisions != count):
            raise StoreConflict(f"{self.path}: session {sid} was changed elsewhere (now revision {stored}, {count} "
                                f"decisions; this copy had revision {revision}, {decisions} decisions)",
                                revision=stored)
        return stored + 1

    def create(self, name: str, ruleset: str, encounter: str, setup: dict[str, Any],
               checkpoint: dict[str, Any]) -> str:
        """Store a new session (its setup and the checkpoint at decision 0, revision 0); returns its id."""
        sid = uuid.uuid4().hex[:12]
        now = time.time()
        self._write([
            ("INSERT INTO sessions (id, name, created, updated, ruleset, encounter, setup) VALUES (?,?,?,?,?,?,?)",
             (sid, name, now, now, ruleset, encounter, json.dumps(setup))),
            ("INSERT INTO checkpoints VALUES (?, 0, ?)", (sid, json.dumps(checkpoint))),
        ])
        return sid

    def append(self, sid: str, n: int, record: dict[str, Any], *, status: str, result: str | None,
               checkpoint: dict[str, Any] | None = None, revision: int | None = None) -> int:
        """Append decision `n` (and optionally a checkpoint after it) in one transaction; returns the new revision.

        Refused with `StoreConflict` unless the session holds exactly `n` live decisions (and is at
        `revision`, when given): one writer per decision number, whichever process writes.
        """
        with self._transaction() as db:
            new = self._advance(db, sid, revision, n)
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM decisions WHERE session = ?", (sid,)).fetchone()[0]
            db.execute("INSERT INTO decisions (session, seq, n, data) VALUES (?,?,?,?)",
                       (sid, seq, n, json.dumps(record)))
            db.execute("UPDATE sessions SET updated = ?, status = ?, result = ?, decisions = ?, revision = ? "
                       "WHERE id = ?", (time.time(), status, result, n + 1, new, sid))
            if checkpoint is not None:
                db.execute("INSERT OR REPLACE INTO checkpoints VALUES (?,?,?)", (sid, n + 1, json.dumps(checkpoint)))
        return new

    def undo_to(self, sid: str, n: int, *, status: str, result: str | None, revision: int | None = None) -> int:
        """Mark every live decision from index `n` on as undone (kept, not deleted) and drop later checkpoints.

        Returns the new revision; `StoreConflict` if the session is no longer at `revision` (when given).
        """
        with self._transaction() as db:
            new = self._advance(db, sid, revision)
            db.execute("UPDATE decisions SET live = 0 WHERE session = ? AND n >= ? AND live = 1", (sid, n))
            db.execute("DELETE FROM checkpoints WHERE session = ? AND n > ?", (sid, n))
            db.execute("UPDATE sessions SET updated = ?, status = ?, result = ?, decisions = ?, revision = ? "
                       "WHERE id = ?", (time.time(), status, result, n, new, sid))
        return new

    def update_setup(self, sid: str, setup: dict[str, Any], revision: int | None = None) -> int:
        """Replace a session's setup (seats, dice mode), e.g. after the GM switches a seat to hand-rolled dice.

        Returns the new revision; `StoreConflict` if the session is no longer at `revision` (when given).
        """
        with self._transaction() as db:
            new = self._advance(db, sid, revision)
            db.execute("UPDATE sessions SET setup = ?, updated = ?, revision = ? WHERE id = ?",
                       (json.dumps(setup), time.time(), new, sid))
        return new

    def touch(self, sid: str, revision: int) -> int:
        """Raise the revision for a change held in memory only (dice asked for); `StoreConflict` as above."""
        with self._transaction() as db:
            new = self._advance(db, sid, revision)
            db.execute("UPDATE sessions SET revision = ? WHERE id = ?", (new, sid))
        return new

    def delete(self, sid: str) -> None:
        """Delete a session and everything stored for it."""
        self.get(sid)
        self._write([("DELETE FROM decisions WHERE session = ?", (sid,)),
                     ("DELETE FROM checkpoints WHERE session = ?", (sid,)),
                     ("DELETE FROM sessions WHERE id = ?", (sid,))])

    # --- reading --------------------------------------------------------------------------------
    @contextmanager
    def _file(self) -> Iterator[WatchedConnection]:
        """The connection for reads, the path checked to still name the file opened (`StoreUnusable` if not)."""
        with self._lock:
            self._check_same_file()
            yield self._db

    def sessions(self) -> list[SessionRow]:
        """Every stored session, most recently updated first."""
        with self._file():
            rows = self._db.execute("SELECT id, name, created, updated, ruleset, encounter, status, result, "
                                    "decisions, revision FROM sessions ORDER BY updated DESC").fetchall()
        return [SessionRow(*r) for r in rows]

    def get(self, sid: str) -> SessionRow:
        """One session's summary; `StoreError` naming the known ids if it is not stored."""
        for row in self.sessions():
            if row.id == sid:
                return row
        known = ", ".join(r.id for r in self.sessions()[:10]) or "none"
        raise SessionMissing(f"{self.path}: no session '{sid}' (stored: {known})")

    def head(self, sid: str) -> Head | None:
        """Where session `sid` stands now (one indexed read: cheap enough to ask before every use); None if gone."""
        with self._file():
            row = self._db.execute("SELECT revision, decisions FROM sessions WHERE id = ?", (sid,)).fetchone()
        return Head(int(row[0]), int(row[1])) if row is not None else None

    def revisions(self) -> dict[str, int]:
        """Every stored session's revision (what a watcher polls to notice changes made by other processes)."""
        with self._file():
            return {sid: int(rev) for sid, rev in self._db.execute("SELECT id, revision FROM sessions")}

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Reads that see one state of the file, whatever other processes write meanwhile (a read transaction)."""
        with self._file():
            outer = self._db.in_transaction
            if not outer:
                self._db.execute("BEGIN")
            try:
                yield
            finally:
                if not outer and self._db.in_transaction:
                    self._db.execute("COMMIT")

    def setup(self, sid: str) -> dict[str, Any]:
        """A session's setup (encounter, seed, seats); `SessionMissing` naming the known ids if it is not stored."""
        with self._file():
            row = self._db.execute("SELECT setup FROM sessions WHERE id = ?", (sid,)).fetchone()
        if row is None:
            self.get(sid)  # raises, listing the sessions there are
        return _loads(row[0], self.path, f"session {sid} setup")

    def history(self, sid: str) -> list[dict[str, Any]]:
        """The live decisions of a session, in order."""
        with self._file():
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
        with self._file():
            row = self._db.execute("SELECT n, data FROM checkpoints WHERE session = ? AND n <= ? ORDER BY n DESC "
                                   "LIMIT 1", (sid, at_most)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: session {sid} has no checkpoint")
        return int(row[0]), _loads(row[1], self.path, f"session {sid} checkpoint {row[0]}")


def _identity(path: Path) -> tuple[int, int]:
    """Which file a path names now (device and inode): another file put there has another."""
    st = os.stat(path)
    return st.st_dev, st.st_ino


def _columns(schema: str) -> dict[str, set[str]]:
    """Each table of `schema` with its columns (read from SQLite itself, in memory)."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(schema)
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: {r[1] for r in db.execute(f"PRAGMA table_info({t})")} for t in tables}
    finally:
        db.close()


# the tables and columns a file must have to be opened (those `UPGRADES` adds to an older file aside)
REQUIRED = {table: columns - {name for name, statement in UPGRADES if "ADD COLUMN" in statement}
            for table, columns in _columns(SCHEMA).items()}


def _loads(text: str, path: Path, what: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, json.JSONDecodeError) as e:
        raise StoreError(f"{path}: {what} is corrupt ({e})") from None


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
