"""The names investigator's rules use for what a combatant does (`Verb`) and the conditions it can be in (`Condition`).

Members read exactly as the wire format's plain strings (`core.values.PlainStrEnum` says why).
"""

from __future__ import annotations

from trpg_arena.rules.core.values import PlainStrEnum


class Verb(PlainStrEnum):
    """Every verb of an investigator action (the blocks of the canonical action layout, `features.ACTIONS`)."""

    END_TURN = "end_turn"
    WAIT = "wait"
    DECLINE = "decline"
    # defences against an attack (section 7)
    DODGE = "dodge"
    FIGHT_BACK = "fight_back"
    NO_DEFENSE = "no_defense"
    DIVE_FOR_COVER = "dive_for_cover"
    # a turn's actions
    STAND_UP = "stand_up"
    RELOAD = "reload"
    FLEE = "flee"
    CONTINUE_CAST = "continue_cast"
    PREPARE = "prepare"
    SWITCH_WEAPON = "switch_weapon"
    STEP = "step"
    MOVE = "move"
    MELEE = "melee"
    SHOOT = "shoot"
    THROW = "throw"
    FIRST_AID = "first_aid"
    OPPORTUNITY_ATTACK = "opportunity_attack"
    PURSUIT_ATTACK = "pursuit_attack"
    PURSUE = "pursue"  # a turn action under pursuit_mode turn_action (no block of the canonical layout)
    CAST = "cast"
    PASS_ITEM = "pass_item"
    PICK_UP = "pick_up"


class Condition(PlainStrEnum):
    """The conditions of a combatant (its start ``conditions``, `flow.conditions_of`), in the spec's order."""

    PRONE = "prone"
    UNCONSCIOUS = "unconscious"
    DYING = "dying"
    DEAD = "dead"
    MAJOR_WOUND = "major_wound"
    UNTREATED_WOUND = "untreated_wound"
    FULL_MOV_LOCKOUT = "full_mov_lockout"  # no action after a full move (INV-4.9)
    LOSE_NEXT_STANDARD = "lose_next_standard"
    # shown among a combatant's conditions, never set at a start
    FLED = "fled"
    CHANNELING = "channeling"  # casting a spell over several rounds
    PENDING_BONUS = "pending_bonus"  # a bonus die waits for its next roll


__all__ = ["Condition", "Verb"]
