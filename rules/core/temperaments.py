"""NPC temperaments: the ``tactics:`` block an encounter gives a combatant (how its agent plays it).

A temperament never changes the rules: it is read by the agents (`agents.temperament`), which narrow and
re-rank their choices by it. It is validated with the encounter, so a wrong value is a located error:

    tactics:
      aggression: cautious   # reckless, bold, steady (the default: play as the agent would), cautious
      morale: 0.25           # flees once below this share of its HP (0.25 or "25%"; 0: never)
      focus: casters         # weakest, strongest, nearest, healers, casters, or a combatant id
      protect: cult_leader   # stays by this ally

In an encounter the block sits in a combatant's entry; it is kept as the encounter's ``tactics`` map
(combatant id -> `Tactics`), which may also be written directly, like ``controllers``.
"""

from __future__ import annotations

import enum
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator


class Aggression(enum.StrEnum):
    """How readily an NPC attacks rather than defends, from reckless to cautious (an ordered scale)."""

    RECKLESS = "reckless"
    BOLD = "bold"
    STEADY = "steady"
    CAUTIOUS = "cautious"


#: Focus words (anything else must be a combatant id of another side).
FOCUS_WORDS = ("weakest", "strongest", "nearest", "healers", "casters")
_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")


class Tactics(BaseModel):
    """One combatant's temperament; every field is optional (an empty block plays as without one)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    aggression: Aggression = Aggression.STEADY
    morale: float = 0.0
    focus: str | None = None
    protect: str | None = None

    @field_validator("morale", mode="before")
    @classmethod
    def _share(cls, value: Any) -> Any:
        """``0.25`` or ``"25%"``: a share of the combatant's HP strictly between 0 and 1 (0: never flees)."""
        if isinstance(value, str):
            m = _PERCENT.match(value)
            if m is None:
                raise ValueError(f"morale is a share of HP such as 0.25 or '25%', got {value!r}")
            value = float(m.group(1)) / 100
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"morale is a share of HP such as 0.25 or '25%', got {value!r}")
        if not 0 <= value < 1:
            raise ValueError(f"morale {value:g} is outside 0..1 (a share of HP: 0.25 flees below a quarter)")
        return float(value)

    @field_validator("focus", "protect")
    @classmethod
    def _word(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("an empty name")
        return value

    def summary(self) -> str:
        """``cautious, flees below 25 %, focus casters, protects leader`` (what the GM reads in a card)."""
        parts = [] if self.aggression is Aggression.STEADY else [self.aggression.value]
        if self.morale > 0:
            parts.append(f"flees below {self.morale * 100:g} % HP")
        if self.focus:
            parts.append(f"focus {self.focus}")
        if self.protect:
            parts.append(f"protects {self.protect}")
        return ", ".join(parts) or "steady"

    def to_json(self) -> dict[str, Any]:
        """Only the fields set (what a GM wrote), plus the summary sentence."""
        out: dict[str, Any] = self.model_dump(mode="json", exclude_defaults=True)
        out["summary"] = self.summary()
        return out


def check_names(tactics: dict[str, Tactics], sides: dict[str, str]) -> tuple[tuple[str | int, ...], str, Any] | None:
    """The first naming problem as ``(location under the combatant, message, value)``, or None.

    `sides` maps every combatant id to its side: `focus` must name someone of another side, `protect`
    another combatant of the same side, and every key must be a combatant.
    """
    for cid, t in tactics.items():
        if cid not in sides:
            return ((cid,), f"'{cid}' names no combatant (known: {', '.join(sorted(sides))})", cid)
        if t.focus is not None and t.focus not in FOCUS_WORDS:
            if t.focus not in sides:
                return ((cid, "focus"), f"focus '{t.focus}' is neither one of {', '.join(FOCUS_WORDS)} nor a "
                        f"combatant (known: {', '.join(sorted(sides))})", t.focus)
            if sides[t.focus] == sides[cid]:
                return ((cid, "focus"), f"focus '{t.focus}' is on {cid}'s own side '{sides[cid]}': name an enemy",
                        t.focus)
        if t.protect is not None:
            if t.protect not in sides:
                return ((cid, "protect"), f"protect '{t.protect}' names no combatant (known: "
                        f"{', '.join(sorted(sides))})", t.protect)
            if t.protect == cid:
                return ((cid, "protect"), f"{cid} cannot protect itself: name an ally", t.protect)
            if sides[t.protect] != sides[cid]:
                return ((cid, "protect"), f"protect '{t.protect}' is on side '{sides[t.protect]}', not {cid}'s "
                        f"side '{sides[cid]}': name an ally", t.protect)
    return None
