"""Running the application on uvicorn so that it always stops: SIGTERM or Ctrl-C end it within seconds.

On the signal every agent deadline expires at once (searches answer at once, runs hand back), open
connections get `SHUTDOWN_GRACE` seconds to finish, then whatever is left (a request waiting on a
session, a WebSocket) is cancelled. Once stopped by SIGTERM `serve_app` returns like on SIGINT, so that the
caller's cleanup (closing the session database) runs and the command exits 0. `check_listen` refuses an address
that cannot be had (a port in use) in one line, before a command creates anything (uvicorn says so only once it
starts, in its own words).
"""

from __future__ import annotations

import errno
import signal
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import uvicorn

from trpg_arena.rules import TrpgArenaError
from trpg_arena.server.work import stop_all_agents

SHUTDOWN_GRACE = 3  # seconds open requests and WebSockets get to finish once the server is told to stop
# seconds an idle keep-alive connection stays open. It must outlast the idle time after which clients stop reusing a
# connection (httpx 5 s, Node 4 s, aiohttp 15 s), else a client may send its next request just as the server closes
# the connection and read a reset; uvicorn's own default is 5 s, the same as httpx's. An idle connection costs a
# socket and holds no session; on shutdown idle connections are closed at once.
KEEP_ALIVE = 75


class _Server(uvicorn.Server):
    """uvicorn's server, which also stops the agents' work when told to exit."""

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        stop_all_agents()
        super().handle_exit(sig, frame)


def serve_app(app: Any, host: str, port: int) -> None:
    """Serve `app` until SIGINT or SIGTERM (see the module docstring)."""
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", ws="websockets-sansio",
                            timeout_graceful_shutdown=SHUTDOWN_GRACE, timeout_keep_alive=KEEP_ALIVE)
    with until_terminated():
        _Server(config).run()


class _Terminated(BaseException):
    """SIGTERM arrived; not an `Exception`, so that no `except Exception` on the way swallows it."""


def _terminate(_sig: int, _frame: FrameType | None) -> None:
    raise _Terminated


@contextmanager
def until_terminated() -> Iterator[None]:
    """Run the block until it ends or SIGTERM arrives; either way what follows it (closing a database) runs.

    Python's default SIGTERM kills the process on the spot, skipping every ``finally``: a session database
    left unclosed keeps its latest changes only in its WAL file. uvicorn shuts down on the signal and then
    raises it again under the handler it found, which here ends the block instead.
    """
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    except _Terminated:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


class CannotListen(TrpgArenaError):
    """The address a server was told to listen on cannot be had (its port in use, a host not this machine's)."""


def check_listen(host: str, port: int) -> None:
    """Refuse with `CannotListen` unless a server could listen on `host`:`port` now (nothing is kept open)."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise CannotListen(f"cannot listen on {host}: {e.strerror}") from None
    for family, kind, proto, _name, address in addresses:
        with socket.socket(family, kind, proto) as probe:
            # as uvicorn binds: a port left in TIME_WAIT by a server just stopped is free, a listening one is not
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as e:
                if e.errno == errno.EADDRINUSE:
                    raise CannotListen(f"port {port} is in use (another program listens on {host}:{port}): "
                                       "stop it or choose another --port") from None
                raise CannotListen(f"cannot listen on {host}:{port}: {e.strerror}") from None
