"""Dice the players roll at the table: faces typed in by hand, asked for when the engine needs them.

`TableDice` wraps the combat's engine dice. A roll is by hand when `by_hand` is on (the whole table) or
`hand` says so for its roller (one seat's dice: whoever's decision the roll follows); otherwise the engine
rolls it, exactly as it would without a table. A roll by hand takes its face from what a person entered,
and with no face waiting raises `DiceNeeded` (naming the die, the count, who rolls it and what for: the
rules name each roll). `Combat.act` applies fully or changes nothing, so the action is simply tried again
once the faces are entered. Each face typed is kept for the roller it was asked of: the next roll of that
roller takes it, even once by-hand dice are switched off; the engine rolls the rest.

Every face it hands out, by hand or not, goes on a tape. When the kernel rolls a failed action back
and replays the decisions since its base point, those decisions read their faces back from the tape,
so a replay never asks again and never depends on the switch's position now.
"""

from __future__ import annotations

import re
from collections.abc import Callable
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
    """The engine's dice plus "the players roll" (`by_hand` for every roll, `hand` by roller) and the faces typed."""

    interrupts = True  # a roll by hand raises `DiceNeeded` until its faces are entered

    def __init__(self, engine: Dice | None = None, *, by_hand: bool = False, cursor: int = 0) -> None:
        self.engine = engine if engine is not None else Dice()
        self.by_hand = by_hand  # every roll by hand (the whole table)
        self.hand: Callable[[str], bool] | None = None  # which rollers roll by hand besides (None: none)
        self.context = ""
        # (sides, face, roller if rolled by hand else None) of every roll from `_tape_start`
        self._tape: list[tuple[int, int, str | None]] = []
        self._tape_start = cursor
        self._cursor = cursor  # rolls handed out in all (the tape's index plus its start)
        # faces typed for the action being tried, each with the roller it was asked of (None: whichever roll comes
        # next, as in a record kept before faces named their roller)
        self._entered: list[tuple[int, str | None]] = []
        self._used: set[int] = set()  # of them, those the current attempt has taken (by index)

    # --- entering faces -------------------------------------------------------------------------
    def enter(self, request: DiceRequest, entry: str | list[int] | tuple[int, ...]) -> list[int]:
        """Check an entry against a request and queue its faces for the next attempt; returns them."""
        faces = request.parse(entry)
        self._entered.extend((face, request.roller) for face in faces)
        return faces

    def queue(self, faces: list[tuple[int, str | None]]) -> None:
        """Queue faces already checked, each for its roller (a replay of recorded hand rolls, or `entered` again)."""
        self._entered.extend(faces)

    def discard_entered(self) -> None:
        """Forget the faces typed for an action that is given up."""
        self._entered.clear()
        self._used = set()

    @property
    def entered(self) -> list[tuple[int, str | None]]:
        """Faces typed in for the action being tried, each with its roller (cleared by `settle`)."""
        return list(self._entered)

    def settle(self, applied: bool) -> list[tuple[int, int, str]]:
        """After an attempt: on success, the (sides, face, roller) of each roll by hand in it; else forget its tape.

        Call it after every `act` of a combat with these dice: a failed attempt's rolls must not stay on the
        tape (a replay would read them), and the faces typed stay queued for the next try.
        """
        del self._tape[self._cursor - self._tape_start:]
        self._used = set()
        if not applied:
            return []
        self._entered.clear()
        return [(s, f, roller) for s, f, roller in self._tape[self._attempt_start - self._tape_start:]
                if roller is not None]

    def begin(self) -> None:
        """Mark the start of an attempt (what `settle` reports counts from here)."""
        self._attempt_start = self._cursor
        self._used = set()

    _attempt_start = 0

    # --- rolling --------------------------------------------------------------------------------
    def _next(self, sides: int, count: int, what: str, roller: str, purpose: str) -> list[int]:
        out: list[int] = []
        while len(out) < count:
            i = self._cursor - self._tape_start
            if 0 <= i < len(self._tape):  # a replay: the faces this roll had the first time
                s, face, by = self._tape[i]
                if s != sides:
                    raise RuntimeError(f"dice replay mismatch: roll #{self._cursor + 1} was a d{s}, now a d{sides}")
                if by is None:
                    self.engine.roll(sides)  # keep the engine's stream where it was after this roll
            elif (typed := self._typed_for(roller)) is not None:  # typed faces stand even if the switch went off
                face = self._entered[typed][0]
                if not 1 <= face <= sides:
                    raise DiceEntryError(f"entered face {face} does not fit a d{sides}")
                self._used.add(typed)
                self._tape.append((sides, face, roller))
            elif self.by_hand or (self.hand is not None and self.hand(roller)):
                raise DiceNeeded(DiceRequest(sides, count - len(out), what, self.context, roller, purpose))
            else:
                face = self.engine.roll(sides)
                self._tape.append((sides, face, None))
            self._cursor += 1
            out.append(face)
        return out

    def _typed_for(self, roller: str) -> int | None:
        """The index of the first face typed for this roller and not yet taken, if any.

        Each roller's faces are taken in the order typed, whatever the others' rolls between them: should the
        seats change while a roll waits, a roll now by hand before the one asked for is asked in turn and fits.
        """
        if len(self._used) == len(self._entered):
            return None  # none waiting (the usual case: no face was typed)
        return next((i for i, (_, owner) in enumerate(self._entered)
                     if i not in self._used and (owner is None or owner == roller)), None)

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
        self._used = set()
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
