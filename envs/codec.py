"""What an env does around the codec: how much combat log it keeps (its illegal-action policy: `illegal.py`).

The codec itself (`Codec`, the action and observation layout) lives in `trpg_arena.agents.codec`, below both
the envs and the trained-policy agent that read observations.
"""

from __future__ import annotations

import numbers

from trpg_arena.rules import Combat

__all__ = ["LOG_LIMIT", "keep_log", "resolve_log_limit"]

LOG_LIMIT = 64  # recent events an env's combat keeps in memory when rendering (`Combat.trim_log`)


def resolve_log_limit(log_limit: int | str | None, render_mode: str | None) -> int | None:
    """An env's ``log_limit``: ``"auto"`` records nothing headless and keeps `LOG_LIMIT` events when rendering."""
    if log_limit == "auto":
        return 0 if render_mode is None else LOG_LIMIT
    if log_limit is None:
        return None
    if not isinstance(log_limit, numbers.Integral) or isinstance(log_limit, bool) or log_limit < 0:
        raise ValueError(f"log_limit must be 'auto', a whole number >= 0 or None, got {log_limit!r}")
    return int(log_limit)


def keep_log(combat: Combat, log_limit: int | None) -> None:
    """Trim a combat's log back to `log_limit` events once it holds more than twice that (called after each step)."""
    if log_limit is not None and len(combat.log) > 2 * log_limit:
        combat.trim_log(log_limit)
