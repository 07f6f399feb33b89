"""Real servers on 127.0.0.1 for the tests that need one: in a thread (browser) or as ``trpg-arena serve``."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx
import uvicorn

from trpg_arena.server import ServerConfig, create_app


@contextmanager
def live_server(db: Path, **config: object) -> Iterator[str]:
    """Serve a fresh application on a free loopback port in a thread; yields its base URL."""
    app = create_app(ServerConfig(db=db, **config))  # type: ignore[arg-type]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", ws="websockets-sansio"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def served(db: Path, *args: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``trpg-arena serve`` in a subprocess on a free loopback port; yields its base URL and the process."""
    port = free_port()
    cmd = [sys.executable, "-m", "trpg_arena.experiments.cli", "serve", "--port", str(port), "--db", str(db), *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited: {proc.stderr.read() if proc.stderr else ''}")
            try:
                # ready as soon as it answers: a route that loads no rule system, so nothing is warmed up
                # before the test's first requests (they meet the server exactly as a user's would)
                if httpx.get(f"{base}/api/sessions", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not answer within 60 s") from None
                time.sleep(0.1)
        yield base, proc
    finally:
        proc.terminate()
        proc.wait(30)
