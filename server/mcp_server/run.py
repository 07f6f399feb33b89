"""Serving the MCP server: over stdio (what desktop hosts launch) or streamable HTTP (behind `serve`'s guards).

Both open the session database that ``autopilot`` and ``serve`` use, through the same `SessionHub`,
so a session started here is seen (and playable) there and the other way round. Over HTTP the rules
of `serve` apply: 127.0.0.1 by default, and any other address only with a token (``Authorization:
Bearer``), checked by the same `TokenGate`; a loopback server accepts only loopback ``Host`` headers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trpg_arena.server.config import ServerConfig
from trpg_arena.server.hub import SessionHub
from trpg_arena.server.mcp_server.app import build_server
from trpg_arena.server.mcp_server.table import Table
from trpg_arena.server.security import HostGuard, TokenGate
from trpg_arena.table.store import SessionStore

MCP_PATH = "/mcp"  # the streamable HTTP endpoint


def serve_stdio(db: Path) -> None:
    """Serve MCP on stdin/stdout until the host closes them."""
    store = SessionStore(db)
    try:
        build_server(Table(SessionHub(store))).run("stdio")
    finally:
        store.close()


def http_app(config: ServerConfig, store: SessionStore) -> Any:
    """The streamable HTTP application at `MCP_PATH`, behind the host and token guards of `config`."""
    server = build_server(Table(SessionHub(store)))
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=config.host)
    return HostGuard(TokenGate(app, token=config.token), trusted=config.trusted_hosts)


def serve_http(config: ServerConfig) -> None:
    """Serve MCP over streamable HTTP on `config`'s address until SIGINT or SIGTERM."""
    from trpg_arena.server.run import serve_app

    store = SessionStore(config.db)
    try:
        serve_app(http_app(config, store), config.host, config.port)
    finally:
        store.close()
