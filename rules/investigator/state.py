"""The mutable state of an investigator combat (spec 4.5): plain dataclasses that snapshot to JSON and pickle."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from trpg_arena.rules.core.system import BaseState

if TYPE_CHECKING:
    from trpg_arena.rules.core.combat import Combat
    from trpg_arena.rules.investigator.compiled import Setup

Cell = tuple[int, int]


@dataclass(slots=True)
class Item:
    """A weapon instance, an ammunition pack or a unit of material (carried or on the ground)."""

    id: str  # weapon instance id, or "ammo:<type>" / "material:<name>"
    template: str  # weapon template id, ammo type or material name
    kind: str = "weapon"  # weapon | ammo | material
    loaded: int = 0
    jammed: bool = False
    count: int = 1


@dataclass(slots=True)
class GroundItem:
    """An item lying on a square."""

    pos: Cell
    item: Item


@dataclass(slots=True)
class Fighter:
    """One combatant's per-combat state."""

    id: str
    pos: Cell | None
    hp: int
    mp: int
    luck: int
    prone: bool = False
    unconscious: bool = False
    dying: bool = False
    dead: bool = False
    fled: bool = False
    major_wound: bool = False
    untreated_wound: bool = False
    full_mov_lockout: bool = False
    lockout_next_round: bool = False
    lose_next_standard: bool = False
    prepare_used: bool = False
    move_used: bool = False
    opportunity_used: bool = False
    standard_used: int = 0
    had_turn: bool = False
    steps_this_turn: int = 0
    moved_long: bool = False
    move_spent: int = 0
    bonus_to: list[str] | None = None
    bonus_expires: str = ""
    channel_spell: str = ""
    channel_target: str = ""
    channel_done: int = 0
    dying_since: int | None = None
    defenses: int = 0
    melee_attackers: list[str] = field(default_factory=list)
    weapons: list[Item] = field(default_factory=list)
    wielded: str = "unarmed"
    ammo: dict[str, int] = field(default_factory=dict)
    materials: dict[str, int] = field(default_factory=dict)

    @property
    def able(self) -> bool:
        """Able to act (INV-12.1)."""
        return not (self.dead or self.fled or self.unconscious or self.dying)

    @property
    def present(self) -> bool:
        """On the map and occupying a square (not dead, not fled)."""
        return not (self.dead or self.fled)

    def weapon(self, wid: str) -> Item | None:
        """A carried weapon instance by id."""
        for w in self.weapons:
            if w.id == wid:
                return w
        return None


@dataclass(slots=True)
class Frame:
    """One pending sub-procedure on the stack: an action, a reaction window or an attack.

    `kind` is ``action``, ``window`` or ``attack``; `step` is where it resumes. Fields not used by a kind
    keep their defaults.
    """

    kind: str
    step: str
    actor: str
    verb: str = ""
    target: str = ""
    head: str = ""  # maneuver, spell or technique/item id
    when: str = ""  # embedded step: "before" / "after" / ""
    sdest: Cell | None = None  # embedded step destination
    dest: Cell | None = None
    src: Cell | None = None  # window: square before the step
    path: list[Cell] = field(default_factory=list)
    index: int = 0
    event: str = ""  # window: leave / enter / step / action
    defense: str = ""
    shots: int = 1
    cancelled: bool = False
    spent: int = 0


@dataclass
class InvState(BaseState):
    """Everything that changes during an investigator combat."""

    fighters: list[Fighter] = field(default_factory=list)
    order: list[str] = field(default_factory=list)
    pass_order: list[str] = field(default_factory=list)
    cursor: int = 0
    turn_actor: str = ""
    turn_ended: bool = False
    turn_actions: int = 0
    stack: list[Frame] = field(default_factory=list)
    ground: list[GroundItem] = field(default_factory=list)
    started: bool = False
    begin_mid_round: bool = False
    start_at: str = ""
    dirty: bool = True


# A combat of this system: its `state` is an `InvState`, its `tables` the encounter's `Setup`.
InvCombat: TypeAlias = "Combat[InvState, Setup]"
