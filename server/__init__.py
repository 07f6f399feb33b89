"""`trpg-arena serve`: an HTTP + WebSocket API over `Session`, and the table page that drives it.

A virtual tabletop module, a chat bot or the bundled page (``/``) create sessions, read the open
decision with its legal actions grouped by verb, submit or confirm actions, enter dice rolled at the
table, undo, and watch every event arrive over a WebSocket. Sessions live in the same SQLite store as
the terminal autopilot, so a server restart loses nothing.

Build the application with `create_app(ServerConfig(...))`; the CLI's ``serve`` command runs it on uvicorn.
"""

from __future__ import annotations

from trpg_arena.server.app import create_app
from trpg_arena.server.config import ServerConfig

__all__ = ["ServerConfig", "create_app"]
