"""Session databases changed behind the store's back: refused in words before anything is written.

- The file removed or replaced while a server runs: SQLite wrote on to the removed file (its open handle kept
  it), the server answered 200, and every decision after it was lost when the server stopped.
- A table dropped or a column renamed by hand: the file opened, then the first read was a traceback or a 500.
- A session database of another version, or a named pipe given as ``--db``.
- Stored values that restore but break later (an encounter's source that is no text, an RNG word out of its
  range): refused when the session is loaded, so no request stores a decision and then answers 500.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.table.test_store_file import CLI, fingerprint, stored
from trpg_arena.server import ServerConfig, create_app
from trpg_arena.server.config import LOOPBACK_NAMES
from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore, StoreError, StoreUnusable


def client_for(db: Path) -> TestClient:
    return TestClient(create_app(ServerConfig(db=db, trusted_hosts=(*LOOPBACK_NAMES, "testserver"))),
                      base_url="http://127.0.0.1")


@pytest.mark.parametrize("how", ["removed", "replaced"])
def test_a_file_removed_or_replaced_under_the_server_is_a_503_and_nothing_is_lost(tmp_path: Path, how: str) -> None:
    db = tmp_path / "s.db"
    (sid, _) = stored(db)
    with client_for(db) as client:
        state = client.get(f"/api/sessions/{sid}").json()
        for p in tmp_path.glob("s.db*"):
            p.unlink()
        if how == "replaced":
            stored(db, count=1)  # another program makes a new database there
        before = fingerprint(tmp_path)
        r = client.post(f"/api/sessions/{sid}/run", json={"revision": state["revision"]})
        assert r.status_code == 503 and r.json()["error"] == "store_unusable", r.text
        assert ("was removed or renamed while in use" if how == "removed" else "was replaced while in use") in (
            r.json()["message"])
        r = client.post("/api/sessions", json={"encounter": "moonlit/duel"})
        assert r.status_code == 503, r.text
        assert fingerprint(tmp_path) == before  # nothing written to what is there now


def test_a_store_refuses_to_write_once_its_file_is_gone(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = SessionStore(db)
    s = Session("moonlit/duel", seed=1, pc="scripted", npc="scripted", store=store)
    s.run(max_decisions=2)
    kept = len(s.records)
    db.rename(tmp_path / "moved.db")
    with pytest.raises(StoreUnusable, match="removed or renamed while in use"):
        s.run(max_decisions=2)
    assert len(s.records) == kept  # the decision that could not be stored was not taken


@pytest.mark.parametrize("edit, words", [
    ("DROP TABLE checkpoints", "its table 'checkpoints' is missing"),
    ("ALTER TABLE decisions RENAME COLUMN live TO alive", "its table 'decisions' lacks live"),
    ("ALTER TABLE sessions DROP COLUMN result", "its table 'sessions' lacks result"),
])
def test_a_table_or_column_edited_away_is_refused_at_open(tmp_path: Path, edit: str, words: str) -> None:
    db = tmp_path / "s.db"
    stored(db, count=1)
    with sqlite3.connect(db) as conn:
        conn.execute(edit)
    conn.close()
    before = fingerprint(tmp_path)
    with pytest.raises(StoreUnusable, match=words):
        SessionStore(db)
    r = subprocess.run([*CLI, "autopilot", "--list", "--db", str(db)], capture_output=True, text=True, timeout=120,
                       env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})
    assert r.returncode == 2 and "Traceback" not in r.stderr and words in " ".join(r.stderr.split()), r.stderr
    assert fingerprint(tmp_path) == before


def test_another_versions_database_says_so(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    stored(db, count=1)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = 'trpg-arena-sessions/2' WHERE key = 'format'")
    conn.close()
    with pytest.raises(StoreUnusable, match="another version of trpg-arena .format trpg-arena-sessions/2"):
        SessionStore(db)


def test_a_named_pipe_is_refused_not_waited_on(tmp_path: Path) -> None:
    pipe = tmp_path / "s.db"
    os.mkfifo(pipe)
    r = subprocess.run([*CLI, "autopilot", "--list", "--db", str(pipe)], capture_output=True, text=True, timeout=60,
                       env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})
    assert r.returncode == 2 and "not a regular file" in r.stderr and "Traceback" not in r.stderr, r.stderr


@pytest.mark.parametrize("table, path, value", [
    ("checkpoints", "$.combat.source", 5),
    ("decisions", "$.agents.npc.rng.state.inc", -1),
    ("decisions", "$.agents.npc.rng.has_uint32", 1e30),
])
def test_a_stored_value_that_would_break_later_is_refused_at_load(tmp_path: Path, table: str, path: str,
                                                                  value: object) -> None:
    db = tmp_path / "s.db"
    (sid,) = stored(db, count=1)
    with sqlite3.connect(db) as conn:
        conn.execute(f"UPDATE {table} SET data = json_set(data, ?, json(?))", (path, json.dumps(value)))
    conn.close()
    with pytest.raises(StoreError, match=f"session {sid} cannot be restored"):
        Session.load(SessionStore(db), sid)
    with client_for(db) as client:
        decisions = client.get("/api/sessions").json()
        r = client.post(f"/api/sessions/{sid}/run", json={})
        assert r.status_code == 409 and r.json()["error"] == "unrestorable", r.text
        assert client.get("/api/sessions").json() == decisions  # nothing stored
    assert sys.executable
