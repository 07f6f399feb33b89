"""Dice the players roll at the table: faces typed in by hand, asked for when the engine needs them.

`TableDice` wraps the combat's engine dice. While `by_hand` is off it rolls them; while it is on, every
face comes from what a person entered, and a roll with no face waiting raises `DiceNeeded` (naming the
die, the count, who rolls it and what for: the rules name each roll). `Combat.act` applies fully or
changes nothing, so the action is simply tried again once the faces are entered. Faces already typed
for the action being tried are used first even once `by_hand` is switched off; the engine rolls the rest.

Every face it hands out, by hand or not, goes on a tape. When the kernel rolls a failed action back
and replays the decisions since its base point, those decisions read their faces back from the tape,
so a replay never asks again and never depends on the switch's position now.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from trpg_arena.rules.core.dice import Dice
from trpg_arena.rules.core.errors import DiceEntryError, DiceNeeded

FACE_DIGITS = 6  # a face has 3 digits at most ("100"), with room for leading zeros; longer is refused before int()
SHOWN_LENGTH = 12  # of a refused entry, as much as is quoted back


def _shown(token: str) -> str:
    """A refused entry as quoted back: cut short, so one line stays one line."""
    return token if len(token) <= SHOWN_LENGTH else token[:SHOWN_LENGTH] + "..."


@dataclass(frozen=True, slots=True)
class DiceRequest:
    """Dice the engine needs from the table: `count` dice of `sides` faces, rolled by `roller` for `purpose`."""

    sides: int
    count: int
    what: str = ""  # e.g. "tens" for a percentile bonus/penalty die (faces 00-90)
    context: str = ""  # the decision being resolved, e.g. "B1: attack -> A2"
    roller: str = ""  # who rolls: a combatant (or a side, for a side's tie-break die)
    purpose: str = ""  # what the roll is, e.g. "initiative", "defence against ghoul's damage"

    @property
    def die(self) -> str:
        """Dice notation of the request, e.g. ``3D10``."""
        return f"{self.count}D{self.sides}" + (f" ({self.what} die)" if self.what else "")

    @property
    def faces_help(self) -> str:
        """What a person may type for one die."""
        if self.what == "tens":
            return "00, 10, ... 90"
        if self.sides == 100:
            return "1-100 (00 = 100), or the tens and units dice, e.g. '70 3'"
        if self.sides == 10:
            return "1-10 (0 = 10)"
        return f"1-{self.sides}"

    @property
    def example(self) -> str:
        """An entry this request accepts, to show how to type one (``'4 6'``, ``'42'``, ``'30'``)."""
        if self.what == "tens":
            return " ".join(["30", "70"][: self.count] + ["50"] * max(0, self.count - 2))
        if self.sides == 100:
            return " ".join(["42"] * self.count)
        faces = [4, 6, 2, 5, 3, 1][: self.count] + [3] * (self.count - 6)
        return " ".join(str(min(self.sides, face)) for face in faces)

    def text(self) -> str:
        """The sentence a person reads: ``kaede rolls 2D10 for defence (after shaman: attack kaede)``."""
        if not (self.roller or self.purpose):  # a roll its rules do not name: at least the decision behind it
            lead = f"{self.context}: " if self.context else ""
            return f"{lead}roll {self.die}"
        line = f"{self.roller or 'the GM'} rolls {self.die}" + (f" for {self.purpose}" if self.purpose else "")
        return line + (f" (after {self.context})" if self.context else "")

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"sides": self.sides, "count": self.count, "what": self.what, "context": self.context,
                "roller": self.roller, "purpose": self.purpose, "die": self.die, "faces": self.faces_help,
                "example": self.example,
                "text": self.text()}

    def parse(self, entry: str | list[int] | tuple[int, ...]) -> list[int]:
        """Engine faces from what a person typed (``"4 6 10"``) or a list of numbers; `DiceEntryError` if wrong."""
        tokens = [str(t) for t in entry] if isinstance(entry, list | tuple) else re.split(r"[\s,;]+", entry.strip())
        tokens = [t for t in tokens if t]
        if not tokens:
            raise DiceEntryError(f"no faces entered: {self.text()}")
        for t in tokens:
            # isdigit() also holds for "³", which int() refuses; a number of thousands of digits int() refuses too
            if not t.isdecimal() or len(t) > FACE_DIGITS:
                raise DiceEntryError(f"'{_shown(t)}' is not a face of this die ({self.faces_help}): {self.text()}")
        if self.sides == 100 and self.what != "tens" and self.count == 1 and len(tokens) == 2:
            tokens = [self._percentile(tokens[0], tokens[1])]
        if len(tokens) != self.count:
            entered = f"{len(tokens)} face{'' if len(tokens) == 1 else 's'} entered"
            raise DiceEntryError(f"{entered}, {self.count} needed: {self.text()}")
        return [self._face(t) for t in tokens]

    def _percentile(self, tens: str, units: str) -> str:
        t, u = int(tens), int(units)
        if t % 10 or not 0 <= t <= 90:
            raise DiceEntryError(f"tens die shows 00-90, got '{tens}': {self.text()}")
        if not 0 <= u <= 9:
            raise DiceEntryError(f"units die shows 0-9, got '{units}': {self.text()}")
        return str(t + u or 100)

    def _face(self, token: str) -> int:
        n = int(token)
        if self.what == "tens":
            if n % 10 or not 0 <= n <= 90:
                raise DiceEntryError(f"a tens die shows 00, 10, ... 90, got '{token}': {self.text()}")
            return n // 10 or 10
        if self.sides in (10, 100) and n == 0:
            return self.sides  # a d10's 0 (and a percentile 00) read as the top face
        if not 1 <= n <= self.sides:
            raise DiceEntryError(f"a D{self.sides} shows {self.faces_help}, got '{token}': {self.text()}")
        return n


class TableDice(Dice):
    """The engine's dice plus a "the players roll" switch (`by_hand`) and the faces entered by hand."""

    interrupts = True  # a roll by hand raises `DiceNeeded` until its faces are entered

    def __init__(self, engine: Dice | None = None, *, by_hand: bool = False, cursor: int = 0) -> None:
        self.engine = engine if engine is not None else Dice()
        self.by_hand = by_hand
        self.context = ""
        self._tape: list[tuple[int, int, bool]] = []  # (sides, face, by hand) of every roll from `_tape_start`
        self._tape_start = cursor
        self._cursor = cursor  # rolls handed out in all (the tape's index plus its start)
        self._entered: list[int] = []  # faces typed for the action being tried
        self._used = 0  # of them, how many the current attempt has taken

    # --- entering faces -------------------------------------------------------------------------
    def enter(self, request: DiceRequest, entry: str | list[int] | tuple[int, ...]) -> list[int]:
        """Check an entry against a request and queue its faces for the next attempt; returns them."""
        faces = request.parse(entry)
        self._entered.extend(faces)
        return faces

    def queue(self, faces: list[int]) -> None:
        """Queue faces already checked (a replay of recorded hand rolls)."""
        self._entered.extend(faces)

    def discard_entered(self) -> None:
        """Forget the faces typed for an action that is given up."""
        self._entered.clear()
        self._used = 0

    @property
    def entered(self) -> list[int]:
        """Faces typed in for the action being tried (cleared by `settle`)."""
        return list(self._entered)

    def settle(self, applied: bool) -> list[tuple[int, int]]:
        """After an attempt: on success, the (sides, face) pairs entered by hand for it; otherwise forget its tape.

        Call it after every `act` of a combat with these dice: a failed attempt's rolls must not stay on the
        tape (a replay would read them), and the faces typed stay queued for the next try.
        """
        del self._tape[self._cursor - self._tape_start:]
        self._used = 0
        if not applied:
            return []
        self._entered.clear()
        return [(s, f) for s, f, hand in self._tape[self._attempt_start - self._tape_start:] if hand]

    def begin(self) -> None:
        """Mark the start of an attempt (what `settle` reports counts from here)."""
        self._attempt_start = self._cursor
        self._used = 0

    _attempt_start = 0

    # --- rolling --------------------------------------------------------------------------------
    def _next(self, sides: int, count: int, what: str, roller: str, purpose: str) -> list[int]:
        out: list[int] = []
        while len(out) < count:
            i = self._cursor - self._tape_start
            if 0 <= i < len(self._tape):  # a replay: the faces this roll had the first time
                s, face, hand = self._tape[i]
                if s != sides:
                    raise RuntimeError(f"dice replay mismatch: roll #{self._cursor + 1} was a d{s}, now a d{sides}")
                if not hand:
                    self.engine.roll(sides)  # keep the engine's stream where it was after this roll
            elif self._used < len(self._entered):  # typed faces stand even if the switch went off since
                face, hand = self._entered[self._used], True
                if not 1 <= face <= sides:
                    raise DiceEntryError(f"entered face {face} does not fit a d{sides}")
                self._used += 1
                self._tape.append((sides, face, True))
            elif self.by_hand:
                raise DiceNeeded(DiceRequest(sides, count - len(out), what, self.context, roller, purpose))
            else:
                face, hand = self.engine.roll(sides), False
                self._tape.append((sides, face, False))
            self._cursor += 1
            out.append(face)
        return out

    def roll(self, sides: int, what: str = "", *, roller: str = "", purpose: str = "") -> int:
        """One die: the engine's, or (by hand) the next face entered; `roller` and `purpose` name the request."""
        return self._next(sides, 1, what, roller, purpose)[0]

    def roll_many(self, count: int, sides: int, what: str = "", *, roller: str = "",
                  purpose: str = "") -> list[int]:
        """`count` dice at once (asked for together when rolled by hand)."""
        return self._next(sides, count, what, roller, purpose)

    # --- state ----------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """JSON-safe state: the engine dice, the switch and the roll count."""
        return {"kind": "table", "engine": self.engine.state(), "by_hand": self.by_hand, "cursor": self._cursor}

    def load_state(self, data: dict[str, Any]) -> None:
        """Go back to a state of these dice (the kernel's rollback); the tape stays for the replay."""
        self.engine = Dice.from_state(data["engine"])
        self._cursor = int(data["cursor"])
        self._used = 0
        if self._cursor < self._tape_start:  # before anything this object rolled: start a fresh tape
            self._tape.clear()
            self._tape_start = self._cursor

    def copy(self) -> Dice:
        """Independent engine dice that continue the same stream (for search: never asks the table)."""
        return self.engine.copy()

    @staticmethod
    def from_table_state(data: dict[str, Any]) -> TableDice:
        """Rebuild from `state()`."""
        return TableDice(Dice.from_state(data["engine"]), by_hand=bool(data.get("by_hand")),
                         cursor=int(data.get("cursor", 0)))
