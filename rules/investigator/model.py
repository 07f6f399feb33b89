"""Encounter, options and mid-combat start models of the investigator rule system (spec sections 4, 5, 10).

Every section is a strict pydantic model, so unknown fields and bad values are located errors. References
between sections (weapon, spell and technique ids, squares on the map, ids in ``start``) are checked after
the shapes by `InvestigatorEncounter._references`, which reports the exact field path of the first problem.

The ``start`` section (mid-combat start) fixes where a combat begins:

- ``round`` (int >= 1) and ``phase`` (``cast``, ``shoot``, ``general`` or ``single``): the pass to begin with;
- ``at`` (combatant id, optional): the pass begins at this combatant's place in the order (default: the top);
- ``order`` (list of every combatant id, optional): the initiative order; when given no tie-break dice are drawn;
- ``combatants`` (map id -> `StartCombatant`): per-combatant state: ``position``, ``hp``, ``mp``, ``luck``,
  ``conditions`` (``prone``, ``unconscious``, ``dying``, ``dead``, ``major_wound``, ``untreated_wound``,
  ``full_mov_lockout``, ``lose_next_standard``), slots (``prepare_used``, ``move_used``, ``standard_used``,
  ``opportunity_used``, ``had_turn``), ``dying_since``, ``channeling`` ({spell, target, done}),
  ``pending_bonus`` ({bonus_to, expires}), inventory (``loaded``/``jammed``/``count`` per weapon template id,
  ``wielded``, ``ammo``, ``materials``), ``moved_long`` and ``steps_this_turn``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from trpg_arena.rules.core.encounter import EncounterBase, StrictModel, located

Cell = tuple[int, int]
_DICE = re.compile(r"^\s*[+-]?\s*(\d+[dD]\d+|\d+)(\s*[+-]\s*(\d+[dD]\d+|\d+))*\s*$")
_ID = re.compile(r"^[A-Za-z0-9_.\-]+$")


def _dice(v: str | int) -> str | int:
    if isinstance(v, int):
        return v
    if not _DICE.match(v):
        raise PydanticCustomError("dice", "not a dice expression like '1D6+2' ({v})", {"v": v})
    return v


Dice = Annotated[str, AfterValidator(_dice)]  # a dice expression such as '1D6+2', checked where it is read


class InvestigatorOptions(StrictModel):
    """The option flags of spec section 1 (all defaults as the spec gives them)."""

    priority_mode: Literal["phases", "dex_only", "dex_plus_50"] = "phases"
    max_steps_per_turn: int = Field(1, ge=1, le=8)
    full_mov_restriction: Literal["multi_action_only", "all", "off"] = "multi_action_only"
    full_mov_scope: Literal["rest_of_round", "next_round"] = "rest_of_round"
    range_bands: bool = True
    dive_for_cover: bool = False
    multiple_shots: bool = False
    fight_back: bool = True
    moving_attack_penalty: Literal["difficulty", "penalty_die"] = "difficulty"
    flanking_geometry: Literal["opposite", "diagonal_only"] = "opposite"
    flanking_requires_attack: bool = False
    outnumbered: bool = False
    dodge_thrown: bool = True
    throw_obstruction: bool = True
    pursuit_mode: Literal["reaction", "turn_action"] = "reaction"
    extreme_damage: bool = True
    fumble_policy: Literal["miss_only", "lose_turn"] = "miss_only"
    major_wound_basis: Literal["max_hp", "current_hp"] = "max_hp"
    dying_grace_round: bool = True
    dying_deadline: bool = False
    first_aid_dying_hp: Literal["set_to_1", "plus_1"] = "set_to_1"
    first_aid_wakes: bool = True
    prone_modifiers: bool = False
    round_cap: int = Field(20, ge=1, le=1000)


class Band(StrictModel):
    """An explicit firearm range band (INV-6.2)."""

    max: int = Field(ge=1)
    level: Literal["regular", "hard", "extreme"] = "regular"
    damage: Dice | None = None


class WeaponModel(StrictModel):
    """A weapon template (spec 4.2)."""

    name: str = ""
    kind: Literal["melee", "firearm", "thrown"]
    skill: str
    damage: Dice
    db_mode: Literal["full", "half", "none"] | None = None
    impale: bool = False
    base_range: int | None = Field(None, ge=1)
    bands: list[Band] = Field(default_factory=list)
    capacity: int = Field(0, ge=0)
    loaded: int | None = Field(None, ge=0)
    ammo_type: str = ""
    malfunction: int | None = Field(100, ge=1, le=100)
    shots_per_action: int = Field(1, ge=1, le=6)
    count: int = Field(1, ge=1)


class SpellModel(StrictModel):
    """A spell (spec 4.3)."""

    name: str = ""
    mp_cost: int = Field(ge=0)
    materials: dict[str, int] = Field(default_factory=dict)
    range: int = Field(ge=0)
    casting_rounds: int = Field(1, ge=1, le=10)
    target_rule: Literal["enemy", "ally", "self"]
    effect: Literal["damage", "heal"]
    dice: Dice
    visible_wound: bool = False
    resist: Literal["none", "pow"] = "none"


class TechniqueModel(StrictModel):
    """A prepare technique (spec 4.4)."""

    name: str = ""
    skill: str
    bonus_to: list[Literal["shoot", "throw", "melee", "maneuver", "dodge", "fight_back", "first_aid"]]
    expires: Literal["end_of_turn", "start_of_next_turn"] = "end_of_turn"
    requires: Literal["none", "ranged_ready", "melee_weapon"] = "none"


class TerrainModel(StrictModel):
    """Squares of each non-open terrain (section 5)."""

    obstacle: list[Cell] = Field(default_factory=list)
    wall: list[Cell] = Field(default_factory=list)
    difficult: list[Cell] = Field(default_factory=list)


class GroundItemModel(StrictModel):
    """An item lying on the map at the start: exactly one of weapon / ammo / material."""

    at: Cell
    weapon: str | None = None
    ammo: str | None = None
    material: str | None = None
    count: int = Field(1, ge=1)


class MapModel(StrictModel):
    """The keeper's map (INV-1.6, section 5); the default is 12 x 12 open squares."""

    width: int = Field(12, ge=2, le=40)
    height: int = Field(12, ge=2, le=40)
    terrain: TerrainModel = Field(default_factory=TerrainModel)
    exits: list[Cell] = Field(default_factory=list)
    ground_items: list[GroundItemModel] = Field(default_factory=list)


class CombatantModel(StrictModel):
    """A combatant's stat block (spec 4.1)."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True, extra="forbid", validate_default=True)

    id: str
    name: str = ""
    side: str
    kind: Literal["pc", "npc"] = "npc"  # "investigator" (the rule book's word for a PC) reads as "pc"
    str_: int = Field(50, alias="str", ge=1, le=200)
    con: int = Field(50, ge=1, le=200)
    siz: int = Field(50, ge=1, le=200)
    dex: int = Field(50, ge=1, le=200)
    pow: int = Field(50, ge=1, le=200)
    luck: int | None = Field(None, ge=0, le=99)
    max_hp: int | None = Field(None, ge=1)
    max_mp: int | None = Field(None, ge=0)
    mov: int | None = Field(None, ge=1, le=20)  # the spec sets no maximum; the engine caps a long move at 20
    db: str | int | None = None
    build: int | None = None
    armour: int = Field(0, ge=0)
    standard_actions: int = Field(1, ge=1, le=4)
    skills: dict[str, int] = Field(default_factory=dict)
    weapons: list[str] = Field(default_factory=list)
    wielded: str = "unarmed"
    ammo: dict[str, int] = Field(default_factory=dict)
    materials: dict[str, int] = Field(default_factory=dict)
    spells: list[str] = Field(default_factory=list)
    techniques: list[str] = Field(default_factory=list)
    position: Cell

    @field_validator("kind", mode="before")
    @classmethod
    def _pc_spelling(cls, v: Any) -> Any:
        return "pc" if v == "investigator" else v

    @field_validator("db")
    @classmethod
    def _check_db(cls, v: str | int | None) -> str | int | None:
        return v if v is None else _dice(v)

    @field_validator("id")
    @classmethod
    def _id_chars(cls, v: str) -> str:
        if not _ID.match(v):
            raise PydanticCustomError("id", "ids may use letters, digits, '_', '-' and '.' only")
        return v

    @field_validator("skills")
    @classmethod
    def _skill_range(cls, v: dict[str, int]) -> dict[str, int]:
        for k, x in v.items():
            if not 0 <= x <= 200:
                raise PydanticCustomError("skill", "skill '{k}' must be 0..200, got {x}", {"k": k, "x": x})
        return v


class ChannelModel(StrictModel):
    """A multi-round spell in progress (INV-5.4)."""

    spell: str
    target: str
    done: int = Field(1, ge=1)


class PendingBonusModel(StrictModel):
    """A pending prepare bonus (INV-4.1)."""

    bonus_to: list[Literal["shoot", "throw", "melee", "maneuver", "dodge", "fight_back", "first_aid"]]
    expires: Literal["end_of_turn", "start_of_next_turn"] = "end_of_turn"


class StartCombatant(StrictModel):
    """Per-combatant state at a mid-combat start; every field optional."""

    position: Cell | None = None
    hp: int | None = Field(None, ge=-2)
    mp: int | None = Field(None, ge=0)
    luck: int | None = Field(None, ge=0)
    conditions: list[Literal["prone", "unconscious", "dying", "dead", "major_wound", "untreated_wound",
                             "full_mov_lockout", "lose_next_standard"]] = Field(default_factory=list)
    prepare_used: bool = False
    move_used: bool = False
    standard_used: int = Field(0, ge=0)
    opportunity_used: bool = False
    had_turn: bool = False
    moved_long: bool = False
    steps_this_turn: int = Field(0, ge=0)
    dying_since: int | None = None
    channeling: ChannelModel | None = None
    pending_bonus: PendingBonusModel | None = None
    loaded: dict[str, int] = Field(default_factory=dict)
    jammed: list[str] = Field(default_factory=list)
    count: dict[str, int] = Field(default_factory=dict)
    wielded: str | None = None
    ammo: dict[str, int] | None = None
    materials: dict[str, int] | None = None


class StartModel(StrictModel):
    """Mid-combat start (see the module docstring)."""

    round: int = Field(1, ge=1)
    phase: Literal["cast", "shoot", "general", "single"] = "general"
    at: str | None = None
    order: list[str] | None = None
    combatants: dict[str, StartCombatant] = Field(default_factory=dict)


def _cell_ok(m: MapModel, c: Cell) -> bool:
    return 0 <= c[0] < m.width and 0 <= c[1] < m.height


class InvestigatorEncounter(EncounterBase):
    """An investigator encounter: options, map, weapon/spell/technique templates, combatants, optional start."""

    ruleset: Literal["investigator"]
    options: InvestigatorOptions = Field(default_factory=InvestigatorOptions)
    map: MapModel = Field(default_factory=MapModel)
    weapons: dict[str, WeaponModel] = Field(default_factory=dict)
    spells: dict[str, SpellModel] = Field(default_factory=dict)
    techniques: dict[str, TechniqueModel] = Field(default_factory=dict)
    combatants: list[CombatantModel] = Field(min_length=2)
    start: StartModel | None = None

    @field_validator("map", mode="before")
    @classmethod
    def _none_map(cls, v: Any) -> Any:
        return {} if v is None else v

    @model_validator(mode="after")
    def _references(self) -> InvestigatorEncounter:
        """The references between sections, once their shapes are valid: the first problem, at its field path."""
        for loc, msg, inp in self._cross_check():
            raise located(loc, msg, inp)
        return self

    def weapon_template(self, wid: str) -> WeaponModel | None:
        """A weapon template from this encounter or the data library."""
        from trpg_arena.rules.investigator.library import LIBRARY

        return self.weapons.get(wid) or LIBRARY.weapons.get(wid)

    def spell_template(self, sid: str) -> SpellModel | None:
        """A spell from this encounter or the data library."""
        from trpg_arena.rules.investigator.library import LIBRARY

        return self.spells.get(sid) or LIBRARY.spells.get(sid)

    def technique_template(self, tid: str) -> TechniqueModel | None:
        """A technique from this encounter or the data library."""
        from trpg_arena.rules.investigator.library import LIBRARY

        return self.techniques.get(tid) or LIBRARY.techniques.get(tid)

    def _cross_check(self) -> Any:
        m = self.map
        t = m.terrain
        for kind in ("obstacle", "wall", "difficult"):
            for i, c in enumerate(getattr(t, kind)):
                if not _cell_ok(m, c):
                    yield ("map", "terrain", kind, i), f"square {list(c)} is off the {m.width}x{m.height} map", list(c)
        blocked: set[Cell] = {(c[0], c[1]) for c in t.wall} | {(c[0], c[1]) for c in t.obstacle}
        for i, c in enumerate(m.exits):
            if not _cell_ok(m, c):
                yield ("map", "exits", i), "exit square is off the map", list(c)
        for i, g in enumerate(m.ground_items):
            if not _cell_ok(m, g.at):
                yield ("map", "ground_items", i, "at"), "square is off the map", list(g.at)
            if sum(x is not None for x in (g.weapon, g.ammo, g.material)) != 1:
                yield ("map", "ground_items", i), "give exactly one of weapon, ammo or material", None
            if g.weapon is not None and self.weapon_template(g.weapon) is None:
                yield ("map", "ground_items", i, "weapon"), "unknown weapon template", g.weapon
        for wid, w in self.weapons.items():
            if w.kind == "firearm" and w.base_range is None and not w.bands:
                yield ("weapons", wid, "base_range"), "a firearm needs base_range or bands", None
            if w.kind == "firearm" and w.capacity < 1:
                yield ("weapons", wid, "capacity"), "a firearm needs capacity >= 1", w.capacity
            if w.loaded is not None and w.loaded > w.capacity:
                yield ("weapons", wid, "loaded"), f"loaded must be at most capacity {w.capacity}", w.loaded
            if not _ID.match(wid) or "+" in wid:
                yield ("weapons", wid), "template ids may use letters, digits, '_', '-' and '.' only", wid
        for sid in self.spells:
            if not _ID.match(sid):
                yield ("spells", sid), "spell ids may use letters, digits, '_', '-' and '.' only", sid
        squares: dict[Cell, str] = {}
        for i, c in enumerate(self.combatants):
            if c.kind == "pc":
                if c.luck is None:
                    yield ("combatants", i, "luck"), "investigators need luck (0..99)", None
                if c.standard_actions != 1:
                    yield ("combatants", i, "standard_actions"), "investigators have exactly 1 standard action", \
                        c.standard_actions
            if not _cell_ok(m, c.position):
                yield ("combatants", i, "position"), f"square is off the {m.width}x{m.height} map", list(c.position)
            elif c.position in blocked:
                yield ("combatants", i, "position"), "square is a wall or obstacle", list(c.position)
            elif c.position in squares:
                yield ("combatants", i, "position"), f"square already holds '{squares[c.position]}'", \
                    list(c.position)
            squares[c.position] = c.id
            for j, wid in enumerate(c.weapons):
                if wid == "unarmed" or self.weapon_template(wid) is None:
                    yield ("combatants", i, "weapons", j), "unknown weapon template", wid
            if c.weapons.count(c.wielded) == 0 and c.wielded != "unarmed":
                yield ("combatants", i, "wielded"), "must be 'unarmed' or one of the combatant's weapons", c.wielded
            if len(set(c.weapons)) != len(c.weapons):
                yield ("combatants", i, "weapons"), "a weapon template may be carried once", None
            for j, sid in enumerate(c.spells):
                if self.spell_template(sid) is None:
                    yield ("combatants", i, "spells", j), "unknown spell", sid
            for j, tid in enumerate(c.techniques):
                if self.technique_template(tid) is None:
                    yield ("combatants", i, "techniques", j), "unknown technique", tid
            for k, v in list(c.ammo.items()) + list(c.materials.items()):
                if v < 0:
                    yield ("combatants", i, "ammo" if k in c.ammo else "materials", k), "counts must be >= 0", v
        if self.start is not None:
            yield from self._check_start({c.id: i for i, c in enumerate(self.combatants)}, blocked)

    def _check_start(self, ids: dict[str, int], blocked: set[Cell]) -> Any:
        s = self.start
        assert s is not None
        if s.at is not None and s.at not in ids:
            yield ("start", "at"), "unknown combatant id", s.at
        if s.order is not None and sorted(s.order) != sorted(ids):
            yield ("start", "order"), "must list every combatant id exactly once", None
        for cid, sc in s.combatants.items():
            if cid not in ids:
                yield ("start", "combatants", cid), "unknown combatant id", cid
                continue
            c = self.combatants[ids[cid]]
            if sc.position is not None and (not _cell_ok(self.map, sc.position) or sc.position in blocked):
                yield ("start", "combatants", cid, "position"), "square is off the map, a wall or an obstacle", \
                    list(sc.position)
            if sc.standard_used > c.standard_actions:
                yield ("start", "combatants", cid, "standard_used"), \
                    f"at most standard_actions ({c.standard_actions})", sc.standard_used
            for wid in list(sc.loaded) + list(sc.jammed) + list(sc.count):
                if wid not in c.weapons:
                    yield ("start", "combatants", cid), f"'{wid}' is not one of {cid}'s weapons", wid
            if sc.wielded is not None and sc.wielded != "unarmed" and sc.wielded not in c.weapons:
                yield ("start", "combatants", cid, "wielded"), "must be 'unarmed' or one of its weapons", sc.wielded
            if sc.channeling is not None:
                if sc.channeling.spell not in c.spells:
                    yield ("start", "combatants", cid, "channeling", "spell"), "a spell the combatant knows", \
                        sc.channeling.spell
                if sc.channeling.target not in ids:
                    yield ("start", "combatants", cid, "channeling", "target"), "unknown combatant id", \
                        sc.channeling.target
