"""The mutable state: a dataclass with precise field types (snapshots go through JSON, clones copy by type)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from trpg_arena.rules.core.system import BaseState

if TYPE_CHECKING:
    from trpg_arena.rules.core.combat import Combat

    from .tables import Tables


@dataclass
class TemplateState(BaseState):
    """What changes during a combat; everything static lives in the compiled `Tables`."""

    hp: dict[str, int] = field(default_factory=dict)
    turn: int = 0  # turns taken this combat; whose turn it is follows from the roster order


# A combat of this system: its `state` is a `TemplateState`, its `tables` the encounter's `Tables`.
TemplateCombat: TypeAlias = "Combat[TemplateState, Tables]"
