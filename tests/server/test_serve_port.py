"""`trpg-arena serve` with its port in use: refused in one line before the database is created.

Before, it printed the table page's address, then uvicorn's raw "ERROR: [Errno 98]", exited 3 and left a
new database file behind.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from tests.server.live import free_port


def test_a_port_in_use_is_refused_in_one_line_before_anything_is_created(tmp_path: Path) -> None:
    port = free_port()
    with socket.create_server(("127.0.0.1", port)):  # another program listens there
        out = subprocess.run([sys.executable, "-m", "trpg_arena.experiments.cli", "serve", "--port", str(port),
                              "--db", str(tmp_path / "new.db")], capture_output=True, text=True, timeout=120,
                             env={"COLUMNS": "300"})
    assert out.returncode == 2 and out.stdout == "", (out.stdout, out.stderr)
    assert out.stderr.strip().splitlines() == [f"error: port {port} is in use (another program listens on "
                                               f"127.0.0.1:{port}): stop it or choose another --port"]
    assert not (tmp_path / "new.db").exists()
