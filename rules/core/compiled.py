"""Compiled encounters: an encounter's static tables, built once per encounter content and shared.

A rule system turns an encounter into what its rules read on every call (stat tables, the battlefield's
derived geometry, the action catalogue) with `RuleSystem.build_battlefield` and `RuleSystem.compile`.
The kernel alone caches the result, by content: two loads of one file, or two equal dicts, share one
`CompiledEncounter`, and so do all their combats (`Combat.battlefield`, `Combat.tables`). Layers above
the rules (the env codecs) keep their per-encounter data there too, with `derive`.

Nothing here holds per-combat state, and building takes a lock, so combats in several threads share
the tables safely. Compiled tables are read-only for the rules; caches of pure functions inside them
(path searches keyed by their inputs) are fine, since any thread would store the same value.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from trpg_arena.rules.core.battlefield import Battlefield
from trpg_arena.rules.core.encounter import EncounterBase

if TYPE_CHECKING:
    from trpg_arena.rules.core.grid import Grid
    from trpg_arena.rules.core.system import RuleSystem

T = TypeVar("T")
KEEP = 64  # encounter contents kept compiled (a tournament over many files recompiles the oldest)


class CompiledEncounter:
    """One encounter content's battlefield, the system's tables and data derived from them."""

    def __init__(self, battlefield: Battlefield, tables: Any) -> None:
        self.battlefield = battlefield
        self.tables = tables
        self._derived: dict[str, Any] = {}
        self._lock = threading.RLock()  # re-entrant: a derived value may be built from another (codec from catalogue)

    @property
    def grid(self) -> Grid:
        """The battlefield compiled to bit masks (square and hex boards only; see `core.grid`)."""
        return self.battlefield.grid

    def derive(self, name: str, build: Callable[[], T]) -> T:
        """The value `build()` gives for this content, built once (the action catalogue, an env's codec)."""
        hit = self._derived.get(name)
        if hit is None:
            with self._lock:
                hit = self._derived.get(name)
                if hit is None:
                    hit = self._derived[name] = build()
        return hit


_BY_CONTENT: OrderedDict[tuple[str, str], CompiledEncounter] = OrderedDict()
_LOCK = threading.RLock()  # re-entrant: a system may compile a nested encounter (none does today)


def compiled(encounter: EncounterBase, system: RuleSystem | None = None) -> CompiledEncounter:
    """The compiled form of an encounter, cached by content (and remembered by the encounter object)."""
    private = encounter.__pydantic_private__
    assert private is not None
    hit: CompiledEncounter | None = private.get("_compiled")
    if hit is not None:
        return hit
    if system is None:
        from trpg_arena.rules.core.system import get_ruleset

        system = get_ruleset(encounter.ruleset)
    key = (system.info.id, encounter.model_dump_json())
    with _LOCK:
        hit = _BY_CONTENT.get(key)
        if hit is None:
            battlefield = system.build_battlefield(encounter)
            hit = _BY_CONTENT[key] = CompiledEncounter(battlefield, system.compile(encounter, battlefield))
            if len(_BY_CONTENT) > KEEP:
                _BY_CONTENT.popitem(last=False)
        else:
            _BY_CONTENT.move_to_end(key)
    private["_compiled"] = hit
    return hit
