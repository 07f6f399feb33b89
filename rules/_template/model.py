"""The encounter file of the system: typed, validated on load, every error located (field and file)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator, model_validator

from trpg_arena.rules.core.encounter import EncounterBase, StrictModel, located


class Combatant(StrictModel):
    """A stat block: who, on which side, how many hit points."""

    id: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_]*$")
    name: str | None = None
    side: str = Field(min_length=1)
    kind: str = Field("npc", pattern=r"^(pc|npc)$")
    hp: int = Field(ge=1, le=20)  # required: the stat block has no default (located error when missing)


class Options(StrictModel):
    """Rule switches (every one documented with the rule it changes)."""

    round_cap: int = Field(10, ge=1, le=100)  # TPL-1.3: the combat is a draw after this round
    hit_on: int = Field(4, ge=2, le=6)  # TPL-1.1: the d6 face that hits


class Start(StrictModel):
    """A mid-combat start (acceptance scenarios, a GM's situation): `new_state` begins there instead of round 1."""

    round: int = Field(1, ge=1, le=100)
    actor: str | None = None  # whose turn it is (default: the roster's first, TPL-1.2)
    hp: dict[str, int] = Field(default_factory=dict)  # hit points left, by combatant id (default: the stat block's)


class TemplateEncounter(EncounterBase):
    """An encounter of this system.

    Every section is typed: the template fights in one zone, so it takes no ``map`` (one is refused, not ignored).
    """

    options: Options = Field(default_factory=Options)
    map: None = None
    combatants: list[Combatant] = Field(min_length=2)
    start: Start | None = None

    @field_validator("map", mode="before")
    @classmethod
    def _no_map(cls, value: Any) -> None:
        if value is not None:
            raise ValueError("this system has no map: everybody stands in one zone (leave 'map' out)")
        return None

    @model_validator(mode="after")
    def _start_fits_the_roster(self) -> TemplateEncounter:
        """The ``start`` section names combatants of the roster and values their stat blocks allow."""
        if self.start is None:
            return self
        hp = {c.id: c.hp for c in self.combatants}
        if self.start.round > self.options.round_cap:
            raise located(("start", "round"), f"round {self.start.round} is past the round cap "
                          f"({self.options.round_cap})", self.start.round)
        if self.start.actor is not None and self.start.actor not in hp:
            raise located(("start", "actor"), f"'{self.start.actor}' is not in the roster ({', '.join(hp)})",
                          self.start.actor)
        for cid, left in self.start.hp.items():
            if cid not in hp:
                raise located(("start", "hp", cid), f"'{cid}' is not in the roster ({', '.join(hp)})", cid)
            if not 0 <= left <= hp[cid]:
                raise located(("start", "hp", cid), f"{left} hit points: from 0 to {cid}'s {hp[cid]}", left)
        return self
