"""Every refusal as a 4xx JSON body saying what and where: ``{"error": kind, "message": line, "where": field}``.

Engine and session errors keep their one-line messages (the same the CLI prints); pydantic's are said
in plain words at the field as the request names it (``changes.hp: a whole number is needed``): the first
problem is the message, every one is listed under ``details``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from trpg_arena.agents.spec import UnknownAgentError
from trpg_arena.rules import EncounterError, IllegalActionError, InvalidActionError, TrpgArenaError
from trpg_arena.rules.core.edits import EditError
from trpg_arena.rules.core.errors import DiceEntryError, SnapshotError
from trpg_arena.server.encounters import SeatNotAllowed, UnknownSeatAgent
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


def _where(loc: Sequence[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out or "body"


NOT_JSON = "is not JSON this API can read"  # one wording for a body that cannot be read: invalid, not UTF-8, too deep
# pydantic's words for a refused value, as a person reads them (formatted with the error's ``ctx``)
PLAIN = {"missing": "is missing", "extra_forbidden": "is not a field of this request",
         "int_type": "a whole number is needed", "int_from_float": "a whole number is needed",
         "int_parsing": "a whole number is needed", "float_type": "a number is needed",
         "bool_type": "true or false is needed", "string_type": "text is needed", "list_type": "a list is needed",
         "dict_type": "an object is needed", "model_type": "an object is needed",
         "model_attributes_type": "a JSON object is needed", "json_invalid": NOT_JSON,
         "string_too_short": "at least {min_length} characters are needed",
         "string_too_long": "at most {max_length} characters are allowed",
         "too_short": "at least {min_length} items are needed", "too_long": "at most {max_length} items are allowed",
         "greater_than_equal": "must be at least {ge}", "greater_than": "must be more than {gt}",
         "less_than_equal": "must be at most {le}", "less_than": "must be less than {lt}",
         "literal_error": "one of {expected}", "enum": "one of {expected}", "value_error": "{error}"}
# what a field a person types wants when it is left empty
EMPTY = {"faces": "type the dice faces",
         "seat": "name a seat: human, an agent (scripted, mcts:hard) or review:<agent>; DELETE the seat to give it "
                 "back its default"}
# a union's branch, which pydantic adds to the location ("changes.hp.constrained-int"): a type, not a field
_BRANCH = re.compile(r"^(bool|int|float|str|none|constrained-\w+|\w+(-\w+)*\[.*\])$")
_KINDS = {"bool": "true or false", "int": "a whole number", "float": "a number", "str": "text", "list": "a list",
          "dict": "an object"}


def _kind_of_branch(tag: str) -> str:
    tag = tag.removeprefix("constrained-")
    head = tag.split("[", 1)[0]
    return {"tuple": "list", "set": "list"}.get(head, head)


def _kind_of_value(value: object) -> str:
    for kind, types in (("bool", bool), ("int", int), ("float", float), ("str", str), ("list", list), ("dict", dict)):
        if isinstance(value, types):
            return kind
    return "none"


def _branch_at(loc: tuple[Any, ...], locs: list[tuple[Any, ...]]) -> int | None:
    """Where `loc` names a union's branch: a type tag that another error has another of at the same place."""
    for i, part in enumerate(loc):
        if isinstance(part, str) and _BRANCH.match(part) and any(
                len(other) > i and other[:i] == loc[:i] and other[i] != part and _BRANCH.match(str(other[i]))
                for other in locs):
            return i
    return None


def _union_errors(union: list[dict[str, Any]], at: int) -> list[dict[str, Any]]:
    """Of a union's errors, those of the branch the value meant (the one it got into, else its JSON type's).

    None of them fits (``null`` for a number): one error listing the kinds the field takes.
    """
    deeper = [e for e in union if len(e["loc"]) > at + 1]
    if deeper:
        return deeper
    kind = _kind_of_value(union[0].get("input"))
    for wanted in (kind, {"int": "float", "float": "int"}.get(kind)):
        fits = [e for e in union if _kind_of_branch(e["loc"][at]) == wanted]
        if fits:
            return fits
    kinds = [_KINDS.get(_kind_of_branch(e["loc"][at]), _kind_of_branch(e["loc"][at])) for e in union]
    said = ", ".join(kinds[:-1]) + f" or {kinds[-1]}" if len(kinds) > 1 else kinds[0]
    return [{"loc": union[0]["loc"], "type": "union", "msg": f"{said} is needed"}]


def _said(error: dict[str, Any], field: str) -> str:
    """One error in plain words."""
    kind = str(error.get("type", ""))
    if kind in ("string_too_short", "too_short") and field in EMPTY:
        return EMPTY[field]
    if kind == "string_too_short" and (error.get("ctx") or {}).get("min_length") == 1:
        return "may not be empty"
    if kind == "union":
        return str(error["msg"])
    try:
        return PLAIN[kind].format(**(error.get("ctx") or {}))
    except (KeyError, IndexError):
        return str(error.get("msg", "invalid"))


def plain_problems(errors: Sequence[Any]) -> list[dict[str, str]]:
    """Pydantic's errors as ``{"where", "message"}``: the field as the request names it, a union's branches as one.

    ``where`` leaves out where the value came from (``body``, ``query``, ``path``) and pydantic's own parts (a
    union's type tags, ``[key]``): ``changes.hp``, ``faces``, ``limit``; a problem with the whole body is ``body``.
    """
    found = [{**e, "loc": tuple(e.get("loc", ()))} for e in errors]
    locs = [e["loc"] for e in found]
    chosen: list[dict[str, Any]] = []
    seen_unions: set[tuple[Any, ...]] = set()
    for e in found:
        at = _branch_at(e["loc"], locs)
        if at is None:
            chosen.append(e)
        elif e["loc"][:at] not in seen_unions:
            seen_unions.add(e["loc"][:at])
            union = [u for u in found if u["loc"][:at] == e["loc"][:at] and _branch_at(u["loc"], locs) == at]
            chosen += [{**u, "loc": u["loc"][:at] + u["loc"][at + 1:]} for u in _union_errors(union, at)]
    problems = []
    for e in chosen:
        if e.get("type") == "json_invalid":  # its loc is ("body", offset): the body as a whole is what is wrong
            problems.append({"where": "body", "message": f"{NOT_JSON} (at character {e['loc'][-1]})"})
            continue
        loc = list(e["loc"][1:] if e["loc"][:1] in (("body",), ("query",), ("path",)) else e["loc"])
        key = loc[-1:] == ["[key]"]
        if key:  # the name of a field in an object: the object is where, the name is what is wrong
            loc = loc[:-2]
        where = _where(loc)
        said = _said(e, where)
        problems.append({"where": where, "message": f"a field's name: {said}" if key else said})
    return problems


def located(exc: TrpgArenaError) -> str | None:
    """The field of the request an error is about (``npc``, ``changes.hp``, an encounter's path), if it names one."""
    if isinstance(exc, EncounterError):
        return exc.path
    if isinstance(exc, (EditError, UnknownSeatAgent)):
        return exc.where
    return None


def install(app: FastAPI) -> None:
    """Register the handlers that turn every error into its JSON refusal."""

    @app.exception_handler(TrpgArenaError)
    async def engine_error(_request: Request, exc: TrpgArenaError) -> JSONResponse:
        status, kind = next(((status, kind) for cls, status, kind in STATUS if isinstance(exc, cls)),
                            (422, "invalid_request"))
        if status >= 500 or kind == "unrestorable":
            log.error("server-side failure: %s", exc)
        where = located(exc)
        body = error_body(kind, str(exc), where)
        if isinstance(exc, StaleRequest):
            body["state"] = exc.state  # the session now: decide again on this
        # busy: another program holds the database; nothing was changed and a retry in a moment goes through
        headers = {"retry-after": str(RETRY_AFTER_S)} if isinstance(exc, StoreBusy) else None
        return JSONResponse(body, status_code=status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = plain_problems(exc.errors())
        first = problems[0] if problems else {"where": "body", "message": "invalid request"}
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return JSONResponse(error_body("invalid_request", f"{first['where']}: {first['message']}{more}",
                                       first["where"], problems), status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, exc: HTTPException) -> JSONResponse:
        if exc.status_code == 400 and "parsing the body" in str(exc.detail):  # no JSON, or JSON too deep to read
            return JSONResponse(error_body("invalid_request", f"body: {NOT_JSON}",
                                           "body"), status_code=422)
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
