"""The mutable state of one `kiai` combat (spec section 4.4): plain dataclasses, JSON- and pickle-safe."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from trpg_arena.rules.core.system import BaseState

if TYPE_CHECKING:
    from trpg_arena.rules.core.combat import Combat
    from trpg_arena.rules.kiai.context import Ctx

Hex = tuple[int, int]

# check grades (KIA-0.2), ordered so that "better" is larger (KIA-20.1 best of two)
FUMBLE, FAILURE, SUCCESS, CRITICAL = 0, 1, 2, 3
GRADE_NAMES = ("FUMBLE", "FAILURE", "SUCCESS", "CRITICAL")

UNTIL_NEXT_TURN = -1


@dataclass
class ActiveCondition:
    """One condition (section 8): `n` remaining turns, or -1 = until the start of its next turn."""

    type: str
    source: str = ""
    n: int = UNTIL_NEXT_TURN
    mode: str = ""


@dataclass
class Fighter:
    """Per-combatant state."""

    id: str
    hex: Hex | None
    kiai: int
    spirit: int
    wounds: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # light, moderate, serious, mortal
    dead: bool = False
    out: str = ""  # "", "incapacitated", "dead", "fled"
    main: str = ""  # weapon key "owner/weapon_id"; "" = unarmed
    off: str = ""
    carried: list[str] = field(default_factory=list)
    conds: list[ActiveCondition] = field(default_factory=list)
    # per round (KIA-1.5)
    attacked: bool = False
    parry_used: bool = False
    countered: bool = False
    ran: bool = False
    # per turn (section 4.4)
    moved: bool = False
    main_done: bool = False
    chain_k: int = 0
    chain_passed: bool = False
    chain_fumbled: bool = False
    chain_x: int = 0
    chain_all_out: bool = False


@dataclass
class Frame:
    """One pending sub-procedure (strike, feint, area ability, status ability) on the stack."""

    kind: str
    step: str
    attacker: str
    target: str = ""
    skind: str = "melee"  # strike kind (KIA-3.4): melee, feint, manoeuvre, ability, counter
    effect: str = "damage"  # damage, break, disarm, none, stun, intimidate, illusion
    weapon: str = ""  # weapon key used ("" = unarmed)
    ability: str = ""  # ability id of the attacker
    hit_base: str = "hit"  # "hit" or "magic_attack"
    mult: int = 1  # 1, 2 (all-out) or -2 (halved)
    hit_mod: int = 0
    tech_x: int = 0
    dodge_x: int = 0
    charge: bool = False
    chain: bool = False
    grade: int = 0
    reaction: str = ""
    react_ability: str = ""
    rise: int = 0
    dmg: int = -1
    index: int = 0
    bonus_on: int = 0
    targets: list[str] = field(default_factory=list)
    hits: list[tuple[str, int]] = field(default_factory=list)
    center: Hex | None = None


@dataclass
class KiaiState(BaseState):
    """Everything that changes during a `kiai` combat."""

    fighters: dict[str, Fighter] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    turn_index: int = 0
    stage: str = "round_start"
    reattack_index: int = 0
    stack: list[Frame] = field(default_factory=list)
    ground: list[tuple[Hex, str]] = field(default_factory=list)
    last: str = ""  # result of the last finished strike: miss, fumble, dodged, complete_dodge, blocked, lands...


# A combat of this system: its `state` is a `KiaiState`, its `tables` the encounter's `Ctx`.
KiaiCombat: TypeAlias = "Combat[KiaiState, Ctx]"
