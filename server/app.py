"""`create_app`: the FastAPI application (API, WebSocket, the table page) with its gatekeepers in front."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.middleware import Middleware

from trpg_arena.server import api, errors, ws
from trpg_arena.server.config import ServerConfig
from trpg_arena.server.hub import SessionHub
from trpg_arena.server.idempotency import IdempotencyKeys
from trpg_arena.server.revision import document_headers
from trpg_arena.server.security import AllowListCORS, BodyLimit, HostGuard, OriginGuard, TokenGate, token_hint
from trpg_arena.server.work import AgentDeadline
from trpg_arena.table.store import SessionStore

STATIC = Path(__file__).parent / "static"

DESCRIPTION = """The rules engines of trpg-arena as a service: create a combat session from a built-in or
uploaded encounter, read the open decision and its legal actions (with the sentence a GM reads),
let agents propose and confirm or override them, enter dice rolled at the table, undo, replay.

Watch a session's events on the WebSocket `/api/sessions/{id}/events`. With a token, send
`Authorization: Bearer <token>` (a WebSocket may pass `?token=`)."""


def create_app(config: ServerConfig | None = None, store: SessionStore | None = None) -> FastAPI:
    """The application for `config`; `store` (default: opened from ``config.db``) holds its sessions."""
    config = config or ServerConfig()
    owned = store is None
    store = store if store is not None else SessionStore(config.db)

    hub = SessionHub(store, config.agent_seconds, think_off_lock=True)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        hub.start()  # watched sessions follow changes other processes store (the terminal, another server)
        yield
        hub.stop()
        if owned:  # a store handed in belongs to the caller, who may serve it again
            store.close()

    # outermost first: preflights are answered (and CORS headers added to refusals) before any guard refuses
    middleware = [
        # CORS for the allowed origins only, Private-Network-Access preflights included (a hosted VTT page
        # calling a server on the GM's machine)
        Middleware(AllowListCORS, allow_origins=list(config.allow_origins), allow_methods=["*"],
                   allow_headers=["authorization", "content-type", "if-match", "idempotency-key"],
                   expose_headers=["etag", "retry-after", "idempotent-replayed"], allow_private_network=True,
                   max_age=600),
        Middleware(HostGuard, trusted=config.trusted_hosts),
        Middleware(OriginGuard, allow_origins=config.allow_origins),
        Middleware(TokenGate, token=config.token, hint=token_hint("trpg-arena serve", config.token_generated)),
        Middleware(BodyLimit, limit=config.max_body),
        Middleware(AgentDeadline, seconds=config.agent_seconds),
        Middleware(IdempotencyKeys),  # only requests every guard let through are carried out and kept
        Middleware(errors.Unexpected),  # innermost: an unexpected error answers 500 and keeps the connection
    ]
    # the docs page's scripts are served from the package: a table without internet still has /docs
    app = FastAPIOffline(title="trpg-arena", version="1", description=DESCRIPTION, middleware=middleware,
                         lifespan=lifespan)
    app.state.config = config
    app.state.hub = hub
    errors.install(app)
    app.include_router(api.router)
    app.include_router(ws.router)
    _document_change_headers(app)

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _document_change_headers(app: FastAPI) -> None:
    """The schema (``/openapi.json``, ``/docs``) names the headers every change may carry."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = document_headers(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to customise the schema
