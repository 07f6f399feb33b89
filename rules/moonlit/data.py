"""The moonlit data library (skills, summon templates, items, equipment), loaded once at import.

Dice notation is parsed here, never per roll (MOON-0.1). Records are frozen dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from trpg_arena.rules.core.dice import DiceExpr
from trpg_arena.rules.core.library import read_table
from trpg_arena.rules.moonlit.verbs import Condition

DATA_DIR = Path(__file__).parent / "data"
R = TypeVar("R")

ZONES: tuple[str, ...] = ("A_rear", "A_front", "B_front", "B_rear")
ZONE_INDEX = {z: i for i, z in enumerate(ZONES)}
ELEMENTS: tuple[str, ...] = ("fire", "water", "wind", "earth", "light", "dark")
CONDITIONS: tuple[Condition, ...] = tuple(Condition)
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


def _record(cls: type[R], rid: str, raw: dict[str, Any]) -> R:
    """A record of `cls` from its entry in a data file (a misspelt field is an error at import).

    Lists become tuples, dice notation is parsed (MOON-0.1), an effect becomes an `Effect` and a skill's ``uses``
    its per_round and per_combat; the name defaults to the id.
    """
    values: dict[str, Any] = {"id": rid, "name_zh": rid}
    for key, value in raw.items():
        if key == "uses":
            values.update(value or {})
        elif key in ("damage", "heal"):
            values[key] = DiceExpr.parse(value)
        elif key == "effect":
            values[key] = _effect(value)
        else:
            values[key] = tuple(value) if isinstance(value, list) else value
    return cls(**values)


def _table(cls: type[R], name: str) -> dict[str, R]:
    """Every record of one data file, by id."""
    return {rid: _record(cls, rid, raw) for rid, raw in read_table(DATA_DIR / name).items()}


def load_library() -> Library:
    """Read and check every data file once."""
    skills, templates = _table(Skill, "skills.yaml"), _table(Template, "summons.yaml")
    items, gear = _table(Item, "items.yaml"), _table(Gear, "equipment.yaml")
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
