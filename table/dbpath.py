"""Where the session database lives unless told otherwise: one file shared by the terminal and the server."""

from __future__ import annotations

import os
from pathlib import Path

DB_ENV = "TRPG_ARENA_DB"


def default_db() -> Path:
    """``$TRPG_ARENA_DB``, else ``$XDG_DATA_HOME/trpg-arena/sessions.db`` (``~/.local/share/...``).

    `trpg-arena autopilot` and `trpg-arena serve` both start from it, so a session begun in one is
    listed, resumed and watched in the other.
    """
    env = os.environ.get(DB_ENV)
    if env:
        return Path(env)
    data = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return data / "trpg-arena" / "sessions.db"
