"""Pydantic models of a reincarnator encounter: options, map, combatants, vehicles and the ``start`` section.

Items, stat blocks and spells may name entries of the data library (``rules/reincarnator/data``):
an item given as a string (``"sword"``) or as ``{use: sword, location: reachable}`` copies the library
entry; a combatant with ``stat_block: human`` copies that stat block (its own fields win). Unknown
names are errors located at the field.

The encounter itself and its ``start`` section live in ``encounter.py``.
"""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator

from trpg_arena.rules.core.encounter import StrictModel
from trpg_arena.rules.core.library import entry, over_entry, read_table

DATA = Path(__file__).parent / "data"


WEAPON_LIBRARY: dict[str, dict[str, Any]] = read_table(DATA / "weapons.yaml")
STAT_BLOCKS: dict[str, dict[str, Any]] = read_table(DATA / "stat_blocks.yaml")
SPELL_LIBRARY: dict[str, dict[str, Any]] = read_table(DATA / "spells.yaml")
VEHICLE_LIBRARY: dict[str, dict[str, Any]] = read_table(DATA / "vehicles.yaml")

Cell = tuple[int, int]
ItemKind = Literal["natural", "melee", "firearm", "bow", "crossbow", "gauss", "launcher", "thrown", "consumable",
                   "object", "cluster"]
ReloadKind = Literal["magazine", "lever", "speedloader", "revolver", "shell", "bow", "crossbow", "bolt_action",
                     "musket", "launcher"]
Modifier = Literal["attack_dp", "base_defense", "dodge_defense", "base_initiative", "bonus_es"]
Duration = Literal["scene", "until_turn_start", "combat"]


# Upper bounds of the numbers a file may give. The rules set none, but a pool of a billion dice or a walk of a
# billion metres would hold a process (or the server) for ever; each bound is far above the built-in data.
DICE = 30  # anything added to or taken from a pool, a defence or an initiative: the attributes' own limit
METRES = 200  # a speed or a blast radius (the largest board is 64 x 64 m)
RANGE = 10_000  # a weapon's or spell's range, the visibility
HEALTH = 200  # health boxes, damage taken, a hull's structure
SIZE = 100  # an item's size
ROUNDS = 1_000  # a magazine, the rounds in it and the spares


class ReincarnatorOptions(StrictModel):
    """Option flags of section 3 (every default is the spec's)."""

    success_threshold: int = Field(8, ge=2, le=10)
    again_threshold: int = Field(10, ge=8, le=11)
    chance_die_explodes: bool = False
    extra_successes: bool = True
    es_action_grants: bool = True
    tier_substitution: bool = True
    surprise_single_attacker: bool = False
    base_defense_vs_ranged: bool = True
    high_speed_rule: Literal["reduce_dodge", "off"] = "reduce_dodge"
    cover_directional: bool = False
    prone_attacker_melee_penalty: int = Field(0, ge=0, le=10)
    hidden_targetable: bool = True
    bull_rush_defenses_apply: bool = False
    grapple_resist_choice: Literal["decision", "policy"] = "decision"
    wound_penalties: bool = True
    vehicle_accel_multiplier: int = Field(2, ge=1, le=5)
    blast_dodge: bool = True
    diagonal_rule: Literal["chebyshev", "alternating"] = "chebyshev"
    round_cap: int = Field(20, ge=1, le=200)


class AmmoSpec(StrictModel):
    """Ammunition of a ranged weapon (REI-2.13, 2.15, 2.16)."""

    capacity: int = Field(1, ge=1, le=ROUNDS)
    loaded: int = Field(0, ge=0, le=ROUNDS)
    spares: int = Field(0, ge=0, le=ROUNDS)
    reload_kind: ReloadKind = "magazine"
    chambered: bool = True
    shell: ExplosiveSpec | None = None  # a launcher's explosive shell

    @model_validator(mode="after")
    def _fits(self) -> AmmoSpec:
        if self.loaded > self.capacity:
            raise ValueError(f"loaded {self.loaded} exceeds capacity {self.capacity}")
        return self


class ExplosiveSpec(StrictModel):
    """An explosive charge: blast dice and radius (REI-8.1)."""

    blast: int = Field(ge=1, le=DICE)
    radius_m: int = Field(0, ge=0, le=METRES)


class ItemEffectSpec(StrictModel):
    """What a consumable does (REI-2.12): heal bashing points and/or add a timed modifier effect."""

    heal_bashing: int = Field(0, ge=0, le=HEALTH)
    attack_dp: int = Field(0, ge=-DICE, le=DICE)
    base_defense: int = Field(0, ge=-DICE, le=DICE)
    dodge_defense: int = Field(0, ge=-DICE, le=DICE)
    base_initiative: int = Field(0, ge=-DICE, le=DICE)
    bonus_es: int = Field(0, ge=-DICE, le=DICE)
    duration: Duration = "scene"


def _library_item(value: Any) -> Any:
    if isinstance(value, str):
        value = {"use": value}
    if isinstance(value, dict) and "use" in value:
        value = dict(value)
        ref = value.pop("use")
        merged = {"id": ref, **entry(WEAPON_LIBRARY, ref, "weapon or item")}
        merged.update(value)
        return merged
    return value


class ItemSpec(StrictModel):
    """A weapon or item (section 4.2)."""

    id: str = Field(min_length=1)
    name: str = ""
    kind: ItemKind
    damage: int = Field(0, ge=0, le=DICE)
    damage_type: Literal["bashing", "lethal"] | None = None
    lethal: bool = False
    specialty: str = ""
    size: int = Field(0, ge=0, le=SIZE)
    hands: int = Field(1, ge=1, le=2)
    reach: int = Field(1, ge=1, le=3)
    range_m: int | None = Field(None, ge=1, le=RANGE)
    high_speed: int | None = Field(None, ge=0, le=DICE)
    penetration: int = Field(0, ge=0, le=DICE)
    grab_suited: bool = False
    soft: bool = False
    heavy: bool = False
    ammo: AmmoSpec | None = None
    burst: int = Field(1, ge=1, le=DICE)
    explosive: ExplosiveSpec | None = None
    components: list[ExplosiveSpec] = Field(default_factory=list)
    effect: ItemEffectSpec | None = None
    location: Literal["held", "reachable", "stowed"] | Cell = "held"

    @property
    def dtype(self) -> str:
        """Damage type with the natural-weapon default (REI-4.3)."""
        if self.damage_type is not None:
            return self.damage_type
        return "bashing" if self.kind in ("natural", "object") else "lethal"

    @property
    def is_ranged(self) -> bool:
        """Shot with the shooting pool (REI-4.5)."""
        return self.kind in ("firearm", "bow", "crossbow", "gauss", "launcher")

    @property
    def drawable(self) -> bool:
        """A weapon carried in a sheath/holster/sling (REI-2.13)."""
        return self.kind in ("melee", "firearm", "bow", "crossbow", "gauss", "launcher")

    @property
    def blast(self) -> bool:
        """An explosive or cluster delivered at a cell (REI-8.1)."""
        return self.explosive is not None or self.kind == "cluster"

    @model_validator(mode="after")
    def _consistent(self) -> ItemSpec:
        if self.is_ranged and self.range_m is None:
            raise ValueError(f"ranged weapon '{self.id}' needs range_m")
        if self.is_ranged and self.ammo is None:
            raise ValueError(f"ranged weapon '{self.id}' needs ammo")
        if self.kind == "cluster" and not self.components:
            raise ValueError(f"cluster '{self.id}' needs components")
        return self


LibItem = Annotated[ItemSpec, BeforeValidator(_library_item)]


class EffectSpec(StrictModel):
    """A timed effect with signed modifiers (section 4.3, REI-0.3)."""

    name: str
    duration: Duration = "scene"
    modifiers: dict[Modifier, Annotated[int, Field(ge=-DICE, le=DICE)]] = Field(default_factory=dict)


class AbilitySpec(StrictModel):
    """A purchased ability used by the core rules."""

    kind: Literal["reflex_step", "ignore_difficult_terrain", "immune_immobilize", "greater_off_guard"]
    distance_m: int = Field(1, ge=1, le=10)


class SpellSpec(StrictModel):
    """An attack spell (REI-4.15)."""

    id: str
    name: str = ""
    power: int = Field(0, ge=0, le=DICE)
    range_m: int = Field(30, ge=1, le=RANGE)
    damage_type: Literal["bashing", "lethal"] = "lethal"
    high_speed: int = Field(0, ge=0, le=DICE)
    penetration: int = Field(0, ge=0, le=DICE)
    specialty: str = "casting"


def _library_spell(value: Any) -> Any:
    if isinstance(value, str):
        return {"id": value, **entry(SPELL_LIBRARY, value, "spell")}
    return value


LibSpell = Annotated[SpellSpec, BeforeValidator(_library_spell)]


class Attributes(StrictModel):
    """STR, DEX, INT, COM, STA (REI-3.3 extra successes from 6 up)."""

    # Required, like the whole block (spec 4.1 gives no default): a stat block without them is a mistake.
    str: builtins.int = Field(ge=0, le=30)
    dex: builtins.int = Field(ge=0, le=30)
    int: builtins.int = Field(ge=0, le=30)
    com: builtins.int = Field(ge=0, le=30)
    sta: builtins.int = Field(ge=0, le=30)


class Skills(StrictModel):
    """The six skills (0-10)."""

    martial: int = Field(0, ge=0, le=10)
    athletics: int = Field(0, ge=0, le=10)
    lore: int = Field(0, ge=0, le=10)
    tools: int = Field(0, ge=0, le=10)
    stealth: int = Field(0, ge=0, le=10)
    insight: int = Field(0, ge=0, le=10)


class CombatantStartCond(StrictModel):
    """Starting conditions and damage of a stat block (section 4.1 ``start``)."""

    prone: bool = False
    crouching: bool = False
    in_cover: Cell | str | None = None
    hidden: bool = False
    lethal: int = Field(0, ge=0, le=HEALTH)
    bashing: int = Field(0, ge=0, le=HEALTH)
    status: Literal["active", "unconscious", "dying", "dead"] | None = None


UNARMED = {"id": "unarmed", "kind": "natural", "damage": 0, "damage_type": "bashing", "specialty": "brawl",
           "reach": 1}


class CombatantSpec(StrictModel):
    """A combatant stat block (section 4.1)."""

    id: str = Field(min_length=1)
    name: str = ""
    side: str = Field(min_length=1)
    kind: Literal["pc", "npc"] = "npc"
    attributes: Attributes
    size: int = Field(5, ge=1, le=30)
    skills: Skills = Field(default_factory=Skills)
    specialties: dict[str, int] = Field(default_factory=dict)
    base_defense: int = Field(ge=0, le=DICE)
    base_defense_es: int = Field(0, ge=0, le=DICE)
    dodge_defense: int = Field(0, ge=0, le=DICE)
    base_initiative: int | None = Field(None, ge=-DICE, le=2 * DICE)
    speed_m: int | None = Field(None, ge=1, le=METRES)
    max_health: int | None = Field(None, ge=1, le=HEALTH)
    trick_actions: int = Field(0, ge=0, le=5)
    acrobatic_actions: int = Field(0, ge=0, le=5)
    hands: int = Field(2, ge=0, le=8)
    called_shot_reduction: int = Field(0, ge=0, le=DICE)
    abilities: list[AbilitySpec] = Field(default_factory=list)
    natural_weapons: list[LibItem] = Field(default_factory=lambda: [ItemSpec(**UNARMED)])
    items: list[LibItem] = Field(default_factory=list)
    spells: list[LibSpell] = Field(default_factory=list)
    effects: list[EffectSpec] = Field(default_factory=list)
    position: Cell | None = None
    start: CombatantStartCond = Field(default_factory=CombatantStartCond)
    in_vehicle: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _stat_block(cls, data: Any) -> Any:
        return over_entry(data, "stat_block", STAT_BLOCKS, "stat block")

    @field_validator("natural_weapons", mode="before")
    @classmethod
    def _naturals(cls, v: Any) -> Any:
        if not isinstance(v, list):
            return v
        out = list(v)
        if not any((isinstance(x, dict) and x.get("id") == "unarmed") or x == "unarmed" for x in out):
            out.insert(0, dict(UNARMED))
        return out

    @field_validator("specialties")
    @classmethod
    def _spec_range(cls, v: dict[str, int]) -> dict[str, int]:
        for k, r in v.items():
            if not 0 <= r <= 10:
                raise ValueError(f"specialty '{k}' rating {r} outside 0..10")
        return v

    def has(self, kind: str) -> bool:
        """Whether the combatant has an ability of this kind."""
        return any(a.kind == kind for a in self.abilities)


class ObjectSpec(StrictModel):
    """A map object: impassable, gives cover (REI-5.11)."""

    name: str = "object"
    cover: int = Field(3, ge=1, le=5)
    blocks_los: bool = False


class CellSpec(StrictModel):
    """Attributes of one cell (``at``) or a rectangle (``area``, corners inclusive)."""

    at: Cell | None = None
    area: tuple[Cell, Cell] | None = None
    terrain: Literal["open", "difficult", "wall", "climbable", "gap"] | None = None
    door: Literal["open", "closed"] | None = None
    object: ObjectSpec | None = None
    exit: bool | None = None

    @model_validator(mode="after")
    def _where(self) -> CellSpec:
        if (self.at is None) == (self.area is None):
            raise ValueError("give exactly one of 'at' or 'area'")
        return self

    def cells(self) -> list[Cell]:
        """Every cell this entry covers."""
        if self.at is not None:
            return [self.at]
        assert self.area is not None
        (x1, y1), (x2, y2) = self.area
        return [(x, y) for y in range(min(y1, y2), max(y1, y2) + 1) for x in range(min(x1, x2), max(x1, x2) + 1)]


class MapSpec(StrictModel):
    """The battlefield (section 5)."""

    width: int = Field(12, ge=2, le=64)
    height: int = Field(12, ge=2, le=64)
    cells: list[CellSpec] = Field(default_factory=list)
    items: list[LibItem] = Field(default_factory=list)
    visibility_m: int | None = Field(None, ge=1, le=RANGE)
    edge_exits: bool = True


class VehicleSpec(StrictModel):
    """A vehicle (section 4.3)."""

    id: str
    name: str = ""
    side: str | None = None
    size: int = Field(8, ge=1, le=30)
    speed_m: int = Field(16, ge=1, le=METRES)
    structure: int = Field(12, ge=1, le=HEALTH)
    base_defense: int = Field(0, ge=0, le=DICE)
    dodge_defense: int = Field(0, ge=0, le=DICE)
    occupant_cover: int = Field(3, ge=0, le=DICE)
    weapons: list[LibItem] = Field(default_factory=list)
    driver: str | None = None
    position: Cell

    @model_validator(mode="before")
    @classmethod
    def _library(cls, data: Any) -> Any:
        return over_entry(data, "use", VEHICLE_LIBRARY, "vehicle")



class SurpriseSpec(StrictModel):
    """The surprise round (REI-1.1)."""

    side: str
    ambushers: list[str] | None = None
    alert: list[str] = Field(default_factory=list)


class Reinforcement(StrictModel):
    """Combatants joining at the start of a round (REI-2.5)."""

    round: int = Field(ge=2, le=200)
    combatants: list[CombatantSpec]


AmmoSpec.model_rebuild()
