"""Every refusal as a 4xx JSON body saying what and where: ``{"error": kind, "message": line, "where": field}``.

Engine and session errors keep their one-line messages (the same the CLI prints); pydantic's are
reduced to the first problem with its location, the rest listed under ``details``.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from trpg_arena.agents.spec import UnknownAgentError
from trpg_arena.rules import EncounterError, IllegalActionError, InvalidActionError, TrpgArenaError
from trpg_arena.rules.core.edits import EditError
from trpg_arena.rules.core.errors import DiceEntryError, SnapshotError
from trpg_arena.server.encounters import SeatNotAllowed
from trpg_arena.server.hub import SessionBusy, UnknownSession
from trpg_arena.server.replay import ReplayError
from trpg_arena.server.revision import RevisionError, StaleRequest
from trpg_arena.server.work import AgentBusy
from trpg_arena.table.session import SessionError, TacticsError
from trpg_arena.table.store import SessionMissing, StoreBusy, StoreError, StoreUnusable

log = logging.getLogger("trpg_arena.server")

# most specific first: the first class an error is an instance of gives its status
STATUS: tuple[tuple[type[Exception], int, str], ...] = (
    (UnknownSession, 404, "unknown_session"),
    (SessionMissing, 404, "unknown_session"),  # deleted by another process while a change was being stored
    (SeatNotAllowed, 422, "seat_not_allowed"),  # a valid agent that loads files on the server: not over HTTP
    (EncounterError, 422, "invalid_encounter"),
    (UnknownAgentError, 422, "unknown_agent"),
    (DiceEntryError, 422, "invalid_dice"),
    (EditError, 422, "invalid_edit"),
    (InvalidActionError, 422, "invalid_action"),
    (ReplayError, 422, "invalid_log"),
    (RevisionError, 422, "invalid_revision"),
    (StaleRequest, 409, "stale_revision"),
    (IllegalActionError, 409, "illegal_action"),
    (TacticsError, 422, "invalid_tactics"),
    (SessionError, 409, "not_now"),
    (AgentBusy, 503, "agent_busy"),
    (SessionBusy, 503, "session_busy"),
    (StoreBusy, 503, "busy"),
    (StoreUnusable, 503, "store_unusable"),  # the database became damaged or read-only: nothing more is written
    (StoreError, 409, "unrestorable"),  # a stored session that no longer holds together (edited or damaged)
    (SnapshotError, 409, "unrestorable"),
)

RETRY_AFTER_S = 1  # what a 503 (the database busy with another program's write) asks the client to wait

ERROR_SCHEMA = {"type": "object", "required": ["error", "message"],
                "properties": {"error": {"type": "string"}, "message": {"type": "string"},
                               "where": {"type": ["string", "null"]}, "details": {"type": "array"}}}


def error_body(kind: str, message: str, where: str | None = None, details: list[Any] | None = None) -> dict[str, Any]:
    """The API's error document."""
    body: dict[str, Any] = {"error": kind, "message": message}
    if where is not None:
        body["where"] = where
    if details:
        body["details"] = details
    return body


def _where(loc: tuple[Any, ...] | list[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out or "body"


def install(app: FastAPI) -> None:
    """Register the handlers that turn every error into its JSON refusal."""

    @app.exception_handler(TrpgArenaError)
    async def engine_error(_request: Request, exc: TrpgArenaError) -> JSONResponse:
        status, kind = next(((status, kind) for cls, status, kind in STATUS if isinstance(exc, cls)),
                            (422, "invalid_request"))
        if status >= 500 or kind == "unrestorable":
            log.error("server-side failure: %s", exc)
        where = (getattr(exc, "path", None) if isinstance(exc, EncounterError)
                 else exc.where if isinstance(exc, EditError) else None)
        body = error_body(kind, str(exc), where)
        if isinstance(exc, StaleRequest):
            body["state"] = exc.state  # the session now: decide again on this
        # busy: another program holds the database; nothing was changed and a retry in a moment goes through
        headers = {"retry-after": str(RETRY_AFTER_S)} if isinstance(exc, StoreBusy) else None
        return JSONResponse(body, status_code=status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [{"where": _where(e.get("loc", ())), "message": str(e.get("msg", ""))} for e in exc.errors()]
        first = problems[0] if problems else {"where": "body", "message": "invalid request"}
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return JSONResponse(error_body("invalid_request", f"{first['where']}: {first['message']}{more}",
                                       first["where"], problems), status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, exc: HTTPException) -> JSONResponse:
        kind = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http")
        return JSONResponse(error_body(kind, str(exc.detail)), status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error")
        return JSONResponse(error_body("internal", f"{type(exc).__name__}: {exc}"), status_code=500)


class Unexpected:
    """An ASGI middleware that answers an unexpected error with a 500 JSON body and keeps the connection.

    Starlette's own last-resort handler answers, then raises the error on to the server, which closes
    the client's kept-alive connection; here the error is logged and ends with the answer.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Handle one connection (see the class docstring)."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Any) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception as exc:
            log.exception("unexpected error")
            if started:  # half an answer is out: only closing the connection can tell the client
                raise
            response = JSONResponse(error_body("internal", f"{type(exc).__name__}: {exc}"), status_code=500)
            await response(scope, receive, send)
