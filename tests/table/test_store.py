"""The session store: one file, many sessions; foreign or corrupt files are refused and left untouched."""

from __future__ import annotations

import sqlite3

import pytest

from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore, StoreError


def test_many_sessions_in_one_file_listed_resumed_and_deleted(tmp_path) -> None:
    store = SessionStore(tmp_path / "table.db")
    a = Session("moonlit/duel", seed=1, pc="scripted", npc="scripted", store=store, name="first")
    b = Session("kiai/duel", seed=2, pc="scripted", npc="scripted", store=store, name="second")
    a.run(max_decisions=5)
    b.run()
    rows = {r.id: r for r in store.sessions()}
    assert rows[a.id].decisions == 5 and rows[a.id].status == "running" and rows[a.id].name == "first"
    assert rows[b.id].status == "over" and rows[b.id].result == b.combat.result
    assert store.sessions()[0].id == b.id  # most recently updated first
    store.delete(a.id)
    assert [r.id for r in store.sessions()] == [b.id]
    with pytest.raises(StoreError, match="no session"):
        Session.load(store, a.id)


def test_the_file_is_in_wal_mode(tmp_path) -> None:
    SessionStore(tmp_path / "t.db")
    assert sqlite3.connect(tmp_path / "t.db").execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@pytest.mark.parametrize("content", [b"garbage\n", b'{"format": "x"}', b"SQLite format 3\x00" + b"\x01" * 200])
def test_foreign_and_corrupt_files_are_refused_untouched(tmp_path, content: bytes) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(content)
    with pytest.raises(StoreError) as e:
        SessionStore(path)
    assert str(path) in str(e.value)
    assert path.read_bytes() == content


def test_another_programs_sqlite_database_is_refused_untouched(tmp_path) -> None:
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE contacts (name TEXT)")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a trpg-arena session database"):
        SessionStore(path)
    assert path.read_bytes() == before


def test_a_hand_edited_decision_is_a_clear_error(tmp_path) -> None:
    store = SessionStore(tmp_path / "s.db")
    s = Session("moonlit/duel", seed=1, pc="scripted", npc="scripted", store=store)
    s.run(max_decisions=3)
    db = sqlite3.connect(tmp_path / "s.db")
    db.execute("UPDATE decisions SET data = '{\"action\": 5}' WHERE n = 1")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match=s.id):
        Session.load(SessionStore(tmp_path / "s.db"), s.id)
