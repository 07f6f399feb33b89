"""Static per-encounter tables (weapons by key, abilities, thresholds...): `KiaiSystem.compile`, kernel-cached."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import ceil
from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.values import shared_actions
from trpg_arena.rules.kiai.model import Ability, Combatant, KiaiEncounter, KiaiOptions, Weapon

if TYPE_CHECKING:
    from trpg_arena.rules.core.battlefield import Battlefield
    from trpg_arena.rules.core.grid import Grid

LEVEL_NAMES = ("light", "moderate", "serious", "mortal", "dead")
action = shared_actions()  # the one shared `Action` of its fields: the catalogue and legal lists are built from it


SPEAR_CLASS = frozenset({"spear", "lance"})


@dataclass(frozen=True, slots=True)
class WeaponInfo:
    """A weapon as the engine knows it (its key in `Ctx.weapons` is ``owner/weapon_id``, section 4.2)."""

    spec: Weapon

    @property
    def level(self) -> int:
        """Weapon level (damage dice, break threshold)."""
        return self.spec.level

    @property
    def reach(self) -> int:
        """Melee reach in hexes."""
        return self.spec.reach


UNARMED = WeaponInfo(Weapon(id="unarmed", name="unarmed", level=0, category="other"))


@dataclass
class Ctx:
    """Everything about an encounter that never changes during a combat."""

    enc: KiaiEncounter
    opts: KiaiOptions
    ids: list[str]
    spec: dict[str, Combatant]
    seat: dict[str, int]
    side: dict[str, str]
    weapons: dict[str, WeaponInfo]
    abilities: dict[str, dict[str, Ability]]
    thresholds: dict[str, tuple[int, int, int, int, int]]
    boxes: tuple[int, int, int, int]
    penalties: tuple[int, int, int, int, int, int]  # by status index + 1: none, light, moderate, serious, ...
    round_cap: int
    exits: frozenset[tuple[int, int]]
    blocked: frozenset[tuple[int, int]]
    width: int
    height: int
    grid: Grid  # the map compiled by the kernel: reach layers, paths, sight, distances (section 5)
    seat_order: list[str] = field(default_factory=list)
    foes_of: dict[str, tuple[str, ...]] = field(default_factory=dict)  # the other sides' ids, roster order
    tables: Any = None  # `legal.Tables`: prebuilt actions of the encounter (never state)
    view_static: Any = None  # (max hp, [(id, name, side, role)] in roster order) for `views`
    obs_static: Any = None  # (id -> max(1, kiai), weapon key -> features) for `observe_combatant`

    def weapon(self, key: str) -> WeaponInfo:
        """The weapon with this key, or the unarmed "weapon" for ""."""
        return self.weapons[key] if key else UNARMED


def thresholds(life: int, mult: dict[str, float]) -> tuple[int, int, int, int, int]:
    """KIA-7.2: max(1, ceil(L x multiplier)) in exact arithmetic, for light..dead."""
    out = [max(1, ceil(Fraction(life) * Fraction(str(mult[n])))) for n in LEVEL_NAMES]
    return out[0], out[1], out[2], out[3], out[4]


def build_ctx(enc: KiaiEncounter, bf: Battlefield) -> Ctx:
    """Build the static tables of an encounter on its battlefield."""
    opts = enc.options
    spec = {c.id: c for c in enc.combatants}
    seat = {c.id: (c.seat if c.seat is not None else i) for i, c in enumerate(enc.combatants)}  # KIA-1.3
    weapons = {f"{c.id}/{w.id}": WeaponInfo(w) for c in enc.combatants for w in c.weapons}
    abilities = {c.id: {a.id: a for a in c.abilities} for c in enc.combatants}
    pen = opts.wound_penalties
    cap = opts.round_cap or enc.round_cap or 30  # KIA-25.1: options win over the top-level field
    return Ctx(
        enc=enc, opts=opts, ids=[c.id for c in enc.combatants], spec=spec, seat=seat,
        side={c.id: c.side for c in enc.combatants}, weapons=weapons, abilities=abilities,
        thresholds={c.id: thresholds(c.life, opts.damage_level_multipliers) for c in enc.combatants},
        boxes=(opts.wound_boxes["light"], opts.wound_boxes["moderate"], opts.wound_boxes["serious"],
               opts.wound_boxes["mortal"]),
        penalties=(0, pen["light"], pen["moderate"], pen["serious"], 0, 0),
        round_cap=cap, exits=frozenset(enc.map.exits), blocked=frozenset(enc.map.blocked),
        width=enc.map.width, height=enc.map.height, grid=bf.grid,
        seat_order=sorted(spec, key=lambda i: seat[i]),
        foes_of={c.id: tuple(o.id for o in enc.combatants if o.side != c.side) for c in enc.combatants},
    )
