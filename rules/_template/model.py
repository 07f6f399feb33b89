"""The encounter file of the system: typed, validated on load, every error located (field and file)."""

from __future__ import annotations

from pydantic import Field

from trpg_arena.rules.core.encounter import EncounterBase, StrictModel


class Combatant(StrictModel):
    """A stat block: who, on which side, how many hit points."""

    id: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_]*$")
    name: str | None = None
    side: str = Field(min_length=1)
    kind: str = Field("npc", pattern=r"^(pc|npc)$")
    hp: int = Field(ge=1, le=20)  # required: the stat block has no default (located error when missing)


class Options(StrictModel):
    """Rule switches (every one documented with the rule it changes)."""

    round_cap: int = Field(10, ge=1, le=100)  # TPL-3: the combat is a draw after this round
    hit_on: int = Field(4, ge=2, le=6)  # TPL-1: the d6 face that hits


class TemplateEncounter(EncounterBase):
    """An encounter of this system."""

    options: Options = Field(default_factory=Options)
    combatants: list[Combatant] = Field(min_length=2)
