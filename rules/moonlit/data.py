"""The moonlit data library (skills, summon templates, items, equipment), loaded once at import.

Dice notation is parsed here, never per roll (MOON-0.1). Records are frozen dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trpg_arena.rules.core.dice import DiceExpr
from trpg_arena.rules.core.library import read_table
from trpg_arena.rules.moonlit.verbs import Condition

DATA_DIR = Path(__file__).parent / "data"

ZONES: tuple[str, ...] = ("A_rear", "A_front", "B_front", "B_rear")
ZONE_INDEX = {z: i for i, z in enumerate(ZONES)}
ELEMENTS: tuple[str, ...] = ("fire", "water", "wind", "earth", "light", "dark")
CONDITIONS: tuple[Condition, ...] = tuple(Condition)
ATTACK_TYPES: tuple[str, ...] = ("melee", "ranged", "mental")
CATEGORIES: tuple[str, ...] = ("attack", "offense", "defense", "interrupt", "setup", "end", "normal", "passive")


@dataclass(frozen=True, slots=True)
class Effect:
    """A lasting modifier granted by a skill or item (MOON-15.4): kind ``hit`` adds to hit/counter checks."""

    kind: str
    value: int
    duration: str


@dataclass(frozen=True, slots=True)
class Skill:
    """One skill record (spec section 4.2)."""

    id: str
    name_zh: str
    category: str
    type: str | None = None
    element: str | None = None
    scope: str = "single"
    compat: tuple[str, ...] = ()
    single_only: bool = False
    target: str = "self"
    tp: int = 0
    delay: int = 0
    per_round: int = 0
    per_combat: int = 0
    damage: DiceExpr | None = None
    hit_mod: int = 0
    dodge_mod: int = 0
    reduction_mod: int = 0
    extra_targets: int = 0
    ap_mod: int = 0
    heal: DiceExpr | None = None
    after_damage: tuple[str, ...] = ()
    effect: Effect | None = None
    summon: tuple[str, ...] = ()
    remove_condition: bool = False
    auto_dodge: bool = False
    window: str | None = None
    negated_by_baptism: bool = False


@dataclass(frozen=True, slots=True)
class Template:
    """A summon template (spec section 4.4)."""

    id: str
    name_zh: str
    body: int
    action: int
    melee: int
    ranged: int
    mental: int
    defense: int
    max_hp: int
    max_tp: int
    skills: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Item:
    """A consumable item (spec section 4.5)."""

    id: str
    name_zh: str
    target: str  # wounded | condition | any
    heal: DiceExpr | None = None
    remove: str | None = None
    effect: Effect | None = None


@dataclass(frozen=True, slots=True)
class Gear:
    """A weapon or armour (spec section 4.6)."""

    id: str
    name_zh: str
    slot: str
    type: str | None = None
    hit_mod: int = 0
    damage_flat: int = 0
    defense_dice: int = 0


@dataclass(frozen=True)
class Library:
    """Everything loaded from ``data/*.yaml``."""

    skills: dict[str, Skill] = field(default_factory=dict)
    templates: dict[str, Template] = field(default_factory=dict)
    items: dict[str, Item] = field(default_factory=dict)
    gear: dict[str, Gear] = field(default_factory=dict)


def _effect(raw: dict[str, Any] | None) -> Effect | None:
    return None if raw is None else Effect(str(raw["kind"]), int(raw["value"]), str(raw["duration"]))


def _skill(sid: str, raw: dict[str, Any]) -> Skill:
    uses = raw.get("uses") or {}
    return Skill(
        id=sid, name_zh=raw.get("name_zh", sid), category=raw["category"], type=raw.get("type"),
        element=raw.get("element"), scope=raw.get("scope", "single"), compat=tuple(raw.get("compat", ())),
        single_only=bool(raw.get("single_only", False)), target=raw.get("target", "self"), tp=int(raw.get("tp", 0)),
        delay=int(raw.get("delay", 0)), per_round=int(uses.get("per_round", 0)),
        per_combat=int(uses.get("per_combat", 0)),
        damage=DiceExpr.parse(raw["damage"]) if "damage" in raw else None, hit_mod=int(raw.get("hit_mod", 0)),
        dodge_mod=int(raw.get("dodge_mod", 0)), reduction_mod=int(raw.get("reduction_mod", 0)),
        extra_targets=int(raw.get("extra_targets", 0)), ap_mod=int(raw.get("ap_mod", 0)),
        heal=DiceExpr.parse(raw["heal"]) if "heal" in raw else None,
        after_damage=tuple(raw.get("after_damage", ())), effect=_effect(raw.get("effect")),
        summon=tuple(raw.get("summon", ())), remove_condition=bool(raw.get("remove_condition", False)),
        auto_dodge=bool(raw.get("auto_dodge", False)), window=raw.get("window"),
        negated_by_baptism=bool(raw.get("negated_by_baptism", False)),
    )


def load_library() -> Library:
    """Read and check every data file once."""
    skills = {sid: _skill(sid, raw) for sid, raw in read_table(DATA_DIR / "skills.yaml").items()}
    templates = {tid: Template(id=tid, name_zh=raw.get("name_zh", tid), body=raw["body"], action=raw["action"],
                               melee=raw["melee"], ranged=raw["ranged"], mental=raw["mental"],
                               defense=raw["defense"], max_hp=raw["max_hp"], max_tp=raw["max_tp"],
                               skills=tuple(raw["skills"]))
                 for tid, raw in read_table(DATA_DIR / "summons.yaml").items()}
    items = {iid: Item(id=iid, name_zh=raw.get("name_zh", iid), target=raw["target"],
                       heal=DiceExpr.parse(raw["heal"]) if "heal" in raw else None, remove=raw.get("remove"),
                       effect=_effect(raw.get("effect")))
             for iid, raw in read_table(DATA_DIR / "items.yaml").items()}
    gear = {gid: Gear(id=gid, name_zh=raw.get("name_zh", gid), slot=raw["slot"], type=raw.get("type"),
                      hit_mod=int(raw.get("hit_mod", 0)), damage_flat=int(raw.get("damage_flat", 0)),
                      defense_dice=int(raw.get("defense_dice", 0)))
            for gid, raw in read_table(DATA_DIR / "equipment.yaml").items()}
    for s in skills.values():
        if s.category not in CATEGORIES:
            raise ValueError(f"skill {s.id}: unknown category {s.category}")
        for t in s.summon:
            if t not in templates:
                raise ValueError(f"skill {s.id}: unknown summon template {t}")
    return Library(skills, templates, items, gear)


LIB = load_library()
SKILLS = LIB.skills
TEMPLATES = LIB.templates
ITEMS = LIB.items
GEAR = LIB.gear
