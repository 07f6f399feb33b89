"""The names kiai's rules use for what a combatant does (`Verb`) and the conditions it can be in (`Condition`).

Members are the plain strings of the wire format (`PlainStrEnum`): an action built from `Verb.MOVE`
serialises, hashes and prints as one read back from JSON with ``"move"``, and a misspelt member is a
type error where a misspelt string was a silently dead branch.
"""

from __future__ import annotations

from trpg_arena.rules.core.values import PlainStrEnum


class Verb(PlainStrEnum):
    """Every verb of a kiai action (the blocks of the canonical action layout, `features.ACTIONS`)."""

    END_TURN = "end_turn"
    PASS = "pass"
    # reactions (section 6)
    DODGE = "dodge"
    NO_REACTION = "no_reaction"
    ATTACK_DEFENSE = "attack_defense"
    COUNTER = "counter"
    CONCENTRATE_DODGE = "concentrate_dodge"
    # movement (section 8)
    FLEE = "flee"
    MOVE = "move"
    RUN = "run"
    # attacks and manoeuvres
    ATTACK = "attack"
    TWO_WEAPON_ATTACK = "two_weapon_attack"
    OFFHAND_ATTACK = "offhand_attack"
    CONSECUTIVE_ATTACK = "consecutive_attack"
    FEINT = "feint"
    BREAK_WEAPON = "break_weapon"
    DISARM = "disarm"
    REATTACK = "reattack"
    CHARGE = "charge"
    USE_ABILITY = "use_ability"
    READY_WEAPON = "ready_weapon"
    PICK_UP = "pick_up"


class Condition(PlainStrEnum):
    """The conditions of section 8 (a fighter's `ActiveCondition.type`)."""

    STUNNED = "stunned"  # skips N turns (KIA-23.3)
    INTIMIDATED = "intimidated"  # by a source, counted down at the end of its turns
    DECEIVED = "deceived"  # counted down at the end of its turns
    EXPOSED_ALL_OUT = "exposed_all_out"  # after an all-out attack, until its next turn (KIA-13.1)
    EXPOSED_CHARGE = "exposed_charge"  # after a charge, until its next turn (KIA-17.3)
    RUNNING = "running"  # until its next turn (KIA-8.2)
    CONCENTRATING = "concentrating"  # concentrated dodge, until its next turn (KIA-20.1)


__all__ = ["Condition", "Verb"]
