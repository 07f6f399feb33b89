"""The WebSocket every page watching a session listens on: each session event, numbered, in order.

On connect the socket sends ``{"type": "hello", "seq": N, "state": ...}``: the session now and the
number of the last event before it; then every event from ``N + 1`` on: ``decision`` (the record
and its engine events), ``dice`` (dice asked for), ``undo``, ``setup`` (seats or settings changed),
``proposal`` (a proposal shown as ``thinking`` is ready, see `server.thinking`) and ``deleted``.
A watcher that falls too far behind (its queue full, or one event unsent for
`SEND_TIMEOUT` seconds because the page stopped reading) is disconnected and reconnects for a fresh
state. A refused handshake answers the HTTP status and JSON error of a refused request (401 without
the token, 403 from a foreign page, 404 for an unknown session).
"""

from __future__ import annotations

import asyncio
import contextlib

from fastapi import APIRouter, WebSocket
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect

from trpg_arena.server.api import THINK_WAIT
from trpg_arena.server.hub import SessionHub, UnknownSession, Watcher
from trpg_arena.server.security import refuse
from trpg_arena.server.state import session_state

router = APIRouter()
SEND_TIMEOUT = 10.0  # seconds one event may take to go out before the watcher is cut off


@router.websocket("/api/sessions/{sid}/events")
async def session_events(ws: WebSocket, sid: str) -> None:
    """Stream a session's events to one page (see the module docstring)."""
    hub: SessionHub = ws.app.state.hub
    loop = asyncio.get_running_loop()

    def join() -> tuple[Watcher, dict]:
        # under the lock: no event falls between the state and the stream
        with hub.use(sid, settle=THINK_WAIT) as entry:
            assert entry.session is not None
            return hub.watch(entry, loop), {"type": "hello", "seq": entry.seq, "session": sid,
                                            "state": session_state(entry.id, entry.name, entry.session)}

    try:
        watcher, hello = await run_in_threadpool(join)
    except UnknownSession as e:
        await refuse(ws.scope, ws.send, 404, "unknown_session", str(e))
        return
    try:
        await ws.accept()
        await ws.send_json(hello)
        await _pump(ws, watcher)
    except WebSocketDisconnect:
        pass
    finally:
        await run_in_threadpool(hub.unwatch, sid, watcher)


async def _pump(ws: WebSocket, watcher: Watcher) -> None:
    """Send queued events until the stream ends or the page goes away (whichever comes first)."""

    async def send() -> None:
        while True:
            message = await watcher.queue.get()
            if message is None:
                await ws.close()
                return
            # a page that stops reading fills the connection's buffer and then blocks this send: after
            # SEND_TIMEOUT it is dropped (the handler returns and the connection is closed)
            await asyncio.wait_for(ws.send_json(message), SEND_TIMEOUT)

    async def receive() -> None:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return

    tasks = [asyncio.ensure_future(send()), asyncio.ensure_future(receive())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, RuntimeError, TimeoutError):
                await task
