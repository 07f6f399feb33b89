"""Small checks a rule system's `check_state` hook composes: each failure is one located `SnapshotError`.

A restored state has every field of the right type (pydantic checks that), yet its fields can still
contradict each other: a name in the turn order that is no fighter, a fighter standing off the board,
a count below zero. The rules take such invariants for granted (they hold for every state the rules
themselves produce), so a contradiction surfaces later as a bare `KeyError` deep in the legal-action
code. These helpers name the field and the bad value instead: ``state.fighters['x'].pos (12, -1) is
off the board``. They only run on states that come from outside (a snapshot being restored), never
on the states search clones, so they may be thorough.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from trpg_arena.rules.core.battlefield import Battlefield
from trpg_arena.rules.core.errors import SnapshotError


def at(where: str, key: Any) -> str:
    """The path of an item inside a container field: ``at("state.fighters", "x")`` is ``state.fighters['x']``."""
    return f"{where}[{key!r}]"


def short(value: Any) -> str:
    """A value as a one-line error shows it: its repr, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def bad(where: str, value: Any, problem: str) -> SnapshotError:
    """The one-line error for a field whose value breaks an invariant."""
    return SnapshotError(f"{where} {short(value)} {problem}")


def known(where: str, ident: Any, ids: Collection[str], what: str = "fighter") -> None:
    """`ident` names one of `ids` (a fighter, a vehicle, an item...)."""
    if ident not in ids:
        raise bad(where, ident, f"is no {what} of this combat")


def all_known(where: str, idents: Iterable[Any], ids: Collection[str], what: str = "fighter") -> None:
    """Every entry of a list field names one of `ids`."""
    for i, ident in enumerate(idents):
        known(at(where, i), ident, ids, what)


def optional_known(where: str, ident: Any, ids: Collection[str], what: str = "fighter") -> None:
    """`ident` is empty (None or "") or names one of `ids`."""
    if ident not in (None, ""):
        known(where, ident, ids, what)


def none_or_known(where: str, ident: Any, ids: Collection[str], what: str = "fighter") -> None:
    """`ident` is None or names one of `ids` (for ``str | None`` fields, where "" is no id either)."""
    if ident is not None:
        known(where, ident, ids, what)


def keyed(where: str, table: dict[str, Any], field: str = "id") -> None:
    """Each entry of a dict keyed by id carries that same id in its `field`."""
    for key, item in table.items():
        if getattr(item, field) != key:
            raise bad(f"{at(where, key)}.{field}", getattr(item, field), f"differs from its key {key!r}")


def unique(where: str, idents: list[Any]) -> None:
    """No entry appears twice (a turn order, a roster)."""
    seen: set[Any] = set()
    for i, ident in enumerate(idents):
        if ident in seen:
            raise bad(at(where, i), ident, "appears twice")
        seen.add(ident)


def in_range(where: str, value: int, low: int, high: int | None = None) -> None:
    """`low <= value <= high` (no upper bound when `high` is None)."""
    if value < low or (high is not None and value > high):
        bound = f"at least {low}" if high is None else f"between {low} and {high}"
        raise bad(where, value, f"is out of range (must be {bound})")


def index_of(where: str, value: int, items: Collection[Any], *, end_ok: bool = True) -> None:
    """A cursor into `items`: 0..len (len itself allowed when `end_ok`, meaning "past the last")."""
    in_range(where, value, 0, len(items) if end_ok else max(len(items) - 1, 0))


def one_of(where: str, value: Any, allowed: Collection[Any]) -> None:
    """An enumeration field holds one of its values."""
    if value not in allowed:
        raise bad(where, value, f"is not one of {', '.join(map(repr, sorted(allowed, key=str)))}")


def on_board(where: str, node: Any, battlefield: Battlefield, *, none_ok: bool = True) -> None:
    """A place (a cell, a hex or a zone) is a node of the battlefield (None allowed when `none_ok`)."""
    if node is None:
        if not none_ok:
            raise bad(where, node, "is not a place on the board")
        return
    try:
        present = node in battlefield.graph
    except TypeError:  # an unhashable value is no node either
        present = False
    if not present:
        raise bad(where, node, "is off the board")
