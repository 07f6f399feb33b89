"""Running the application on uvicorn so that it always stops: SIGTERM or Ctrl-C end it within seconds.

On the signal every agent deadline expires at once (searches answer at once, runs hand back), open
connections get `SHUTDOWN_GRACE` seconds to finish, then whatever is left (a request waiting on a
session, a WebSocket) is cancelled.
"""

from __future__ import annotations

from types import FrameType
from typing import Any

import uvicorn

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
    _Server(config).run()
