"""The names reincarnator's rules use for what a combatant does (`Verb`) and the conditions it can be in (`Condition`).

Members read exactly as the wire format's plain strings (`core.values.PlainStrEnum` says why).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from trpg_arena.rules.core.values import PlainStrEnum


class Verb(PlainStrEnum):
    """Every verb of a reincarnator action (the blocks of the canonical action layout, `features.ACTIONS`)."""

    END_TURN = "end_turn"
    PASS = "pass"
    GRAPPLE_RESIST = "grapple_resist"
    DELAY = "delay"
    RELEASE_GRAPPLE = "release_grapple"
    AIM = "aim"
    PIN = "pin"
    TAKE_COVER = "take_cover"
    DROP_ITEM = "drop_item"
    CYCLE_BOLT = "cycle_bolt"
    CONSUME = "consume"
    RETRIEVE = "retrieve"
    RELOAD = "reload"
    DRAW = "draw"
    RELOAD_HEAVY = "reload_heavy"
    PICK_UP = "pick_up"
    SHEATHE = "sheathe"
    RETRIEVE_STOWED = "retrieve_stowed"
    STAND_FROM_CROUCH = "stand_from_crouch"
    PARRY = "parry"
    GO_PRONE = "go_prone"
    CROUCH = "crouch"
    STAND_FROM_PRONE = "stand_from_prone"
    LEAVE_BATTLEFIELD = "leave_battlefield"
    ACRO_PARRY = "acro_parry"
    FULL_DEFENSE = "full_defense"
    MOVE = "move"
    CRAWL = "crawl"
    GRAPPLE_MOVE = "grapple_move"
    ACRO_MOVE = "acro_move"
    STEALTH_WALK = "stealth_walk"
    REFLEX_STEP = "reflex_step"
    OPEN_DOOR = "open_door"
    CLOSE_DOOR = "close_door"
    MELEE_ATTACK = "melee_attack"
    RANGED_ATTACK = "ranged_attack"
    THROW = "throw"
    CAST = "cast"
    BULL_RUSH = "bull_rush"
    GRAPPLE = "grapple"
    PIN_STRIKE = "pin_strike"
    GRAPPLE_STRIKE = "grapple_strike"
    ESCAPE_GRAPPLE = "escape_grapple"
    CHARGE = "charge"
    ACRO_CHARGE = "acro_charge"
    ENTER_VEHICLE = "enter_vehicle"
    CLIMB_JUMP = "climb_jump"
    DRIVE = "drive"
    DRIVE_FAST = "drive_fast"
    ACRO_DRIVE = "acro_drive"
    EXIT_VEHICLE = "exit_vehicle"
    VEHICLE_ATTACK = "vehicle_attack"
    VEHICLE_CRUSH = "vehicle_crush"
    ACRO_FIRE = "acro_fire"


class Condition(PlainStrEnum):
    """The condition words of section 8 (a view's conditions; aim is shown with its count, ``aim2``)."""

    PRONE = "prone"
    CROUCHING = "crouching"
    HIDDEN = "hidden"
    FULL_DEFENSE = "full_defense"
    IN_COVER = "in_cover"
    IN_VEHICLE = "in_vehicle"
    AIM = "aim"
    PINNED = "pinned"  # held in a pin (REI-7)
    HELD = "held"
    PINNING = "pinning"
    HOLDING = "holding"
    PARRYING = "parrying"


# Typed options. An option with flags is a tuple on the wire (``("sword", "all_out")``, ``("pistol", "careful")``,
# ``("knife", "dex", "fast")``); a bare item, weapon or spell id is its plain string. Each tuple shape has its
# type below: it equals, hashes and prints as the wire tuple, and the catalogue and the legal sets carry it
# (`interned.act` gives a new action's option its type, `typed_option`). `Combat.act` applies the legal set's
# own action, so the rules read the option by name also when the caller's action came from JSON.


class AllOut(NamedTuple):
    """``(weapon, "all_out")``: an all-out (REI-5.3) melee_attack, bull_rush, pin_strike or soft-item grapple."""

    weapon: str
    flag: str = "all_out"  # the wire tuple's second part; the type itself says all-out

    def __repr__(self) -> str:
        return tuple.__repr__(self)


class IntoGrapple(NamedTuple):
    """``(item, into)``: a ranged_attack, acro_fire, cast or vehicle_attack at someone in a grapple (REI-7.17).

    `item` is the weapon, spell or vehicle weapon; `into` is ``careful`` (aimed clear of the others in the
    grapple, at a penalty) or ``random`` (whoever the attack falls on).
    """

    item: str
    into: str

    def __repr__(self) -> str:
        return tuple.__repr__(self)


class SoftGrapple(NamedTuple):
    """``(item,)``: a grapple made with a soft item (a net, a whip...; REI-7.15), not all-out."""

    item: str

    def __repr__(self) -> str:
        return tuple.__repr__(self)


INTO = frozenset(("careful", "random"))  # the `IntoGrapple.into` values, also a throw's last part


class ThrowOption(tuple[str, ...]):
    """``(item, attr[, "fast"][, into])``: a throw (REI-4.6, 4.7) with DEX or STR, fast (REI-4.10), into a grapple.

    Its length varies as the wire tuple's does, so it is a tuple with named reads rather than a NamedTuple.
    """

    __slots__ = ()

    def __new__(cls, parts: Iterable[str]) -> ThrowOption:
        """The option of the wire tuple `parts` (copies and pickles rebuild it from its parts this way)."""
        return super().__new__(cls, parts)

    @property
    def item(self) -> str:
        """The thrown item's name."""
        return self[0]

    @property
    def attr(self) -> str:
        """``dex`` (an aimed throw) or ``str`` (a heave)."""
        return self[1]

    @property
    def fast(self) -> bool:
        """Thrown as a fast throw (REI-4.10: a standard and a swift action)."""
        return "fast" in self[2:]

    @property
    def into(self) -> str | None:
        """``careful`` or ``random`` for a throw at someone in a grapple (REI-7.17), else None."""
        return next((x for x in self[2:] if x in INTO), None)


def typed_option(verb: str, option: object) -> object:
    """`option` of a `verb` action in its type: a wire tuple as the type of its shape, anything else as it is."""
    if type(option) is not tuple:
        return option
    if verb == Verb.THROW:
        return ThrowOption(option)
    if len(option) == 2 and option[1] == "all_out":
        return AllOut(option[0])
    if len(option) == 2 and option[1] in INTO:
        return IntoGrapple(option[0], option[1])
    if len(option) == 1 and verb == Verb.GRAPPLE:
        return SoftGrapple(option[0])
    return option


def all_out(option: object) -> bool:
    """Whether an attack's option declares it all-out (REI-5.3): an `AllOut`, or a bare grapple's ``"all_out"``."""
    return type(option) is AllOut or option == "all_out"


def into_of(option: object) -> str | None:
    """How a far attack or a throw goes into a grapple (REI-7.17): ``careful``, ``random``, or None."""
    return option.into if isinstance(option, (IntoGrapple, ThrowOption)) else None


__all__ = ["INTO", "AllOut", "Condition", "IntoGrapple", "SoftGrapple", "ThrowOption", "Verb", "all_out", "into_of",
           "typed_option"]
