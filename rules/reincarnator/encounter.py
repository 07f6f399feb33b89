"""The reincarnator encounter model and its mid-combat ``start`` section.

The optional ``start`` section begins the combat mid-way (acceptance scenarios, GM resumes):

- ``round`` (default 1), ``order`` (turn order, required), ``actor`` (whose turn, default first of
  ``order``), ``fresh_turn`` (default true: run the actor's start-of-turn processing; false: the
  actor's ``slots`` and flags are taken as given), ``reorder_pending``;
- ``combatants``: per id any of ``cell``, ``status``, ``lethal``, ``bashing``, ``slots`` (``standard``,
  ``move``, ``swift``, ``trick``, ``acrobatic``), ``prone``, ``crouching``, ``in_cover`` (a cell or
  a combatant id), ``hidden``, ``bd_loss``, ``full_defense``, ``parry_value``, ``acro_dodge_bonus``,
  ``aim_target``, ``aim_count``, ``reflex_available``, ``has_had_turn``, ``moved``, ``aimed``,
  ``parried``, ``acted``, ``effects`` (created during the combat), ``items`` (per item id:
  ``location``, ``loaded``, ``spares``, ``chambered``), ``init_d10``, ``init_total``;
- ``grapples``: ``{holder, held, state: hold|pin, hold_margin, pin_margin, with}``;
- ``doors``: cells whose door state differs from the map (``{at: [x, y], door: open|closed}``).

Without ``start`` the combat opens with the scene change, the surprise round (if any) and initiative.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from trpg_arena.rules.core.encounter import EncounterBase, StrictModel
from trpg_arena.rules.core.errors import EncounterError
from trpg_arena.rules.reincarnator.model import (
    Cell,
    CombatantSpec,
    EffectSpec,
    MapSpec,
    ReincarnatorOptions,
    Reinforcement,
    SurpriseSpec,
    VehicleSpec,
)


class SlotsSpec(StrictModel):
    """Remaining action slots of a turn."""

    standard: int = Field(1, ge=0)
    move: int = Field(1, ge=0)
    swift: int = Field(1, ge=0)
    trick: int = Field(0, ge=0)
    acrobatic: int = Field(0, ge=0)


class ItemStart(StrictModel):
    """Mid-combat state of an item."""

    location: Literal["held", "reachable", "stowed", "gone"] | Cell | None = None
    loaded: int | None = Field(None, ge=0)
    spares: int | None = Field(None, ge=0)
    chambered: bool | None = None


class FighterStart(StrictModel):
    """Mid-combat state of one combatant (every field optional)."""

    cell: Cell | None = None
    status: Literal["active", "unconscious", "dying", "dead", "fled"] | None = None
    lethal: int | None = Field(None, ge=0)
    bashing: int | None = Field(None, ge=0)
    slots: SlotsSpec | None = None
    prone: bool | None = None
    crouching: bool | None = None
    in_cover: Cell | str | None = None
    hidden: bool | None = None
    bd_loss: int | None = Field(None, ge=0)
    full_defense: bool | None = None
    parry_value: int | None = Field(None, ge=0)
    acro_dodge_bonus: int | None = Field(None, ge=0)
    aim_target: str | None = None
    aim_count: int | None = Field(None, ge=0, le=3)
    reflex_available: bool | None = None
    has_had_turn: bool | None = None
    moved: bool | None = None
    aimed: bool | None = None
    parried: bool | None = None
    acted: bool | None = None
    effects: list[EffectSpec] = Field(default_factory=list)
    items: dict[str, ItemStart] = Field(default_factory=dict)
    init_d10: int | None = Field(None, ge=1, le=10)
    init_total: int | None = None


class GrappleStart(StrictModel):
    """A grapple that already exists (REI-7.5-7.13)."""

    holder: str
    held: str
    state: Literal["hold", "pin"] = "hold"
    hold_margin: int = Field(1, ge=1)
    pin_margin: int = Field(0, ge=0)
    with_: str | None = Field(None, alias="with")

    model_config = {**StrictModel.model_config, "populate_by_name": True}


class DoorStart(StrictModel):
    """A door state override."""

    at: Cell
    door: Literal["open", "closed"]


class StartSpec(StrictModel):
    """Mid-combat start (see the module docstring)."""

    round: int = Field(1, ge=1)
    order: list[str]
    actor: str | None = None
    fresh_turn: bool = True
    reorder_pending: bool = False
    combatants: dict[str, FighterStart] = Field(default_factory=dict)
    grapples: list[GrappleStart] = Field(default_factory=list)
    doors: list[DoorStart] = Field(default_factory=list)


class ReincarnatorEncounter(EncounterBase):
    """A reincarnator encounter."""

    ruleset: Literal["reincarnator"]
    options: ReincarnatorOptions = Field(default_factory=ReincarnatorOptions)
    map: MapSpec = Field(default_factory=MapSpec)
    combatants: list[CombatantSpec] = Field(min_length=2)
    vehicles: list[VehicleSpec] = Field(default_factory=list)
    surprise: SurpriseSpec | None = None
    reinforcements: list[Reinforcement] = Field(default_factory=list)
    start: StartSpec | None = None

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> ReincarnatorEncounter:
        """Validate fields with pydantic, then cross-field checks that name the offending field path."""
        enc = super().model_validate(obj, **kwargs)
        enc._check()
        return enc

    def all_specs(self) -> list[CombatantSpec]:
        """Roster order: the combatants, then reinforcements in file order."""
        return list(self.combatants) + [c for r in self.reinforcements for c in r.combatants]

    def named_entries(self) -> list[tuple[tuple[str | int, ...], str]]:
        """The roster, the reinforcements and the vehicles: a vehicle is a target named by its id too."""
        return [*super().named_entries(),
                *((("reinforcements", i, "combatants", j), c.id) for i, r in enumerate(self.reinforcements)
                  for j, c in enumerate(r.combatants)),
                *((("vehicles", i), v.id) for i, v in enumerate(self.vehicles))]

    def _check(self) -> None:  # noqa: C901 - one pass over every cross-reference
        w, h = self.map.width, self.map.height

        def fail(path: str, msg: str, expected: str | None = None, actual: Any = None) -> None:
            raise EncounterError(msg, path=path, expected=expected, actual=actual)

        def on_map(cell: Any, path: str) -> None:
            if not (0 <= cell[0] < w and 0 <= cell[1] < h):
                fail(path, "cell off the map", f"0 <= x < {w} and 0 <= y < {h}", list(cell))

        def combatants_in(path: str, named: list[str]) -> None:
            for j, a in enumerate(named):
                if a not in ids:
                    fail(f"{path}[{j}]", "unknown combatant", "a combatant id", a)

        blocked: set[Cell] = set()
        for i, cs in enumerate(self.map.cells):
            where = f"map.cells[{i}].{'at' if cs.at is not None else 'area'}"
            for corner in cs.area or ():  # corners first: an area's cells are listed only once it lies on the map
                on_map(corner, where)
            for c in cs.cells():
                on_map(c, where)
                if cs.terrain == "wall" or cs.object is not None:
                    blocked.add(c)
        for i, it in enumerate(self.map.items):
            if not isinstance(it.location, tuple):
                fail(f"map.items[{i}].location", "a map item lies on a cell", "[x, y]", it.location)
            on_map(it.location, f"map.items[{i}].location")
        specs = self.all_specs()
        ids = {sp.id for sp in specs}  # each its own, and none a vehicle's (the kernel's `named_entries` check)
        vids = {v.id for v in self.vehicles}
        sides = {c.side for c in specs}
        for i, sp in enumerate(specs):
            where = f"combatants[{i}]" if i < len(self.combatants) else f"reinforcements (id '{sp.id}')"
            if sp.position is None and sp.in_vehicle is None:
                fail(f"{where}.position", "missing position", "[x, y]")
            if sp.position is not None:
                on_map(sp.position, f"{where}.position")
                if tuple(sp.position) in blocked:
                    fail(f"{where}.position", "position on a wall or object", "an enterable cell", list(sp.position))
            if sp.in_vehicle is not None and sp.in_vehicle not in vids:
                fail(f"{where}.in_vehicle", "unknown vehicle", "one of " + ", ".join(sorted(vids)) or "none",
                     sp.in_vehicle)
            for j, it in enumerate(sp.items):
                if isinstance(it.location, tuple):
                    fail(f"{where}.items[{j}].location", "carried items are held, reachable or stowed",
                         "held, reachable or stowed", list(it.location))
            cov = sp.start.in_cover
            if isinstance(cov, tuple):
                on_map(cov, f"{where}.start.in_cover")
        for i, v in enumerate(self.vehicles):
            on_map(v.position, f"vehicles[{i}].position")
            if v.driver is not None and v.driver not in ids:
                fail(f"vehicles[{i}].driver", "unknown combatant", "a combatant id", v.driver)
        if self.surprise is not None:
            if self.surprise.side not in sides:
                fail("surprise.side", "unknown side", "one of " + ", ".join(sorted(sides)), self.surprise.side)
            combatants_in("surprise.ambushers", self.surprise.ambushers or [])
            combatants_in("surprise.alert", self.surprise.alert)
        if self.start is not None:
            st = self.start
            combatants_in("start.order", st.order)
            if st.actor is not None and st.actor not in st.order:
                fail("start.actor", "the actor must be in start.order", "an id of start.order", st.actor)
            for cid, fs in st.combatants.items():
                if cid not in ids:
                    fail(f"start.combatants.{cid}", "unknown combatant", "a combatant id", cid)
                if fs.cell is not None:
                    on_map(fs.cell, f"start.combatants.{cid}.cell")
            for j, g in enumerate(st.grapples):
                for role in ("holder", "held"):
                    if getattr(g, role) not in ids:
                        fail(f"start.grapples[{j}].{role}", "unknown combatant", "a combatant id", getattr(g, role))
            for j, d in enumerate(st.doors):
                on_map(d.at, f"start.doors[{j}].at")
