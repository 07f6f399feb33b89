"""`trpg-arena mcp` stopped by SIGTERM (how a service manager or `kill` stops it): the database is closed first.

Python's default SIGTERM killed the HTTP server after uvicorn had shut down, before the database was
closed: the file alone held no tables, every session only in its ``-wal``. Over stdio the server waited for
the host's next line before it could stop.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from tests.mcp.client import CLI
from tests.mcp.http import http_caller
from tests.server.live import free_port


def sessions_in_the_file_alone(db: Path, folder: Path) -> int:
    """How many sessions `db` holds without the journal files beside it (a copy of the file by itself)."""
    folder.mkdir()
    shutil.copy(db, folder / db.name)
    conn = sqlite3.connect(folder / db.name)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return int(conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]) if "sessions" in tables else 0
    finally:
        conn.close()


def test_mcp_http_stopped_by_sigterm_closes_its_database_and_exits_0(tmp_path: Path) -> None:
    db, port = tmp_path / "m.db", free_port()
    proc = subprocess.Popen([CLI, "mcp", "--http", "--port", str(port), "--db", str(db)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and "MCP (streamable HTTP)" in proc.stdout.readline()

        async def start() -> None:
            async with http_caller(f"http://127.0.0.1:{port}/mcp") as c:
                await c.call("start_session", encounter="moonlit/duel", seed=4, npc="review:scripted")

        for _ in range(100):  # the address is printed just before uvicorn listens
            try:
                asyncio.run(start())
                break
            except Exception:  # noqa: BLE001 - not listening yet
                time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.db"]  # closed: no journal left beside it
    assert sessions_in_the_file_alone(db, tmp_path / "copy") == 1


def test_mcp_over_stdio_stopped_by_sigterm_closes_its_database_at_once(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    proc = subprocess.Popen([CLI, "mcp", "--db", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict[str, object]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        proc.stdin.flush()

    try:
        send({"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                          "clientInfo": {"name": "t", "version": "1"}}})
        assert json.loads(proc.stdout.readline())["id"] == 1
        send({"method": "notifications/initialized"})
        send({"id": 2, "method": "tools/call",
              "params": {"name": "start_session", "arguments": {"encounter": "moonlit/duel", "seed": 4}}})
        assert "session" in json.loads(proc.stdout.readline())["result"]["content"][0]["text"]
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)  # stdin stays open: the host did not hang up
        proc.wait(20)
        took = time.monotonic() - started
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == 0 and took < 10
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.db"]
    assert sessions_in_the_file_alone(db, tmp_path / "copy") == 1
    assert os.path.getsize(db) > 4096
