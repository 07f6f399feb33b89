"""The names kiai's rules use for what a combatant does (`Verb`) and the conditions it can be in (`Condition`).

Members read exactly as the wire format's plain strings (`core.values.PlainStrEnum` says why).
"""

from __future__ import annotations

from typing import NamedTuple

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


class AttackOption(NamedTuple):
    """An ``attack``'s option (KIA-10, KIA-13, KIA-21): the technique value, all-out or not, the ability used.

    It equals, hashes and prints as the plain tuple ``(technique, all_out, ability)`` of the wire format;
    the legal set carries it, and `Combat.act` applies the legal set's action, so the rules read it by name
    also when the caller's action came from JSON.
    """

    technique: int  # x: taken off the hit value and off the defender's dodge (0: none)
    all_out: bool
    ability: str  # a damage ability spent on the strike ("": none)

    def __repr__(self) -> str:
        return tuple.__repr__(self)


class ReattackOption(NamedTuple):
    """A ``reattack``'s option (KIA-12.1): the technique value and all-out or not, as the tuple it equals."""

    technique: int
    all_out: bool

    def __repr__(self) -> str:
        return tuple.__repr__(self)


__all__ = ["AttackOption", "Condition", "ReattackOption", "Verb"]
