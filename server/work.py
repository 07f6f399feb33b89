"""Agent work on the server: a time limit per request, work run off the session locks, stopped on shutdown.

- `AgentDeadline` (an ASGI middleware) gives each request's agent work a `Deadline` of
  ``agent_seconds`` from its arrival: a search answers its best action so far when it is reached, and
  a run of agent decisions hands back (the client asks again). No request holds a session for longer.
- `off_thread` runs work that needs no session lock (a proposal on a copy of the combat) on a thread
  of its own and waits for it until the deadline (plus a grace); past that the request answers 503
  and the work is told to stop. Those threads are daemons: they never keep a stopping server alive.
- `stop_all_agents` expires every deadline at once (the server was told to stop).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

from trpg_arena.agents.deadline import Deadline, current, stop_all, within
from trpg_arena.rules import TrpgArenaError
from trpg_arena.server.security import ASGIApp, Receive, Scope, Send

T = TypeVar("T")
GRACE = 2.0  # seconds an agent past its deadline still gets before the request gives up on it
MAX_WORKERS = 8  # agent threads running at once; more requests wait (within their deadline) for one


class AgentBusy(TrpgArenaError):
    """Agent work that did not answer within the request's time limit (503: ask again)."""


class AgentDeadline:
    """Puts a `Deadline` of `seconds` around everything a request (or a WebSocket's start) runs."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one connection (see the class docstring)."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        # the endpoint's thread runs in a copy of this context: it sees the deadline set here
        with within(Deadline(self.seconds)):
            await self.app(scope, receive, send)


_slots = threading.BoundedSemaphore(MAX_WORKERS)


def off_thread(work: Callable[[], T], what: str) -> T:
    """`work()` on a daemon thread under the current request's deadline; `AgentBusy` if it runs past it."""
    deadline = current() or Deadline(None)
    remaining = deadline.remaining()
    wait = None if remaining is None else remaining + GRACE
    if not _slots.acquire(timeout=wait if wait is not None else -1):
        raise AgentBusy(f"{what}: every agent worker is busy; ask again in a few seconds")
    future: Future[T] = Future()

    def run() -> None:
        try:
            with within(deadline):
                future.set_result(work())
        except BaseException as e:  # handed to the waiting request, which answers it
            future.set_exception(e)
        finally:
            _slots.release()

    threading.Thread(target=run, name=f"agent: {what}", daemon=True).start()
    try:
        return future.result(timeout=None if remaining is None else (deadline.remaining() or 0.0) + GRACE)
    except FutureTimeout:
        deadline.cancel()
        raise AgentBusy(f"{what}: the agent did not answer within the server's time limit "
                        f"(trpg-arena serve --agent-seconds); ask again or choose a smaller search") from None


def stop_all_agents(*_args: Any) -> None:
    """Expire every agent deadline now (the server is stopping: searches answer at once)."""
    stop_all()
