"""A store whose file is renamed while in use: refused for reads as for writes, and the file alone is whole.

Each change is copied from the WAL into the file at once, so a file renamed (or copied) while a process holds
it has every session in it, even if that process is killed before it closes the file.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore, StoreUnusable


def decisions_in_the_file_alone(db: Path, copy: Path) -> int:
    shutil.copy(db, copy)  # the file by itself, no journal beside it
    conn = sqlite3.connect(copy)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM decisions").fetchone()[0])
    finally:
        conn.close()


def test_every_change_is_in_the_file_itself_while_the_store_is_open(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db")
    s = Session("moonlit/duel", seed=1, pc="scripted", npc="scripted", store=store)
    s.run(max_decisions=5)
    assert decisions_in_the_file_alone(tmp_path / "s.db", tmp_path / "copy.db") == 5
    store.close()


def test_a_renamed_file_is_refused_for_reads_and_keeps_what_was_stored(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db")
    s = Session("moonlit/duel", seed=1, pc="scripted", npc="scripted", store=store)
    s.run(max_decisions=4)
    (tmp_path / "s.db").rename(tmp_path / "moved.db")
    for read in (store.sessions, store.revisions, lambda: store.head(str(s.id)), lambda: store.history(str(s.id))):
        with pytest.raises(StoreUnusable, match="s.db: the session database file was removed or renamed while in"):
            read()
    with pytest.raises(StoreUnusable, match="removed or renamed"):
        s.run(max_decisions=1)
    assert decisions_in_the_file_alone(tmp_path / "moved.db", tmp_path / "copy.db") == 4
    store.close()
    assert decisions_in_the_file_alone(tmp_path / "moved.db", tmp_path / "copy2.db") == 4
