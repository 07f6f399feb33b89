"""pydantic models of a moonlit encounter: options (spec section 3), stat blocks (4.1) and the ``start`` section.

Every id (skill, item, weapon, armour, zone, combatant) is checked on load, so a bad encounter fails with an
`EncounterError` naming the field path (for example ``combatants[2] (id 'ghoul').skills[1]``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from trpg_arena.rules.core.encounter import EncounterBase, StrictModel
from trpg_arena.rules.core.library import named_in
from trpg_arena.rules.moonlit.data import CONDITIONS, ELEMENTS, GEAR, ITEMS, SKILLS, TEMPLATES, ZONES

Zone = Literal["A_rear", "A_front", "B_front", "B_rear"]
Side = Literal["A", "B"]
State = Literal["not_acted", "standby", "acted", "incapacitated", "dead", "fled", "absent"]
Element = Literal["fire", "water", "wind", "earth", "light", "dark"]


SkillId = Annotated[str, named_in(SKILLS, "skill")]
ItemId = Annotated[str, named_in(ITEMS, "item")]
TemplateId = Annotated[str, named_in(TEMPLATES, "summon template")]
WeaponId = Annotated[str, named_in({k: g for k, g in GEAR.items() if g.slot == "weapon"}, "weapon")]
ArmourId = Annotated[str, named_in({k: g for k, g in GEAR.items() if g.slot == "armour"}, "armour")]


class MoonlitOptions(StrictModel):
    """Option flags (spec section 3); the defaults give the [core] rules."""

    moon_crit_natural: int = Field(12, ge=3, le=12)
    moon_fumble_natural: int = Field(2, ge=2, le=12)
    moon_round_cap: int = Field(20, ge=1, le=1000)  # a game must end: a cap of a billion rounds would not
    moon_clear_conditions_on_end: bool = False
    moon_deploy: Literal["data", "choose"] = "data"
    moon_blocking: Literal["auto", "off"] = "auto"
    moon_mental_range: Literal["any", "same_zone"] = "any"
    moon_zone_attack_hits_allies: bool = False
    moon_escape_enabled: bool = True
    moon_intercept_bonus: Literal["excess", "per_extra"] = "excess"
    moon_setup_order_key: Literal["action_stat", "action_points"] = "action_stat"
    moon_damage_threshold: Literal[1, 2] = 1
    moon_paralysis_current_ap: bool = False
    moon_other_damage_defended: bool = False

    @model_validator(mode="after")
    def _fumble_below_crit(self) -> MoonlitOptions:
        # MOON-0.4: a fumble threshold at or above the critical one is rejected.
        if self.moon_fumble_natural >= self.moon_crit_natural:
            raise ValueError("moon_fumble_natural must be lower than moon_crit_natural")
        return self


class Conditions(StrictModel):
    """Conditions (spec section 8): poison stacks and four flags."""

    poison: int = Field(0, ge=0, le=99)
    paralysis: bool = False
    bind: bool = False
    trance: bool = False
    baptism: bool = False


STATS = ("body", "action", "melee", "ranged", "mental", "defense", "max_hp")  # the stat block (spec 4.1)


class Combatant(StrictModel):
    """A stat block (spec section 4.1)."""

    id: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_]*$")
    name: str | None = None
    side: Side
    kind: Literal["pc", "npc"] = "npc"
    zone: Zone | None = None
    body: int = Field(3, ge=0, le=10)
    action: int = Field(4, ge=1, le=10)
    melee: int = Field(2, ge=0, le=10)
    ranged: int = Field(2, ge=0, le=10)
    mental: int = Field(2, ge=0, le=10)
    defense: int = Field(1, ge=0, le=6)
    max_hp: int = Field(40, ge=1, le=300)
    max_tp: int = Field(20, ge=0, le=200)
    emotion: int = Field(0, ge=0, le=100)
    attributes: dict[Element, Annotated[int, Field(ge=0, le=30)]] = Field(default_factory=dict)
    skills: list[SkillId] = Field(default_factory=list)
    weapon: WeaponId | None = None
    armour: ArmourId | None = None
    items: dict[ItemId, Annotated[int, Field(ge=0, le=9)]] = Field(default_factory=dict)
    can_escape: bool = True
    hp: int | None = Field(None, ge=0)
    tp: int | None = Field(None, ge=0)
    conditions: Conditions = Field(default_factory=Conditions)

    @model_validator(mode="before")
    @classmethod
    def _has_a_stat_block(cls, data: Any) -> Any:
        # Spec 4.1 gives each stat a default, not the whole block: a combatant naming none of them is a
        # stat block left out by mistake, not an average fighter.
        if isinstance(data, dict) and not any(k in data for k in STATS):
            raise ValueError(f"no stat block: give at least one of {', '.join(STATS)} (spec defaults fill the rest)")
        return data

    @model_validator(mode="after")
    def _within_max(self) -> Combatant:
        # MOON-3.1: encounter files place combatants in their own side's zones.
        if self.zone is not None and not self.zone.startswith(self.side + "_"):
            raise ValueError(f"side {self.side} must start in {self.side}_front or {self.side}_rear, "
                             f"not {self.zone}")
        if self.hp is not None and self.hp > self.max_hp:
            raise ValueError(f"hp {self.hp} exceeds max_hp {self.max_hp}")
        if self.tp is not None and self.tp > self.max_tp:
            raise ValueError(f"tp {self.tp} exceeds max_tp {self.max_tp}")
        return self


class Arrival(StrictModel):
    """MOON-4.2: a listed combatant that enters at the entry step of `round`, in `zone`."""

    round: int = Field(ge=1)
    combatant: str
    zone: Zone


class Hazard(StrictModel):
    """MOON-14.7: each able combatant in `zone` takes 1D6 + n at the end phase."""

    zone: Zone
    n: int = Field(0, ge=0, le=50)


class Pending(StrictModel):
    """A pending (standby) attack: attack-type skill, offense skills, limit-break flag, targets or zone."""

    skill: SkillId
    offense: list[SkillId] = Field(default_factory=list)
    limit_break: bool = False
    targets: list[str] = Field(default_factory=list)
    zone: Zone | None = None


class UsageCount(StrictModel):
    """Uses of one skill this round and this combat (MOON-15.2)."""

    round: int = Field(0, ge=0)
    combat: int = Field(0, ge=0)


class StartCombatant(StrictModel):
    """Per-combatant state at a mid-combat start; every field is optional (default: fresh).

    Fields: ``state`` (MOON-2.1), ``zone`` (any zone: in-play positions are free), ``ap`` and ``ap_roll``,
    ``hp``, ``max_hp`` (current maximum after cap damage), ``tp``, ``emotion``, ``conditions``,
    ``markers`` (``ambush``: the round-1 ambush marker, passive checks -3; ``failed_escape``: every check -3),
    ``pending`` (the standby attack; give it with ``state: standby``), ``effects`` (skill or item ids whose
    ``round`` effect is active on this combatant, e.g. ``[battle_focus]``), ``usage`` (skill -> counts),
    ``items`` (quantities) and ``rebirth_used`` (``death_rebirth`` already spent).
    """

    state: State | None = None
    zone: Zone | None = None
    ap: int | None = Field(None, ge=-99, le=99)
    ap_roll: int | None = Field(None, ge=0, le=12)
    hp: int | None = Field(None, ge=0)
    max_hp: int | None = Field(None, ge=1)
    tp: int | None = Field(None, ge=0)
    emotion: int | None = Field(None, ge=0)
    conditions: Conditions | None = None
    markers: list[Literal["ambush", "failed_escape"]] = Field(default_factory=list)
    pending: Pending | None = None
    effects: list[str] = Field(default_factory=list)
    usage: dict[SkillId, UsageCount] = Field(default_factory=dict)
    items: dict[ItemId, Annotated[int, Field(ge=0, le=9)]] | None = None
    rebirth_used: bool = False


class StartSummon(StrictModel):
    """A summon already on the field at a mid-combat start (id ``<summoner>.<template>``)."""

    summoner: str
    template: TemplateId
    skill: SkillId = "puppet_soldiers"
    zone: Zone | None = None
    state: State = "acted"
    ap: int = Field(0, ge=-99, le=99)  # as a combatant's start AP: the delay options go up to it (MOON-6.3)
    hp: int | None = Field(None, ge=0)


StartStep = Literal["round_start", "escape", "action_points", "purge", "setup_skills", "main", "end", "end_skills"]


class StartState(StrictModel):
    """The ``start`` section: begin mid-combat instead of at round 1's setup phase.

    ``round`` (default 1) and ``step``: ``round_start`` (the whole round from MOON-4.1, with the
    encounter's round-1 ambush list), ``escape`` (MOON-4.3), ``action_points`` (4.6), ``purge`` (4.7),
    ``setup_skills`` (4.8), ``main`` (the decision/main loop, MOON-5/6), ``end`` (the end phase from poison,
    MOON-7.1) or ``end_skills`` (MOON-7.3). Steps before it are skipped in that round; the round-1 ambush
    markers are given explicitly through ``markers``. ``elapsed_seconds`` sets MOON-6.2's clock.
    ``combatants`` maps combatant ids (summons included) to a `StartCombatant`; unnamed combatants start
    fresh (``not_acted``, or ``acted`` from the end phase on). ``summons`` lists summons already present.
    """

    round: int = Field(1, ge=1)
    step: StartStep = "main"
    elapsed_seconds: int = Field(0, ge=0)
    combatants: dict[str, StartCombatant] = Field(default_factory=dict)
    summons: list[StartSummon] = Field(default_factory=list)


class MoonlitEncounter(EncounterBase):
    """A moonlit encounter: options, the four-zone map, combatants, ambush, arrivals, hazards, start."""

    ruleset: Literal["moonlit"]
    options: MoonlitOptions = Field(default_factory=MoonlitOptions)
    map: Literal["default"] = "default"
    combatants: list[Combatant] = Field(min_length=1)
    ambushed: list[str] = Field(default_factory=list)
    arrivals: list[Arrival] = Field(default_factory=list)
    hazards: list[Hazard] = Field(default_factory=list)
    start: StartState | None = None

    @model_validator(mode="after")
    def _cross_checks(self) -> MoonlitEncounter:
        ids = [c.id for c in self.combatants]
        if any(i in ZONES for i in ids):
            raise ValueError("a combatant id may not be a zone name")
        known = set(ids)
        arriving = {a.combatant for a in self.arrivals}
        for a in self.arrivals:
            if a.combatant not in known:
                raise ValueError(f"arrivals: unknown combatant '{a.combatant}'")
        for b in self.ambushed:
            if b not in known:
                raise ValueError(f"ambushed: unknown combatant '{b}'")
        for c in self.combatants:
            if c.id in arriving:
                continue
            if c.zone is None and self.options.moon_deploy != "choose":
                raise ValueError(f"combatant '{c.id}' needs a zone (or options.moon_deploy: choose)")
        if self.start is not None:
            summon_ids = {f"{s.summoner}.{s.template}" for s in self.start.summons}
            for s in self.start.summons:
                if s.summoner not in known:
                    raise ValueError(f"start.summons: unknown summoner '{s.summoner}'")
            for cid, sc in self.start.combatants.items():
                if cid not in known and cid not in summon_ids:
                    raise ValueError(f"start.combatants: unknown combatant '{cid}'")
                if sc.pending is not None:
                    for t in sc.pending.targets:
                        if t not in known and t not in summon_ids:
                            raise ValueError(f"start.combatants.{cid}.pending: unknown target '{t}'")
                for e in sc.effects:
                    src = SKILLS.get(e) or ITEMS.get(e)
                    if src is None or src.effect is None:
                        raise ValueError(f"start.combatants.{cid}.effects: '{e}' grants no lasting effect")
        return self


__all__ = ["CONDITIONS", "ELEMENTS", "Combatant", "MoonlitEncounter", "MoonlitOptions", "StartState"]
