"""The names reincarnator's rules use for what a combatant does (`Verb`) and the conditions it can be in (`Condition`).

Members are the plain strings of the wire format (`PlainStrEnum`): an action built from `Verb.MOVE`
serialises, hashes and prints as one read back from JSON with ``"move"``, and a misspelt member is a
type error where a misspelt string was a silently dead branch.
"""

from __future__ import annotations

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


__all__ = ["Condition", "Verb"]
