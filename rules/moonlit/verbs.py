"""The names moonlit's rules use for what a combatant does (`Verb`) and what afflicts it (`Condition`).

Members read exactly as the wire format's plain strings (`core.values.PlainStrEnum` says why).
"""

from __future__ import annotations

from typing import NamedTuple

from trpg_arena.rules.core.values import PlainStrEnum


class Verb(PlainStrEnum):
    """Every verb of a moonlit action (the blocks of the canonical action layout, `features.ACTIONS`)."""

    DEPLOY = "deploy"  # setup: take the front or rear row
    ESCAPE = "escape"  # round start: try to leave the combat (MOON-4.3)
    STAY = "stay"
    PURGE = "purge"  # pay 15 TP to shake off a condition (MOON-4.7)
    DONE = "done"  # end a queue of optional choices (purge, setup and end skills)
    PASS = "pass"
    DELAY = "delay"  # act later, at a lower action value
    MOVE = "move"
    ATTACK = "attack"
    OFFENSE = "offense"  # add an offense skill to an attack
    LIMIT_BREAK = "limit_break"  # pay 30 HP for one more offense skill (MOON-14.10)
    TARGET = "target"
    TARGET_DONE = "target_done"
    USE_SKILL = "use_skill"
    USE_ITEM = "use_item"
    COUP_DE_GRACE = "coup_de_grace"
    CLEAR_TRANCE = "clear_trance"  # spend 15 emotion points
    DODGE = "dodge"
    COUNTER = "counter"
    COVER = "cover"
    DECLINE = "decline"
    INTERRUPT = "interrupt"


class Condition(PlainStrEnum):
    """The conditions of spec section 8 (MOON-13), in their fixed order: poison stacks, the others are flags."""

    POISON = "poison"
    PARALYSIS = "paralysis"
    BIND = "bind"
    TRANCE = "trance"
    BAPTISM = "baptism"


class SkillChoice(NamedTuple):
    """A ``use_skill`` option naming the skill and what it summons (MOON-15.7) or removes (MOON-15.4).

    A skill that needs no such choice has its plain id as the option.

    It equals, hashes and prints as the plain tuple ``(skill, choice)`` of the wire format; the legal set
    carries it, and `Combat.act` applies the legal set's action, so the rules read it by name.
    """

    skill: str
    choice: str  # a summon template or a condition

    def __repr__(self) -> str:
        return tuple.__repr__(self)


__all__ = ["Condition", "SkillChoice", "Verb"]
