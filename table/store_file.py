"""The session database file: checked before it is opened for writing, watched while it is in use.

A file is opened for writing only once it is known to be a healthy trpg-arena session database this
process may write: not empty, an SQLite file, undamaged (``PRAGMA quick_check``), of the store's
format, writable, in a writable folder (SQLite writes its ``-wal`` and ``-shm`` journals beside it).
The check reads the file read-only, as ``immutable`` when no journal lies beside it, so a file that
is refused is left exactly as it was and nothing is created next to it.

While in use, the connection turns SQLite's "damaged" and "read-only" failures into `StoreUnusable`
and, after one, writes nothing more: a damaged file is never made worse.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from trpg_arena.rules import TrpgArenaError

SQLITE_HEADER = b"SQLite format 3\x00"
LEFT_AS_IT_WAS = "it was left untouched"
# SQLite's primary result codes (the low byte of an extended code)
_DAMAGED = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}


class StoreError(TrpgArenaError, ValueError):
    """A session database that cannot be used (corrupt, foreign, or a session id it does not hold)."""


class StoreUnusable(StoreError):
    """A database file that must not be used at all: empty, foreign, damaged, or one this process cannot write."""


def writable(path: Path) -> bool:
    """Whether `path` may be written: permitted, and not marked read-only (even for root, who may write anyway)."""
    try:
        return os.access(path, os.W_OK) and bool(path.stat().st_mode & 0o222)
    except OSError:
        return False


def check_file(path: Path, expected_format: str, tables: Mapping[str, set[str]] | None = None) -> bool:
    """Check `path` before it is opened for writing; True when it is absent (a new database is to be made).

    Raises `StoreUnusable`, one line naming the file, for a file that must not be used; `tables` are the
    columns each table must have (a table dropped or a column renamed by hand is damage too).
    """
    if path.is_dir():
        raise StoreUnusable(f"{path}: a folder, not a session database file")
    if not path.exists():
        folder = _existing_ancestor(path.parent)
        if not writable(folder):
            raise StoreUnusable(f"{path}: cannot be created, the folder {folder} is read-only")
        return True
    if not path.is_file():  # reading a named pipe would wait for a writer for ever
        raise StoreUnusable(f"{path}: not a regular file (a pipe, a socket or a device), not a session database")
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as e:
        raise StoreUnusable(f"{path}: cannot be read ({e.strerror})") from None
    if not head:
        raise StoreUnusable(f"{path}: an empty file (0 bytes), not a session database; {LEFT_AS_IT_WAS} "
                            "(delete it to start a new database there)")
    if head != SQLITE_HEADER:
        raise StoreUnusable(f"{path}: not a trpg-arena session database (not an SQLite file); {LEFT_AS_IT_WAS}")
    _check_contents(path, expected_format, tables or {})
    if not writable(path):
        raise StoreUnusable(f"{path}: the file is read-only, and sessions are written after every decision; "
                            f"{LEFT_AS_IT_WAS} (make it writable, or use a copy)")
    if not writable(path.parent):
        raise StoreUnusable(f"{path}: its folder {path.parent} is read-only, and SQLite writes its journal files "
                            f"beside the database; {LEFT_AS_IT_WAS} (move it to a writable folder)")
    return False


def _existing_ancestor(folder: Path) -> Path:
    """`folder`, or the nearest folder above it that exists (the one a new database's folders are made in)."""
    folder = folder.absolute()
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    return folder


def _check_contents(path: Path, expected_format: str, tables: Mapping[str, set[str]]) -> None:
    """Integrity and format, read without writing anything: `immutable` unless a journal holds recent writes."""
    journal = Path(f"{path}-wal").exists() and writable(path.parent)
    uri = f"file:{quote(str(path.absolute()))}?{'mode=ro' if journal else 'immutable=1'}"
    try:
        db = sqlite3.connect(uri, uri=True)
        try:
            problems = [row[0] for row in db.execute("PRAGMA quick_check(3)")]
            if problems != ["ok"]:
                raise StoreUnusable(f"{path}: the database is damaged ({'; '.join(problems)}); {LEFT_AS_IT_WAS} "
                                    "(restore it from a backup)")
            names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            fmt = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() if "meta" in names else None
            if fmt is not None and fmt[0] == expected_format:
                _check_tables(path, db, tables)
        finally:
            db.close()
    except sqlite3.DatabaseError as e:
        code = _primary(e)
        what = "the database is damaged" if code in _DAMAGED else "cannot be checked"
        raise StoreUnusable(f"{path}: {what} ({e}); {LEFT_AS_IT_WAS}") from None
    family = expected_format.partition("/")[0]
    if fmt is not None and fmt[0] != expected_format and str(fmt[0]).partition("/")[0] == family:
        raise StoreUnusable(f"{path}: a session database of another version of trpg-arena (format {fmt[0]}; this "
                            f"version reads {expected_format}); {LEFT_AS_IT_WAS}")
    if fmt is None or fmt[0] != expected_format:
        raise StoreUnusable(f"{path}: an SQLite file but not a trpg-arena session database "
                            f"(expected format {expected_format}); {LEFT_AS_IT_WAS}")


def _check_tables(path: Path, db: sqlite3.Connection, tables: Mapping[str, set[str]]) -> None:
    """Every table and column the store reads is there; a file edited by hand may lack one."""
    for table, columns in tables.items():
        have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
        if have >= columns:
            continue
        what = f"lacks {', '.join(sorted(columns - have))}" if have else "is missing"
        raise StoreUnusable(f"{path}: the session database is damaged (its table '{table}' {what}); {LEFT_AS_IT_WAS} "
                            "(restore it from a backup)")


def _primary(error: sqlite3.Error) -> int | None:
    code = getattr(error, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


class WatchedConnection:
    """An SQLite connection that refuses to go on writing a file found damaged or read-only while in use.

    Every other failure (a busy file, a broken constraint) reaches the caller unchanged.
    """

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self._db = db
        self._path = path
        self.unusable: str | None = None  # why the file is no longer written, once it is not

    def execute(self, sql: str, parameters: Any = ()) -> WatchedCursor:
        """`sqlite3.Connection.execute`; `StoreUnusable` for a write after the file was found unusable."""
        if self.unusable is not None and not _reads_only(sql):
            raise StoreUnusable(self.unusable)
        with self.watch():
            return WatchedCursor(self._db.execute(sql, parameters), self)

    @contextmanager
    def watch(self) -> Iterator[None]:
        """Turn SQLite's "damaged" and "read-only" failures into `StoreUnusable`, and remember them."""
        try:
            yield
        except sqlite3.DatabaseError as e:
            code = _primary(e)
            if code in _DAMAGED:
                self.unusable = f"{self._path}: the database is damaged ({e}); nothing more is written to it"
            elif code == sqlite3.SQLITE_READONLY:
                self.unusable = f"{self._path}: the file has become read-only ({e}); nothing more is written to it"
            else:
                raise
            raise StoreUnusable(self.unusable) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


class WatchedCursor:
    """A cursor whose rows are read under its connection's watch (a damaged page is found while stepping)."""

    def __init__(self, cursor: sqlite3.Cursor, connection: WatchedConnection) -> None:
        self._cursor = cursor
        self._connection = connection

    def fetchone(self) -> Any:
        """The next row, or None."""
        with self._connection.watch():
            return self._cursor.fetchone()

    def fetchall(self) -> list[Any]:
        """The remaining rows."""
        with self._connection.watch():
            return self._cursor.fetchall()

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


def _reads_only(sql: str) -> bool:
    return sql.lstrip().upper().startswith(("SELECT", "ROLLBACK"))
