"""Serving the MCP server: over stdio (what desktop hosts launch) or streamable HTTP (behind `serve`'s guards).

Both open the session database that ``autopilot`` and ``serve`` use, through the same `SessionHub`,
so a session started here is seen (and playable) there and the other way round. Over HTTP the rules
of `serve` apply: 127.0.0.1 by default, and any other address only with a token (``Authorization:
Bearer``), checked by the same `TokenGate`; a loopback server accepts only loopback ``Host`` headers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trpg_arena.server.config import DEFAULT_AGENT_SECONDS, ServerConfig
from trpg_arena.server.hub import SessionHub
from trpg_arena.server.mcp_server.app import build_server
from trpg_arena.server.mcp_server.table import Table
from trpg_arena.server.security import HostGuard, TokenGate, token_hint
from trpg_arena.table.store import SessionStore

MCP_PATH = "/mcp"  # the streamable HTTP endpoint


def serve_stdio(db: Path, agent_seconds: float = DEFAULT_AGENT_SECONDS) -> None:
    """Serve MCP on stdin/stdout until the host closes them or sends SIGTERM, then close the database.

    A call's agent work takes `agent_seconds` at most.
    """
    store = SessionStore(db)
    try:
        server = build_server(Table(SessionHub(store), agent_seconds=agent_seconds))
        _until_done_or_terminated(lambda: server.run("stdio"))
    finally:
        store.close()  # waits for a change being stored to finish


def _until_done_or_terminated(work: Callable[[], None]) -> None:
    """Run `work` on a thread of its own until it returns (its error raised here) or SIGTERM arrives.

    The stdio transport reads stdin on a thread no cancellation reaches: on the main thread, a server told to
    stop would wait for the host's next line before its database could be closed. Here the main thread only
    waits, so the signal ends the wait at once; the work's thread, a daemon, ends with the process.
    """
    from trpg_arena.server.run import until_terminated

    failed: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as e:  # noqa: BLE001 - handed to the main thread, which raises it
            failed.append(e)

    thread = threading.Thread(target=run, name="trpg-arena MCP stdio", daemon=True)
    thread.start()
    with until_terminated():
        thread.join()
    if failed:
        raise failed[0]


def http_app(config: ServerConfig, store: SessionStore) -> Any:
    """The streamable HTTP application at `MCP_PATH`, behind the host and token guards of `config`."""
    server = build_server(Table(SessionHub(store), agent_seconds=config.agent_seconds))
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=config.host)
    hint = token_hint("trpg-arena mcp --http", config.token_generated)
    return HostGuard(TokenGate(app, token=config.token, hint=hint), trusted=config.trusted_hosts)


def serve_http(config: ServerConfig, ready: Callable[[], None] = lambda: None) -> None:
    """Serve MCP over streamable HTTP on `config`'s address until SIGINT or SIGTERM.

    The address and the database are checked first (a port in use, a folder given as the database: one
    line, nothing created or printed); then `ready` is called (the CLI prints the address) and it serves.
    """
    from trpg_arena.server.run import check_listen, serve_app

    check_listen(config.host, config.port)
    store = SessionStore(config.db)
    try:
        application = http_app(config, store)
        ready()
        serve_app(application, config.host, config.port)
    finally:
        store.close()
