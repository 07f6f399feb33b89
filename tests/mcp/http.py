"""`trpg-arena mcp --http` in a subprocess, and the SDK's streamable HTTP client of it."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import httpx2 as httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.mcp.client import CLI, Caller
from tests.server.live import free_port


@contextmanager
def mcp_http(db: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[tuple[str, str]]:
    """``trpg-arena mcp --http`` on a free port until the block ends; yields its MCP URL and its first line."""
    port = free_port()
    proc = subprocess.Popen([CLI, "mcp", "--http", "--port", str(port), "--db", str(db), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "COLUMNS": "200", **(env or {})})
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # printed once the address is known, before serving
        url = f"http://127.0.0.1:{port}/mcp"
        for _ in range(600):
            if proc.poll() is not None:
                raise RuntimeError(f"the MCP server exited: {proc.stderr.read() if proc.stderr else ''}")
            try:
                httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url, first
    finally:
        proc.terminate()
        proc.wait(30)


@asynccontextmanager
async def http_caller(url: str, token: str | None = None) -> AsyncIterator[Caller]:
    """An initialized client of the MCP server at `url` (sending `token` as a bearer token)."""
    headers = {"authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as client, \
            streamable_http_client(url, http_client=client) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield Caller(session)
