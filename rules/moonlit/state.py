"""The mutable state of a moonlit combat (spec section 4.7): plain dataclasses that snapshot to JSON and pickle.

Static stat blocks are not copied here: they live in the per-encounter `Table` (tables.py). The state keeps
only what changes during a combat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from trpg_arena.rules.core.system import BaseState

if TYPE_CHECKING:
    from trpg_arena.rules.core.combat import Combat
    from trpg_arena.rules.moonlit.tables import Table


@dataclass
class LastingEffect:
    """A lasting effect keyed by (source, receiver) (MOON-14.2): ``hit`` +value to hit/counter checks."""

    source: str
    kind: str
    value: int
    duration: str  # "round" (until MOON-7.2) or "attack"


@dataclass
class PendingAttack:
    """A declared attack (MOON-8.4/8.5): held by a standby combatant, or in progress."""

    skill: str
    offense: list[str] = field(default_factory=list)
    limit_break: bool = False
    targets: list[str] = field(default_factory=list)
    zone: str | None = None


@dataclass
class Fighter:
    """Everything about one combatant that changes during a combat."""

    id: str
    state: str = "not_acted"
    zone: str | None = None
    hp: int = 0
    max_hp: int = 0  # current maximum (after cap damage, MOON-12.1)
    tp: int = 0
    emotion: int = 0
    ap: int = 0
    ap_roll: int = 0
    poison: int = 0
    paralysis: bool = False
    bind: bool = False
    trance: bool = False
    baptism: bool = False
    mark_ambush: bool = False  # MOON-14.6: passive checks -3 (round 1)
    mark_escape: bool = False  # MOON-4.5: every check -3 (this round)
    pending: PendingAttack | None = None
    countering: bool = False
    effects: list[LastingEffect] = field(default_factory=list)
    used_round: dict[str, int] = field(default_factory=dict)
    used_combat: dict[str, int] = field(default_factory=dict)
    rebirth_used: bool = False
    items: dict[str, int] = field(default_factory=dict)
    summon_skill: str | None = None  # summons: the skill that created it (MOON-14.3)


@dataclass
class Check:
    """A rolled 2D6 check (MOON-0.2): natural, achievement value, critical, fumble."""

    natural: int
    total: int
    crit: bool
    fumble: bool


@dataclass
class AttackFrame:
    """The attack in progress (MOON-8, MOON-10): declaration, checks, reactions, cover, interrupts."""

    attacker: str
    decl: PendingAttack
    stage: str = "offense"  # offense | limit | target | hit | react | cover | interrupt | damage
    continuation: bool = False
    hit: Check | None = None
    ti: int = 0  # cursor over targets (reactions, cover)
    reaction: dict[str, str] = field(default_factory=dict)  # target -> dodge | counter | miss
    dodge_skill: dict[str, str] = field(default_factory=dict)
    checks: dict[str, Check] = field(default_factory=dict)
    hits: list[str] = field(default_factory=list)  # targets on the normal damage path, target order
    counters: list[str] = field(default_factory=list)  # successful counterers, target order
    countered: list[str] = field(default_factory=list)  # every counterer (for MOON-10.12)
    cover: dict[str, str] = field(default_factory=dict)  # hit target -> coverer
    offered: list[str] = field(default_factory=list)  # cover/interrupt offers made at this point
    reductions: dict[str, dict[str, int]] = field(default_factory=dict)  # receiver -> {source: value}


@dataclass
class MoonState(BaseState):
    """A moonlit combat's mutable state (the kernel's `BaseState` plus the rules' own fields)."""

    step: str = "start"
    order: list[str] = field(default_factory=list)  # roster order (arrivals and summons appended)
    fighters: dict[str, Fighter] = field(default_factory=dict)
    queue: list[str] = field(default_factory=list)  # setup-order queue of the current per-combatant step
    qpos: int = 0
    phase_used: list[str] = field(default_factory=list)  # "cid:skill" used in this setup/end phase
    ap_rolled: bool = False  # MOON-4.6 done this round
    actor: str | None = None
    elapsed: int = 0
    atk: AttackFrame | None = None
    vanish_later: list[str] = field(default_factory=list)  # summoners fallen during an attack (MOON-8.1 step 10)
    downed: int = 0  # how many combatants are incapacitated (a cheap guard for coup-de-grace masks)


# A combat of this system: its `state` is a `MoonState`, its `tables` the encounter's `Table` of stat blocks.
MoonCombat: TypeAlias = "Combat[MoonState, Table]"
