"""`trpg-arena mcp --http` checks its port and its database before it prints an address or creates a file.

Before, it printed "MCP (streamable HTTP): http://..." and then failed on a folder given as ``--db``, and
with its port in use it printed the address, then uvicorn's raw "[Errno 98]", and left a new database behind.
"""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

from tests.mcp.client import CLI
from tests.server.live import free_port


def mcp_http(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, "mcp", "--http", *args], capture_output=True, text=True, timeout=120,
                          env={"COLUMNS": "300"})


def test_a_port_in_use_is_refused_in_one_line_before_anything_is_created(tmp_path: Path) -> None:
    port = free_port()
    with socket.create_server(("127.0.0.1", port)):  # another program listens there
        out = mcp_http("--port", str(port), "--db", str(tmp_path / "new.db"))
    assert out.returncode == 2 and out.stdout == "", (out.stdout, out.stderr)
    assert out.stderr.strip().splitlines() == [f"error: port {port} is in use (another program listens on "
                                               f"127.0.0.1:{port}): stop it or choose another --port"]
    assert not (tmp_path / "new.db").exists()


def test_a_folder_as_the_database_is_refused_before_the_address_is_printed(tmp_path: Path) -> None:
    (tmp_path / "adir").mkdir()
    out = mcp_http("--port", str(free_port()), "--db", str(tmp_path / "adir"))
    assert out.returncode == 2 and out.stdout == "", (out.stdout, out.stderr)
    assert out.stderr.strip().splitlines() == [f"error: {tmp_path / 'adir'}: a folder, not a session database file"]
