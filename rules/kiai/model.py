"""Encounter, options and mid-combat start models of `kiai` (spec sections 3, 4 and 5).

Combatants may start from a stat-block template of ``data/statblocks.yaml`` and may name weapons,
armour and abilities by library id (``data/*.yaml``); every field written in the encounter wins.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from trpg_arena.rules.core.encounter import EncounterBase, StrictModel, located
from trpg_arena.rules.core.library import entry, over_entry, read_table

DATA = Path(__file__).parent / "data"

WEAPON_LIBRARY = read_table(DATA / "weapons.yaml")
ARMOUR_LIBRARY = read_table(DATA / "armour.yaml")
ABILITY_LIBRARY = read_table(DATA / "abilities.yaml")
STATBLOCKS = read_table(DATA / "statblocks.yaml")

Hex = tuple[int, int]
Level = Literal["light", "moderate", "serious", "mortal"]
LEVELS: tuple[Level, ...] = ("light", "moderate", "serious", "mortal")


def _keys(v: dict[str, Any], allowed: tuple[str, ...]) -> None:
    bad = sorted(set(v) - set(allowed))
    if bad:
        raise ValueError(f"unknown level(s) {bad}; expected keys among {list(allowed)}")


class KiaiOptions(StrictModel):
    """Option flags of section 3 (every one with its spec default)."""

    turn_order: Literal["clockwise", "descending"] = "clockwise"
    fumble_min: int = Field(96, ge=2, le=101)
    crit_divisor: int = Field(10, ge=1)
    separate_spirit_pool: bool = False
    explosion_chain: bool = True
    explode_defense: bool = False
    level_up_requires_penetration: bool = True
    damage_level_multipliers: dict[str, float] = Field(
        default_factory=lambda: {"light": 0.5, "moderate": 1, "serious": 2, "mortal": 3, "dead": 4})
    wound_boxes: dict[str, int] = Field(
        default_factory=lambda: {"light": 1, "moderate": 1, "serious": 1, "mortal": 1})
    wound_penalties: dict[str, int] = Field(
        default_factory=lambda: {"light": 0, "moderate": -10, "serious": -20})
    run_allows_action: bool = False
    ad_tie_winner: Literal["defender", "attacker"] = "defender"
    counter_requires_winning: bool = True
    reattack_requires_attack: bool = True
    feint_multiple_hits: bool = False
    technique_step: int = Field(10, ge=1)
    technique_chain_dodge_reduction: bool = True
    charge_min_distance: int = Field(2, ge=1)
    break_restrictions: bool = True
    ability_damage_base: Literal["attack_value", "none"] = "attack_value"
    status_duration: Literal["level"] | int = "level"
    illusion_penalty: int = Field(20, ge=0)
    round_cap: int | None = Field(None, ge=1, le=1000)  # a game must end: a cap of a billion rounds would not

    @field_validator("damage_level_multipliers")
    @classmethod
    def _increasing(cls, v: dict[str, float]) -> dict[str, float]:
        _keys(v, ("light", "moderate", "serious", "mortal", "dead"))
        full = {"light": 0.5, "moderate": 1, "serious": 2, "mortal": 3, "dead": 4, **v}
        seq = [full[k] for k in ("light", "moderate", "serious", "mortal", "dead")]
        if any(b <= a for a, b in zip(seq, seq[1:])) or seq[0] <= 0:
            raise ValueError("multipliers must be positive and strictly increasing light < ... < dead")
        return full

    @field_validator("wound_boxes")
    @classmethod
    def _boxes(cls, v: dict[str, int]) -> dict[str, int]:
        _keys(v, LEVELS)
        full = {"light": 1, "moderate": 1, "serious": 1, "mortal": 1, **v}
        if any(not 1 <= n <= 100 for n in full.values()):  # a billion boxes: nobody could ever fall
            raise ValueError("every level needs 1 to 100 boxes")
        return full

    @field_validator("wound_penalties")
    @classmethod
    def _penalties(cls, v: dict[str, int]) -> dict[str, int]:
        _keys(v, ("light", "moderate", "serious"))
        full = {"light": 0, "moderate": -10, "serious": -20, **v}
        if any(n > 0 for n in full.values()):
            raise ValueError("wound penalties must be 0 or negative")
        return full

    @field_validator("status_duration")
    @classmethod
    def _duration(cls, v: Any) -> Any:
        if isinstance(v, int) and v < 1:
            raise ValueError("status_duration must be 'level' or an integer >= 1")
        return v


class Weapon(StrictModel):
    """A weapon (section 4.2)."""

    id: str
    name: str = ""
    level: int = Field(ge=0, le=10)
    category: Literal["sword", "dagger", "axe", "mace", "spear", "lance", "other"] = "other"
    hands: Literal[1, 2] = 1
    reach: int = Field(1, ge=1, le=3)
    magic: bool = False


class Armour(StrictModel):
    """Armour (KIA-6.1): its level is the number of defense dice."""

    name: str = "none"
    level: int = Field(0, ge=0, le=10)


class Ability(StrictModel):
    """A technique or spell (section 4.3)."""

    id: str
    name: str = ""
    kind: Literal["technique", "spell"]
    level: int = Field(ge=1, le=10)
    effect: Literal["damage", "stun", "intimidate", "illusion"]
    delivery: Literal["melee", "touch", "ranged", "area"]
    range: int | None = Field(None, ge=0, le=30)

    @model_validator(mode="after")
    def _delivery(self) -> Ability:
        if self.delivery == "melee" and self.kind != "technique":
            raise ValueError("only techniques can have delivery 'melee'")
        if self.delivery == "ranged" and (self.range is None or self.range < 1):
            raise ValueError("a ranged ability needs range >= 1")
        if self.delivery == "area" and self.range is None:
            raise ValueError("an area ability needs a range (0 = centred on the user)")
        return self


def _from_library(value: Any, library: dict[str, dict[str, Any]], what: str) -> Any:
    if isinstance(value, str):
        return {"id": value, **entry(library, value, what)}
    if isinstance(value, dict) and isinstance(value.get("id"), str) and value["id"] in library:
        return {"id": value["id"], **library[value["id"]], **value}
    return value


class Combatant(StrictModel):
    """A combatant's stat block (section 4.1)."""

    id: str
    name: str = ""
    side: str
    kind: Literal["pc", "npc"] = "npc"  # the one spelling of every system (a person plays a "pc")
    seat: int | None = None
    position: Hex
    hit: int = Field(ge=0, le=200)
    dodge: int = Field(ge=0, le=200)
    attack: int = Field(ge=0, le=200)
    defense: int = Field(ge=0, le=200)
    life: int = Field(ge=1, le=200)
    agility: int = Field(ge=0, le=60)
    quickness: int | None = Field(None, ge=0, le=60)
    dexterity: int = Field(10, ge=0, le=100)
    strength: int = Field(10, ge=0, le=100)
    resistance: int = Field(10, ge=0, le=100)
    intelligence: int = Field(10, ge=0, le=100)
    initiative: int = Field(0, ge=0, le=50)
    magic_attack: int = Field(0, ge=0, le=200)
    magic_defense: int = Field(0, ge=0, le=200)
    kiai: int = Field(0, ge=0, le=200)
    spirit: int = Field(0, ge=0, le=200)
    quick_attack: int = Field(0, ge=0, le=10)
    airborne: bool = False
    dragon_knight: bool = False
    weapons: list[Weapon] = Field(default_factory=list)
    main: str | None = "<first>"
    off_hand: str | None = None
    armour: Armour = Field(default_factory=Armour)
    abilities: list[Ability] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _template(cls, data: Any) -> Any:
        if isinstance(data, dict) and "pc" in data:
            raise located(("pc",), "'pc: true' is the old spelling: write 'kind: pc' (or 'kind: npc')", data["pc"])
        return over_entry(data, "template", STATBLOCKS, "template")

    @field_validator("weapons", "abilities", mode="before")
    @classmethod
    def _from_libraries(cls, v: Any, info: ValidationInfo) -> Any:
        library, what = (WEAPON_LIBRARY, "weapon") if info.field_name == "weapons" else (ABILITY_LIBRARY, "ability")
        return [_from_library(x, library, what) for x in v] if isinstance(v, list) else v

    @field_validator("armour", mode="before")
    @classmethod
    def _armour(cls, v: Any) -> Any:
        if isinstance(v, str):
            return dict(entry(ARMOUR_LIBRARY, v, "armour"))
        return v

    @model_validator(mode="after")
    def _hands(self) -> Combatant:
        ids, abilities = [w.id for w in self.weapons], [a.id for a in self.abilities]
        for field, what, named in (("weapons", "weapon", ids), ("abilities", "ability", abilities)):
            for i, x in enumerate(named):
                if x in named[:i]:
                    raise located((field, i, "id"), f"{what} id '{x}' is used twice by this combatant", x)
        if self.main == "<first>":
            self.main = ids[0] if ids else None
        by = {w.id: w for w in self.weapons}
        if self.main is not None and self.main not in by:
            have = ", ".join(ids) or "none"
            raise located(("main",), f"'{self.main}' is not one of the combatant's weapons ({have})", self.main)
        if self.off_hand is not None:
            if self.off_hand not in by:
                raise located(("off_hand",), f"'{self.off_hand}' is not one of the combatant's weapons", self.off_hand)
            if self.off_hand == self.main:
                raise located(("off_hand",), "the off hand cannot hold the main-hand weapon", self.off_hand)
            if by[self.off_hand].hands != 1:
                raise located(("off_hand",), "the off hand must hold a one-handed weapon", self.off_hand)
            if self.main is not None and by[self.main].hands == 2:
                raise located(("off_hand",), "must be null when the main weapon is two-handed", self.off_hand)
        return self


class MapSpec(StrictModel):
    """The hex map (section 5): odd-r offset [col, row], 1 hex = 1 m."""

    layout: Literal["hex_odd_r"] = "hex_odd_r"
    width: int = Field(ge=1, le=64)
    height: int = Field(ge=1, le=64)
    difficult: list[Hex] = Field(default_factory=list)
    blocked: list[Hex] = Field(default_factory=list)
    exits: list[Hex] = Field(default_factory=list)

    @model_validator(mode="after")
    def _inside(self) -> MapSpec:
        for name in ("difficult", "blocked", "exits"):
            for i, h in enumerate(getattr(self, name)):
                if not (0 <= h[0] < self.width and 0 <= h[1] < self.height):
                    raise located((name, i), f"hex {list(h)} is outside the {self.width} x {self.height} map",
                                  list(h))
        return self


class StartCondition(StrictModel):
    """A condition at a mid-combat start (section 8)."""

    type: Literal["stunned", "intimidated", "deceived", "exposed_all_out", "exposed_charge", "running",
                  "concentrating"]
    source: str | None = None
    n: int = Field(-1, ge=-1)  # remaining turns; -1 = until the start of its next turn
    mode: str | None = None


class GroundWeapon(StrictModel):
    """A weapon lying on the ground at a mid-combat start: ``owner/weapon_id`` at a hex."""

    hex: Hex
    weapon: str


class StartCombatant(StrictModel):
    """Per-combatant state at a mid-combat start; absent fields keep the stat block's values."""

    position: Hex | None = None
    wounds: dict[Level, int] = Field(default_factory=dict)
    dead: bool = False
    fled: bool = False
    kiai: int | None = Field(None, ge=0)
    spirit: int | None = Field(None, ge=0)
    main: str | None = "<keep>"
    off_hand: str | None = "<keep>"
    carried: list[str] | None = None
    conditions: list[StartCondition] = Field(default_factory=list)
    attacked_this_round: bool = False
    parry_used: bool = False
    countered: bool = False
    ran_this_round: bool = False


class StartState(StrictModel):
    """A mid-combat start: round, turn order, whose turn (or round start / re-attack phase), per-combatant state.

    Fields: ``round`` (>= 1); ``phase`` (``turn``: at the current actor's turn start, ``round_start``:
    before the initiative of ``round``, ``reattack``: at the re-attack phase of ``round``); ``order``
    (combatant ids, default seat order); ``current`` (whose turn, default the first of ``order``);
    ``combatants`` (id -> `StartCombatant`); ``ground`` (weapons lying on the map, named
    ``owner/weapon_id``).
    """

    round: int = Field(1, ge=1)
    phase: Literal["turn", "round_start", "reattack"] = "turn"
    order: list[str] | None = None
    current: str | None = None
    combatants: dict[str, StartCombatant] = Field(default_factory=dict)
    ground: list[GroundWeapon] = Field(default_factory=list)


class KiaiEncounter(EncounterBase):
    """A `kiai` encounter: map, combatants, options, optional round cap and mid-combat start."""

    ruleset: Literal["kiai"]
    options: KiaiOptions = Field(default_factory=KiaiOptions)
    map: MapSpec
    combatants: list[Combatant] = Field(min_length=1)
    round_cap: int | None = Field(None, ge=1, le=1000)  # a game must end: a cap of a billion rounds would not
    start: StartState | None = None

    @model_validator(mode="after")
    def _roster(self) -> KiaiEncounter:
        seats: list[int] = []
        for i, c in enumerate(self.combatants):
            seat = c.seat if c.seat is not None else i
            if seat in seats:
                raise located(("combatants", i, "seat"), f"seat {seat} is taken by another combatant", seat)
            seats.append(seat)
        blocked = {(h[0], h[1]) for h in self.map.blocked}
        taken: dict[tuple[int, int], str] = {}
        for i, c in enumerate(self.combatants):
            p = (c.position[0], c.position[1])
            loc: tuple[str | int, ...] = ("combatants", i, "position")
            if not (0 <= p[0] < self.map.width and 0 <= p[1] < self.map.height):
                raise located(loc, f"hex {list(p)} is outside the {self.map.width} x {self.map.height} map", list(p))
            if p in blocked:
                raise located(loc, f"hex {list(p)} is blocked", list(p))
            if p in taken:
                raise located(loc, f"hex {list(p)} is already taken by '{taken[p]}'", list(p))
            taken[p] = c.id
        if self.start is not None:
            self._check_start({c.id for c in self.combatants})
        return self

    def _check_start(self, ids: set[str]) -> None:
        st = self.start
        assert st is not None
        for cid in st.combatants:
            if cid not in ids:
                raise located(("start", "combatants", cid), f"unknown combatant '{cid}'", cid)
        if st.order is not None:
            for i, cid in enumerate(st.order):
                if cid not in ids or cid in st.order[:i]:
                    raise located(("start", "order", i), f"'{cid}' is not a distinct combatant id", cid)
        if st.current is not None and st.current not in (st.order or ids):
            raise located(("start", "current"), f"'{st.current}' is not in the turn order", st.current)
        keys = {f"{c.id}/{w.id}" for c in self.combatants for w in c.weapons}
        for i, g in enumerate(st.ground):
            if g.weapon not in keys:
                raise located(("start", "ground", i, "weapon"), f"'{g.weapon}' is not 'owner/weapon_id' of a weapon",
                              g.weapon)
        for cid, sc in st.combatants.items():
            for name in ("main", "off_hand"):
                v = getattr(sc, name)
                if v not in (None, "<keep>") and v not in keys and f"{cid}/{v}" not in keys:
                    raise located(("start", "combatants", cid, name), f"'{v}' is not a known weapon", v)
