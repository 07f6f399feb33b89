"""The server's gatekeepers, as small ASGI middlewares (inside the CORS one), outermost first.

- `AllowListCORS`: Starlette's CORS for the allowed origins only; a page of any other origin gets no CORS
  header at all.
- `HostGuard`: a loopback server accepts only loopback ``Host`` headers (a DNS-rebinding page cannot
  reach it under a name of its own).
- `OriginGuard`: a browser request that can change something (POST, PUT, DELETE, and every WebSocket)
  from a page of another origin is refused unless that origin is allowed: CORS alone lets a foreign
  page *send* simple requests and open WebSockets, it only hides the answers.
- `TokenGate`: with a token, every request carries it (header, query or the page's cookie), else 401.
- `BodyLimit`: a request body over the limit is refused with 413 before anything reads it.

Refusals are JSON in the API's error shape: ``{"error": ..., "message": ...}``.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import PlainTextResponse, Response

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOKEN_COOKIE = "trpg_arena_token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def header(scope: Scope, name: str) -> str | None:
    """The first value of a request header (`name` in lower case), decoded as Latin-1."""
    key = name.encode("latin-1")
    for k, v in scope.get("headers", ()):
        if k == key:
            return v.decode("latin-1")
    return None


async def refuse(scope: Scope, send: Send, status: int, error: str, message: str) -> None:
    """Answer with a JSON error; a WebSocket's handshake gets the same HTTP status and body.

    A server without the ASGI denial-response extension cannot answer a handshake with a status of its
    own: the socket is closed with code ``4000 + status`` instead (4401 for a missing token).
    """
    body = json.dumps({"error": error, "message": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if scope["type"] == "websocket":
        if "websocket.http.response" not in scope.get("extensions", {}):
            await send({"type": "websocket.close", "code": 4000 + status, "reason": message[:120]})
            return
        await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": body})
        return
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class AllowListCORS(CORSMiddleware):
    """Starlette's CORS middleware, whose answers to a page of an origin not allowed carry no CORS header.

    Starlette adds ``Access-Control-Expose-Headers`` to every answer to a request with an ``Origin``, and
    its allowed methods and headers to a refused preflight: a foreign page reads that this server does CORS.
    """

    def preflight_response(self, request_headers: Headers) -> Response:
        """A preflight: Starlette's answer for an allowed origin, a bare 400 for any other."""
        if self.is_allowed_origin(origin=request_headers["origin"]):
            return super().preflight_response(request_headers)
        return PlainTextResponse("Disallowed CORS origin", status_code=400, headers={"vary": "Origin"})

    async def send(self, message: Message, send: Send, request_headers: Headers) -> None:
        """Start an answer: with the CORS headers for an allowed origin, only ``Vary: Origin`` for another."""
        origin = request_headers.get("origin")
        if message["type"] != "http.response.start" or origin is None or self.is_allowed_origin(origin=origin):
            await super().send(message, send, request_headers)
            return
        message.setdefault("headers", [])
        headers = MutableHeaders(scope=message)
        headers["Vary"] = ", ".join([*headers.getlist("Vary"), "Origin"])  # an allowed origin's answer differs
        await send(message)


def _is_preflight(scope: Scope) -> bool:
    return scope.get("method") == "OPTIONS" and header(scope, "access-control-request-method") is not None


class HostGuard:
    """Refuses requests whose ``Host`` is not one of `trusted` (any host when `trusted` is empty)."""

    def __init__(self, app: ASGIApp, trusted: tuple[str, ...]) -> None:
        self.app = app
        self.trusted = frozenset(h.lower() for h in trusted)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one connection (see the class docstring)."""
        if scope["type"] in ("http", "websocket") and self.trusted:
            host = (header(scope, "host") or "").lower()
            name = urlsplit(f"//{host}").hostname or ""
            if name not in self.trusted:
                await refuse(scope, send, 400, "bad_host",
                             f"Host '{host}' is not served here; use {' or '.join(sorted(self.trusted))}")
                return
        await self.app(scope, receive, send)


class OriginGuard:
    """Refuses state-changing browser requests and WebSockets from origins that are neither this server nor allowed."""

    def __init__(self, app: ASGIApp, allow_origins: tuple[str, ...]) -> None:
        self.app = app
        self.allow_origins = frozenset(allow_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one connection (see the class docstring)."""
        kind = scope["type"]
        checked = kind == "websocket" or (kind == "http" and scope.get("method") in UNSAFE_METHODS)
        origin = header(scope, "origin") if checked else None
        if origin is not None and origin not in self.allow_origins and not self._same_origin(scope, origin):
            await refuse(scope, send, 403, "origin_refused",
                         f"requests from pages of {origin} are not allowed (start the server with --allow-origin "
                         f"{origin} to allow them)")
            return
        await self.app(scope, receive, send)

    @staticmethod
    def _same_origin(scope: Scope, origin: str) -> bool:
        return urlsplit(origin).netloc.lower() == (header(scope, "host") or "").lower()


def token_hint(command: str, generated: bool) -> str:
    """Which token a refused client should send, for the server `command` (``trpg-arena serve``) that runs."""
    if generated:
        return f"the token `{command}` printed when it started"
    return f"the token `{command}` was given: --token, --token-file or $TRPG_ARENA_TOKEN"


class TokenGate:
    """With a token, refuses (401) every request without it; a valid ``?token=`` also sets the page's cookie.

    `hint` says which token to send (`token_hint`): the one the server printed, or the one it was given.
    """

    def __init__(self, app: ASGIApp, token: str | None,
                 hint: str = "the token the server printed when it started, or the one it was given") -> None:
        self.app = app
        self.token = token
        self.hint = hint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one connection (see the class docstring)."""
        if self.token is None or scope["type"] not in ("http", "websocket") or _is_preflight(scope):
            await self.app(scope, receive, send)
            return
        from_query = self._query_token(scope)
        offered = self._bearer(scope) or from_query or self._cookie(scope)
        # an empty token is never one: an empty cookie or header must not match a token misconfigured as empty
        if not offered or not self.token or not hmac.compare_digest(offered.encode(), self.token.encode()):
            what = "a wrong token" if offered else "no token"
            await refuse(scope, send, 401, "unauthorized",
                         f"{what}: send 'Authorization: Bearer <token>' ({self.hint})")
            return
        if from_query is None or scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                cookie = f"{TOKEN_COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict"
                message["headers"] = [*message.get("headers", []), (b"set-cookie", cookie.encode("latin-1"))]
            await send(message)

        await self.app(scope, receive, send_with_cookie)

    @staticmethod
    def _bearer(scope: Scope) -> str | None:
        value = header(scope, "authorization") or ""
        scheme, _, credentials = value.partition(" ")
        return (credentials.strip() or None) if scheme.lower() == "bearer" else None

    @staticmethod
    def _query_token(scope: Scope) -> str | None:
        values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
        return values[0] if values else None

    @staticmethod
    def _cookie(scope: Scope) -> str | None:
        raw = header(scope, "cookie")
        if not raw:
            return None
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(raw)
        except Exception:  # a malformed Cookie header is simply no token
            return None
        morsel = jar.get(TOKEN_COOKIE)
        return morsel.value if morsel is not None else None


class BodyLimit:
    """Refuses (413) an HTTP request body larger than `limit` bytes, whether it declares its length or streams."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one connection (see the class docstring)."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = header(scope, "content-length")
        if declared is not None and declared.isdecimal() and int(declared) > self.limit:
            await self._too_large(scope, send)
            return
        # Read the body here (at most `limit` bytes are ever held), then hand it on in one piece.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._too_large(scope, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, scope: Scope, send: Send) -> None:
        await refuse(scope, send, 413, "body_too_large",
                     f"request body over {self.limit} bytes (start the server with a larger --max-body)")
