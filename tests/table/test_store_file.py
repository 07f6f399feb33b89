"""Damaged, empty and read-only session databases: refused in one line naming the file, never written to.

Refusing a file leaves it byte for byte as it was and creates nothing beside it (no ``-wal``,
``-shm`` or ``-journal``): through the store, the terminal autopilot, ``serve``, and a server whose
file is damaged while it runs.
"""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from trpg_arena.server import ServerConfig, create_app
from trpg_arena.server.config import LOOPBACK_NAMES
from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore, StoreError, StoreUnusable

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def stored(db: Path, count: int = 2) -> list[str]:
    """`count` sessions of six decisions each, stored in `db` (closed again: everything is in the main file)."""
    store = SessionStore(db)
    ids = []
    for seed in range(count):
        s = Session("moonlit/duel", seed=seed, pc="scripted", npc="scripted", store=store)
        s.run(max_decisions=6)
        ids.append(s.id)
    store.close()
    assert sorted(p.name for p in db.parent.iterdir()) == [db.name]
    return ids


def damage_page_of(db: Path, text: bytes) -> None:
    """Overwrite the first 16 bytes (the b-tree page header) of the last page holding `text`: a damaged data page."""
    data = bytearray(db.read_bytes())
    (page_size,) = sqlite3.connect(f"file:{db}?immutable=1", uri=True).execute("PRAGMA page_size").fetchone()
    at = data.rfind(text)
    assert at > page_size, "the text is on a data page, not the first"
    start = at // page_size * page_size
    data[start:start + 16] = b"\xff" * 16
    db.write_bytes(bytes(data))


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file of `folder` with its sha256: equal before and after means untouched, nothing created."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[list[Path]]:
    """Paths to make read-only; made writable again afterwards so the temporary folder can be removed."""
    paths: list[Path] = []
    yield paths
    for p in paths:
        p.chmod(0o755)


def test_a_damaged_data_page_is_refused_untouched(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    stored(db)
    damage_page_of(db, b'"n": 5')
    before = fingerprint(tmp_path)
    with pytest.raises(StoreUnusable) as e:
        SessionStore(db)
    assert str(db) in str(e.value) and "damaged" in str(e.value) and "\n" not in str(e.value)
    assert fingerprint(tmp_path) == before


def test_an_empty_file_is_an_error_not_a_new_database(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    db.touch()
    with pytest.raises(StoreUnusable, match="empty file"):
        SessionStore(db)
    assert fingerprint(tmp_path) == {"s.db": hashlib.sha256(b"").hexdigest()}


def test_a_read_only_file_or_folder_is_called_read_only_not_corrupt(tmp_path: Path, read_only: list[Path]) -> None:
    db = tmp_path / "s.db"
    stored(db, count=1)
    db.chmod(0o444)
    read_only.append(db)
    before = fingerprint(tmp_path)
    with pytest.raises(StoreUnusable, match="the file is read-only"):
        SessionStore(db)
    assert fingerprint(tmp_path) == before
    db.chmod(0o644)
    folder = tmp_path / "shelf"
    folder.mkdir()
    (folder / "s.db").write_bytes(db.read_bytes())
    folder.chmod(0o555)
    read_only.append(folder)
    before = fingerprint(folder)
    with pytest.raises(StoreUnusable, match="folder .* is read-only") as e:
        SessionStore(folder / "s.db")
    assert "corrupt" not in str(e.value) and "damaged" not in str(e.value)
    with pytest.raises(StoreUnusable, match="cannot be created"):
        SessionStore(folder / "new" / "s.db")
    assert fingerprint(folder) == before


def _one_line_refusal(result: subprocess.CompletedProcess[str], db: Path, words: str) -> None:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0, result.stderr
    assert str(db) in " ".join(result.stderr.split()) and words in result.stderr, result.stderr


@pytest.mark.parametrize("command", [("autopilot", "--resume"), ("autopilot", "moonlit/duel"),
                                     ("serve", "--port", "0")])
def test_the_terminal_and_serve_refuse_a_damaged_file_in_one_line(tmp_path: Path, command: tuple[str, ...]) -> None:
    db = tmp_path / "s.db"
    stored(db)
    damage_page_of(db, b'"n": 5')
    before = fingerprint(tmp_path)
    r = subprocess.run([*CLI, *command, "--db", str(db)], capture_output=True, text=True, input="q\n", timeout=120,
                       env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})
    _one_line_refusal(r, db, "damaged")
    assert fingerprint(tmp_path) == before


def test_the_terminal_refuses_a_read_only_or_empty_file_in_one_line(tmp_path: Path, read_only: list[Path]) -> None:
    db = tmp_path / "s.db"
    stored(db, count=1)
    db.chmod(0o444)
    read_only.append(db)
    empty = tmp_path / "empty.db"
    empty.touch()
    before = fingerprint(tmp_path)
    for path, words in ((db, "read-only"), (empty, "empty file")):
        r = subprocess.run([*CLI, "autopilot", "--resume", "--db", str(path)], capture_output=True, text=True,
                           input="q\n", timeout=120, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})
        _one_line_refusal(r, path, words)
    assert fingerprint(tmp_path) == before


def test_a_file_damaged_while_the_server_runs_is_a_503_and_never_written(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    healthy, damaged = stored(db)
    config = ServerConfig(db=db, trusted_hosts=(*LOOPBACK_NAMES, "testserver"))
    with TestClient(create_app(config), base_url="http://127.0.0.1") as client:
        assert client.get(f"/api/sessions/{healthy}").status_code == 200
        damage_page_of(db, b'"n": 5')  # a page of the other session's decisions, not read yet
        before = fingerprint(tmp_path)
        r = client.get(f"/api/sessions/{damaged}")
        assert r.status_code == 503 and r.json()["error"] == "store_unusable", r.text
        assert str(db) in r.json()["message"] and "damaged" in r.json()["message"]
        for method, path, body in (("post", "/api/sessions", {"encounter": "moonlit/duel"}),
                                   ("post", f"/api/sessions/{healthy}/run", {}),
                                   ("delete", f"/api/sessions/{healthy}", None)):
            r = client.request(method, path, json=body)
            assert r.status_code == 503 and r.json()["error"] == "store_unusable", (path, r.text)
        assert fingerprint(tmp_path) == before
    with pytest.raises(StoreError, match="damaged"):
        SessionStore(db)
