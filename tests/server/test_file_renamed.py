"""The session database renamed (or moved) while `trpg-arena serve` runs on it.

SQLite went on reading the renamed file through its open handle (GET answered 200 from a path that named
nothing), and at close it left the last changes in the ``-wal`` under the old name: the renamed file held no
tables, and a server started again at the old name began empty. Now every request answers 503
``store_unusable``, and the file holds every change whatever its name.
"""

from __future__ import annotations

import signal
from pathlib import Path

import httpx2 as httpx

from tests.mcp.test_stopped import sessions_in_the_file_alone
from tests.server.live import served


def test_a_database_renamed_under_the_server_is_503_and_keeps_every_session(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    with served(db) as (base, proc):
        r = httpx.post(f"{base}/api/sessions", json={"encounter": "moonlit/duel", "seed": 4}, timeout=60)
        assert r.status_code == 201, r.text
        sid = r.json()["state"]["id"]
        db.rename(tmp_path / "moved.db")
        for url in ("/api/sessions", f"/api/sessions/{sid}"):
            r = httpx.get(base + url, timeout=30)
            assert r.status_code == 503 and r.json()["error"] == "store_unusable", r.text
            assert "was removed or renamed while in use" in r.json()["message"]
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        assert proc.returncode == 0
    assert sessions_in_the_file_alone(tmp_path / "moved.db", tmp_path / "copy") == 1
