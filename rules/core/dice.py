"""Dice: the only source of randomness of a combat, seeded or scripted."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from trpg_arena.rules.core.errors import DiceScriptError, SnapshotError

#: The largest seed every part takes: a game's, a series' first, a training run's (SB3 and the server take 0..2**32-1).
SEED_MAX = 2**32 - 1
_NOTATION = re.compile(r"^\s*(\d*)\s*[dD]\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$")


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """Parsed dice notation such as ``2D6+3``: `count` dice of `sides` faces plus `flat`."""

    count: int
    sides: int
    flat: int = 0

    @classmethod
    def parse(cls, text: str | int) -> DiceExpr:
        """Parse ``"2D6"``, ``"1D100"``, ``"3d10+2"`` or a bare integer (a flat amount)."""
        if isinstance(text, int):
            return cls(0, 6, text)
        if text.strip().lstrip("+-").isdecimal():
            return cls(0, 6, int(text))
        m = _NOTATION.match(text)
        if not m:
            raise ValueError(f"not dice notation: {text!r} (expected e.g. '2D6' or '1D6+3')")
        count = int(m.group(1) or 1)
        sides = int(m.group(2))
        flat = int(m.group(4) or 0) * (-1 if m.group(3) == "-" else 1)
        if sides < 2:
            raise ValueError(f"a die needs at least 2 sides: {text!r}")
        return cls(count, sides, flat)

    def __str__(self) -> str:
        core = f"{self.count}D{self.sides}" if self.count else ""
        if self.flat and core:
            return f"{core}{self.flat:+d}"
        return core or str(self.flat)


class Dice:
    """Dice drawn from one `numpy.random.Generator`; never touches the module-global RNGs.

    Uniform numbers are drawn from the generator in blocks of `BLOCK` (one numpy call instead of
    one per die) and a die of n sides shows ``1 + floor(u * n)``. The state records the generator
    state at the start of the current block and the position in it, so snapshots, copies and
    restores continue with exactly the same faces.
    """

    scripted = False
    # Whether rolling may raise in the middle of an act by design (a script that runs out, a table that
    # waits for faces typed by hand): the combat then keeps its rollback base one act behind (see `Combat`).
    interrupts = False
    BLOCK = 256

    def __init__(self, rng: np.random.Generator | int | None = None) -> None:
        self._rng: np.random.Generator | None = rng if isinstance(rng, np.random.Generator) \
            else np.random.default_rng(rng)
        self._after: Any = None  # numpy generator state to resume from while `_rng` is not built
        self._buf: list[float] = []  # never changed in place (a refill makes a new list): copies share it
        self._pos = 0
        self._start: dict[str, Any] | None = None

    @property
    def rng(self) -> np.random.Generator:
        """The generator behind the dice (a copy builds its own only when it first needs a new block)."""
        if self._rng is None:
            bitgen = np.random.PCG64()
            bitgen.state = self._after
            self._rng = np.random.Generator(bitgen)
        return self._rng

    def _refill(self) -> None:
        rng = self.rng
        self._start = dict(rng.bit_generator.state)
        self._buf = rng.random(self.BLOCK).tolist()
        self._after = rng.bit_generator.state
        self._pos = 0

    def roll(self, sides: int, what: str = "", *, roller: str = "", purpose: str = "") -> int:
        """Roll one die with `sides` faces.

        The rest only matters to dice rolled by hand (`TableDice`): `what` names a special die (``"tens"``),
        `roller` who rolls it and `purpose` what it is for (``"kei"``, ``"initiative"``), so the table hands
        the dice to the right player.
        """
        if self._pos >= len(self._buf):
            self._refill()
        u = self._buf[self._pos]
        self._pos += 1
        return int(u * sides) + 1

    def roll_many(self, count: int, sides: int, what: str = "", *, roller: str = "",
                  purpose: str = "") -> list[int]:
        """Roll `count` dice with `sides` faces, in draw order (one request when rolled by hand; see `roll`)."""
        return [self.roll(sides) for _ in range(count)]

    def state(self) -> dict[str, Any]:
        """JSON-safe state from which `Dice.from_state` continues identically."""
        if self._start is None:
            return {"kind": "rng", "state": self.rng.bit_generator.state, "pos": 0, "buffered": False}
        return {"kind": "rng", "state": self._start, "pos": self._pos, "buffered": True}

    def copy(self) -> Dice:
        """An independent copy that will draw the same numbers.

        Cheap (search clones a combat thousands of times): the copy shares the current block of numbers,
        which nobody changes, and builds its own generator only when that block runs out.
        """
        other = Dice.__new__(Dice)
        other._rng = None
        other._after = self._after if self._start is not None else self.rng.bit_generator.state
        other._buf, other._pos, other._start = self._buf, self._pos, self._start
        return other

    def load_state(self, data: dict[str, Any]) -> None:
        """Go back to a `state()` of these same dice, in place (the kernel's rollback keeps the dice object)."""
        other = Dice.from_state(data)
        self._rng, self._after = other._rng, other._after
        self._buf, self._pos, self._start = other._buf, other._pos, other._start

    @staticmethod
    def from_state(data: dict[str, Any]) -> Dice:
        """Rebuild seeded, scripted or table dice from `state()`."""
        if data.get("kind") == "scripted":
            return ScriptedDice([tuple(p) for p in data["script"]], position=data.get("position", 0))
        if data.get("kind") == "table":
            from trpg_arena.rules.core.table_dice import TableDice

            return TableDice.from_table_state(data)
        bitgen = np.random.PCG64()
        bitgen.state = data["state"]
        dice = Dice(np.random.Generator(bitgen))
        if data.get("buffered"):
            dice._refill()
            pos = data.get("pos", 0)
            if isinstance(pos, bool) or not isinstance(pos, int) or not 0 <= pos <= Dice.BLOCK:
                raise SnapshotError(f"dice state: pos {pos!r} is not a place in a block of {Dice.BLOCK} numbers")
            dice._pos = pos
        return dice


class ScriptedDice(Dice):
    """Forced faces for tests: ``ScriptedDice([(6, 4), (6, 3)])`` yields a 4 then a 3 on d6s.

    Every roll must ask for the scripted die size; a face outside 1..sides or running out of script
    raises `DiceScriptError`, so tests catch wrong dice consumption as well as wrong results.
    """

    scripted = True
    interrupts = True  # a script that runs out raises in the middle of an act

    def __init__(self, script: Iterable[tuple[int, int]], position: int = 0) -> None:
        self.script = [(int(s), int(f)) for s, f in script]
        for i, (sides, face) in enumerate(self.script):
            if sides < 2 or not 1 <= face <= sides:
                raise DiceScriptError(f"scripted roll #{i + 1} is ({sides}, {face}): face must be 1..{sides}")
        self.position = position

    @classmethod
    def d(cls, sides: int, *faces: int) -> ScriptedDice:
        """Shorthand for a script of one die size: ``ScriptedDice.d(6, 4, 3, 5)``."""
        return cls([(sides, f) for f in faces])

    def roll(self, sides: int, what: str = "", *, roller: str = "", purpose: str = "") -> int:
        """Return the next scripted face; the script must ask for this die size."""
        if self.position >= len(self.script):
            raise DiceScriptError(f"dice script ran out: roll #{self.position + 1} asked for a d{sides} "
                                  f"after all {len(self.script)} scripted rolls were used")
        want, face = self.script[self.position]
        if want != sides:
            raise DiceScriptError(f"scripted roll #{self.position + 1} is a d{want} but the engine rolled a d{sides}")
        self.position += 1
        return face

    @property
    def remaining(self) -> int:
        """How many scripted rolls are left."""
        return len(self.script) - self.position

    def state(self) -> dict[str, Any]:
        """JSON-safe state (script and position)."""
        return {"kind": "scripted", "script": [list(p) for p in self.script], "position": self.position}

    def copy(self) -> ScriptedDice:
        """An independent copy at the same position."""
        return ScriptedDice(self.script, self.position)

    def load_state(self, data: dict[str, Any]) -> None:
        """Go back to an earlier position of this script, in place."""
        self.position = int(data.get("position", 0))
