"""The mutable state of a reincarnator combat (section 4.4): plain dataclasses that snapshot to JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from trpg_arena.rules.core.system import BaseState

if TYPE_CHECKING:
    from trpg_arena.rules.core.combat import Combat
    from trpg_arena.rules.reincarnator.data import Static

Cell = tuple[int, int]


def cell_of_key(key: str) -> Cell:
    """The cell a state key ``"x,y"`` names (doors and cover sources are keyed so, to stay JSON-friendly)."""
    x, y = key.split(",")
    return int(x), int(y)


TIERS: tuple[str, ...] = ("trick", "swift", "move", "acrobatic", "standard")


@dataclass
class EffectState:
    """A timed effect borne by a combatant (REI-0.3)."""

    name: str
    duration: str  # scene | until_turn_start | combat
    modifiers: dict[str, int] = field(default_factory=dict)


@dataclass
class ItemState:
    """Where an item is and its ammunition."""

    loc: str  # held | reachable | stowed | ground | gone | vehicle
    holder: str | None = None  # combatant (or vehicle) id
    cell: Cell | None = None  # for items on the ground
    loaded: int = 0
    spares: int = 0
    chambered: bool = True


@dataclass
class Fighter:
    """Per-combat state of one combatant."""

    id: str
    side: str
    cell: Cell | None
    status: str = "active"  # active | unconscious | dying | dead | fled | reserve
    lethal: int = 0
    bashing: int = 0
    overkill: int = 0
    init_d10: int = 0
    init_total: int = 0
    slots: dict[str, int] = field(default_factory=dict)
    free_used: list[str] = field(default_factory=list)
    reflex: bool = False
    had_turn: bool = False
    moved: bool = False
    aimed: bool = False
    parried: bool = False
    acted: bool = False
    aim_target: str | None = None
    aim_count: int = 0
    bd_loss: int = 0
    parry_value: int = 0
    acro_dodge: int = 0
    full_defense: bool = False
    prone: bool = False
    crouching: bool = False
    cover_value: int = 0
    cover_source: str | None = None  # "x,y" for an object, else a combatant id
    hidden: bool = False
    hidden_attacked: bool = False  # the first attack since becoming hidden was made (REI-6.6)
    effects: list[EffectState] = field(default_factory=list)
    in_vehicle: str | None = None
    suspended: bool = False  # delayed turn waiting to resume (REI-2.4)
    surprise_turn: bool = False
    damage_dealt: int = 0


@dataclass
class VehicleState:
    """Per-combat state of a vehicle (section 4.3)."""

    id: str
    side: str | None
    cell: Cell
    driver: str | None = None
    lethal: int = 0
    bashing: int = 0
    wrecked: bool = False


@dataclass
class Grapple:
    """One grapple (REI-7.5-7.13)."""

    holder: str
    held: str
    state: str = "hold"  # hold | pin
    hold_margin: int = 1
    pin_margin: int = 0
    with_: str | None = None


@dataclass
class Pending:
    """An attack or contest being resolved across reaction windows (a frame of the procedure stack)."""

    verb: str
    actor: str
    target: str | None = None
    cell: Cell | None = None
    weapon: str | None = None
    attr: str | None = None
    all_out: bool = False
    fast: bool = False
    into: str | None = None  # careful | random
    mode: str | None = None  # grapple resistance pool: break | escape
    step: str = "declared"
    cls: str = "melee"
    out_of_range: bool = False
    bonus: int = 0  # charge bonus
    origin: Cell | None = None  # the cell the target stood in when the attack was declared
    acro: bool = False


@dataclass
class ReiState(BaseState):
    """Everything that changes during a reincarnator combat."""

    fighters: dict[str, Fighter] = field(default_factory=dict)
    vehicles: dict[str, VehicleState] = field(default_factory=dict)
    items: dict[str, ItemState] = field(default_factory=dict)
    grapples: list[Grapple] = field(default_factory=list)
    doors: dict[str, str] = field(default_factory=dict)  # "x,y" -> open | closed
    order: list[str] = field(default_factory=list)
    index: int = 0
    actor: str | None = None
    surprise_queue: list[str] = field(default_factory=list)
    reorder_pending: bool = False
    pending: list[Pending] = field(default_factory=list)
    joined_rounds: list[int] = field(default_factory=list)


# A combat of this system: its `state` is a `ReiState`, its `tables` the encounter's compiled `Static`.
ReiCombat: TypeAlias = "Combat[ReiState, Static]"
