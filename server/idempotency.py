"""``Idempotency-Key``: a request sent again (a retry after a lost answer, a double click) is answered as the first.

A client that may send a change twice (it timed out, the connection dropped) puts a key of its own
(a UUID) in the ``Idempotency-Key`` header. The first request with that key is carried out and its
answer kept; a later one with the same key and the same request is not carried out again but gets
that answer, marked ``Idempotent-Replayed: true``; one arriving while the first is still running
waits for it. The same key with another request is refused (422). A 503 (the database busy or unusable:
nothing was done) is not kept, so a retry of it is tried for real; a 500 is kept like any answer, because the
failure may have come after the change was stored (building the answer), and carrying it out again would
act twice. Kept answers are bounded in number and bytes, the oldest forgotten first.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trpg_arena.server.security import header, refuse

CHANGES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_KEY = 200  # characters
MAX_KEPT = 4096  # answers
MAX_KEPT_BYTES = 16 * 1024 * 1024
NOTHING_DONE = 503  # busy, or the store unusable: refused before any change, so a retry is carried out


@dataclass(frozen=True)
class Answer:
    """A kept answer: the request's fingerprint, and the status, headers and body sent for it."""

    fingerprint: str
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes


class IdempotencyKeys:
    """ASGI middleware answering a repeated ``Idempotency-Key`` with the first answer (see the module docstring)."""

    def __init__(self, app: ASGIApp, max_kept: int = MAX_KEPT, max_bytes: int = MAX_KEPT_BYTES) -> None:
        self.app = app
        self.max_kept = max_kept
        self.max_bytes = max_bytes
        self._kept: OrderedDict[str, Answer] = OrderedDict()
        self._bytes = 0
        self._running: dict[str, asyncio.Event] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one request (see the class docstring)."""
        key = header(scope, "idempotency-key") if scope["type"] == "http" and scope["method"] in CHANGES else None
        if key is None:
            await self.app(scope, receive, send)
            return
        if not 1 <= len(key) <= MAX_KEY or not key.isprintable():
            await refuse(scope, send, 422, "invalid_request",
                         f"Idempotency-Key: expected 1-{MAX_KEY} printable characters (a UUID, say)")
            return
        body = await _whole_body(receive)
        if body is None:
            return  # the client went away
        fingerprint = hashlib.sha256(b"\n".join([scope["method"].encode(), scope["path"].encode(),
                                                 scope.get("query_string", b""), body])).hexdigest()
        while key in self._running:  # the same key in flight: its answer is ours
            await self._running[key].wait()
        kept = self._kept.get(key)
        if kept is not None:
            if kept.fingerprint != fingerprint:
                await refuse(scope, send, 422, "invalid_request",
                             f"Idempotency-Key '{key[:40]}' was already used for another request: use a new key")
                return
            self._kept.move_to_end(key)
            await send({"type": "http.response.start", "status": kept.status,
                        "headers": [*kept.headers, (b"idempotent-replayed", b"true")]})
            await send({"type": "http.response.body", "body": kept.body})
            return
        done = self._running[key] = asyncio.Event()
        try:
            await self._first(key, fingerprint, scope, body, send)
        finally:
            del self._running[key]
            done.set()

    async def _first(self, key: str, fingerprint: str, scope: Scope, body: bytes, send: Send) -> None:
        """Carry out the first request with `key`, passing its answer on and keeping a copy."""
        status = 0
        headers: list[tuple[bytes, bytes]] = []
        chunks: list[bytes] = []
        given = False

        async def receive() -> Message:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return {"type": "http.disconnect"}

        async def keep(message: Message) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                status, headers = message["status"], list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
            await send(message)

        await self.app(scope, receive, keep)
        if 0 < status and status != NOTHING_DONE:
            self._keep(key, Answer(fingerprint, status, headers, b"".join(chunks)))

    def _keep(self, key: str, answer: Answer) -> None:
        size = len(answer.body) + len(key)
        if size > self.max_bytes:
            return
        self._kept[key] = answer
        self._bytes += size
        while len(self._kept) > self.max_kept or self._bytes > self.max_bytes:
            old_key, old = self._kept.popitem(last=False)
            self._bytes -= len(old.body) + len(old_key)


async def _whole_body(receive: Receive) -> bytes | None:
    """The request's body (the body limit in front has already bounded it); None if the client disconnected."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)
