"""Which state a request that changes a session answers: its revision, from ``If-Match`` or a ``revision`` field.

The session's state carries a ``revision`` that changes with every change (a decision, an undo, a seat,
dice asked for). A request that names the revision it was decided on is applied only if the session is
still there: otherwise it changes nothing and is answered 409 with the state now (`StaleRequest`), so a
double click, a retry or two people answering one decision never act twice. A request naming none acts
on the session as it is.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request

from trpg_arena.rules import TrpgArenaError


class RevisionError(TrpgArenaError, ValueError):
    """An ``If-Match`` header that names no revision, or one that disagrees with the body's ``revision``."""


class StaleRequest(TrpgArenaError):
    """A change decided on an older state of the session: nothing was done; `state` is the session now."""

    def __init__(self, message: str, state: dict[str, Any]) -> None:
        super().__init__(message)
        self.state = state


def etag(revision: int) -> str:
    """The ``ETag`` of a session state at `revision` (what ``If-Match`` sends back)."""
    return f'"{revision}"'


def requested_revision(request: Request, body: object = None) -> int | None:
    """The revision a request answers: its ``If-Match`` header (``"7"``, ``7``, ``W/"7"``) or body ``revision``.

    None when it names none (``If-Match: *`` included). `RevisionError` for a malformed header or one
    that disagrees with the body.
    """
    from_body = getattr(body, "revision", None)
    header = request.headers.get("if-match")
    if header is None or header.strip() == "*":
        return from_body
    text = header.strip().removeprefix("W/").strip('"')
    if not (text.isascii() and text.isdecimal() and len(text) <= 18):
        raise RevisionError(f"If-Match: expected one session revision such as \"7\" (the state's revision or "
                            f"ETag), got {header[:40]!r}")
    revision = int(text)
    if from_body is not None and from_body != revision:
        raise RevisionError(f"If-Match says revision {revision} but the body says {from_body}: send one")
    return revision



IF_MATCH = {"name": "If-Match", "in": "header", "required": False, "schema": {"type": "string"},
            "description": "the state's revision this change answers, e.g. \"7\" (the state's ETag): if the "
                           "session has moved on, nothing is done and the answer is 409 with the state now"}
IDEMPOTENCY_KEY = {"name": "Idempotency-Key", "in": "header", "required": False,
                   "schema": {"type": "string", "maxLength": 200},
                   "description": "a key of the client's own (a UUID): the same request sent again with it is "
                                  "answered as the first was, and never acts twice"}


def document_headers(schema: dict[str, Any]) -> dict[str, Any]:
    """Name ``If-Match`` and ``Idempotency-Key`` in the OpenAPI schema of every request that changes something.

    They are read before the routes (`requested_revision`, `idempotency`), so no route declares them.
    """
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            if method not in ("post", "put", "patch", "delete") or not path.startswith("/api/sessions"):
                continue
            extra = [IDEMPOTENCY_KEY] if path == "/api/sessions" else [IF_MATCH, IDEMPOTENCY_KEY]
            operation["parameters"] = [*operation.get("parameters", []), *extra]
    return schema
