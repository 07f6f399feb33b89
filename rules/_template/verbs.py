"""The names the rules use for what a combatant does (`Verb`) and the conditions it can be in (`Condition`).

Members are the plain strings of the wire format (`PlainStrEnum`): an action built from `Verb.HIT`
serialises, hashes and prints as one read back from JSON with ``"hit"``, and a misspelt member is a
type error where a misspelt string was a silently dead branch. List every verb the rules can offer
here (the canonical action layout in `features.ACTIONS` declares a block per verb).
"""

from __future__ import annotations

from trpg_arena.rules.core.values import PlainStrEnum


class Verb(PlainStrEnum):
    """Every verb of an action."""

    PASS = "pass"
    HIT = "hit"  # TPL-1.1: roll a d6 against a standing foe


class Condition(PlainStrEnum):
    """The conditions a combatant can be in, as its view's status shows them (a real system's afflictions)."""

    OK = "ok"
    DEAD = "dead"  # no hit points left: only passes (TPL-1.2)


__all__ = ["Condition", "Verb"]
