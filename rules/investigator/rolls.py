"""Dice and checks: success levels, bonus/penalty dice, dice expressions and damage (INV-0.1 .. INV-0.7)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import remember

if TYPE_CHECKING:
    from trpg_arena.rules.investigator.state import InvCombat

FUMBLE, FAILURE, REGULAR, HARD, EXTREME, CRITICAL = range(6)
LEVELS = ("Fumble", "Failure", "Regular", "Hard", "Extreme", "Critical")
LEVEL_OF_NAME = {"regular": REGULAR, "hard": HARD, "extreme": EXTREME}


def level_of(value: int, r: int) -> int:
    """Success level of result `r` against value `value` (INV-0.2)."""
    if r == 1:
        return CRITICAL
    if r == 100 or (value < 50 and r >= 96):
        return FUMBLE
    if r <= value // 5:
        return EXTREME
    if r <= value // 2:
        return HARD
    if r <= value:
        return REGULAR
    return FAILURE


def roll_d100(combat: InvCombat, bonus: int = 0, penalty: int = 0, *, roller: str = "",
              purpose: str = "") -> tuple[int, list[int]]:
    """Percentile result with bonus/penalty dice (INV-0.4): net clamped to +-2; returns (r, dice drawn).

    `roller` and `purpose` name the roll for dice rolled by hand.
    """
    n = max(-2, min(2, bonus - penalty))
    roll = combat.dice.roll
    b = roll(100, roller=roller, purpose=purpose)
    if n == 0:
        return b, [b]
    u = b % 10
    tens = [(b % 100) // 10]
    drawn = [b]
    for _ in range(abs(n)):
        # a bonus or penalty die: only its tens digit counts (INV-0.4)
        t = roll(10, "tens", roller=roller, purpose=f"{purpose}: a {'bonus' if n > 0 else 'penalty'} die")
        drawn.append(t)
        tens.append(t % 10)
    cands = [(10 * t + u) or 100 for t in tens]
    return (min(cands) if n > 0 else max(cands)), drawn


def dice_reasons(kind: str, reasons: Sequence[str]) -> str:
    """``1 bonus die: point-blank range`` - how many dice of a kind and where each comes from (INV-0.4).

    Each entry of `reasons` is one die; a reason that gives several dice is written once with ``x2``.
    """
    n = len(reasons)
    named = ", ".join(r if k == 1 else f"{r} x{k}" for r, k in Counter(reasons).items())
    return f"{n} {kind} {'die' if n == 1 else 'dice'}: {named}"


def check(combat: InvCombat, who: str, skill: str, value: int, *, bonus_from: Sequence[str] = (),
          penalty_from: Sequence[str] = (), required: int = REGULAR, rule: str = "INV-0.2",
          why: str = "") -> tuple[int, int]:
    """Make a check and emit a ``check`` event; returns (result, level).

    `bonus_from` and `penalty_from` name the source of each bonus and penalty die, one entry a die
    (``point-blank range``; INV-0.4 lists the sources), so the log says why the dice were rolled.
    `why` says what raised the level needed above Regular (``the line of fire is obstructed``).
    """
    bonus, penalty = len(bonus_from), len(penalty_from)
    r, drawn = roll_d100(combat, bonus, penalty, roller=who, purpose=f"a {skill} roll ({value})")
    lvl = level_of(value, r)
    ok = lvl >= required
    if not combat.recording:  # the sentence is only built to be logged
        return r, lvl
    extra = ""
    if bonus or penalty:
        sides = [dice_reasons(kind, reasons) for kind, reasons in (("bonus", bonus_from), ("penalty", penalty_from))
                 if reasons]
        extra = f" ({'; '.join(sides)}; dice {drawn})"
    needs = "" if required == REGULAR else f" (needs {LEVELS[required]}" + (f": {why})" if why else ")")
    combat.emit("check", f"{who} rolls {skill} {value}: {r}{extra} -> {LEVELS[lvl]}{needs}"
                         f"{'' if ok else ' - fails'}",
                actor=who, rule=rule, skill=skill, value=value, bonus=bonus, penalty=penalty, dice=drawn,
                result=r, level=LEVELS[lvl], required=LEVELS[required], passed=ok)
    return r, lvl


_TERM = re.compile(r"([+-]?)\s*(\d+)(?:[dD](\d+))?")


@dataclass(frozen=True, slots=True)
class Expr:
    """A dice expression ``term (+|- term)*`` (INV-0.1): dice terms (sign, count, sides) and a flat part."""

    dice: tuple[tuple[int, int, int], ...]
    flat: int

    @property
    def maximum(self) -> int:
        """Sum with every die at its maximum."""
        return self.flat + sum(s * n * d for s, n, d in self.dice)

    def roll(self, combat: InvCombat, roller: str = "", purpose: str = "") -> tuple[int, list[int]]:
        """Roll each die left to right; returns (total, faces). `roller`, `purpose`: for dice rolled by hand."""
        total = self.flat
        faces: list[int] = []
        for sign, n, d in self.dice:
            rolled = combat.dice.roll_many(n, d, roller=roller, purpose=f"{purpose} ({self})")
            faces.extend(rolled)
            total += sign * sum(rolled)
        return total, faces

    def __str__(self) -> str:
        # worded once per expression: every damage roll words its dice for the log and for dice rolled by hand
        out = _WORDED.get(self)
        if out is None:
            parts = [f"{'-' if s < 0 else '+'}{n}D{d}" for s, n, d in self.dice]
            if self.flat:
                parts.append(f"{self.flat:+d}")
            out = "".join(parts) or "0"
            out = remember(_WORDED, self, out[1:] if out.startswith("+") else out, WORDED_KEPT)
        return out


_WORDED: dict[Expr, str] = {}  # `Expr.__str__`'s; expressions come from the encounters' weapons, spells and builds
WORDED_KEPT = 4096  # expressions worded before `_WORDED` starts afresh (a bound on memory; only speed is lost)


@cache
def parse_expr(text: str | int) -> Expr:
    """Parse ``1D6+2``, ``2D6``, ``-1`` (parsed once per distinct text)."""
    if isinstance(text, int):
        return Expr((), text)
    dice: list[tuple[int, int, int]] = []
    flat = 0
    for sign, num, sides in _TERM.findall(text.replace(" ", "")):
        s = -1 if sign == "-" else 1
        if sides:
            dice.append((s, int(num), int(sides)))
        else:
            flat += s * int(num)
    return Expr(tuple(dice), flat)


def db_and_build(str_siz: int) -> tuple[Expr, int]:
    """Damage bonus and Build from STR + SIZ (INV-0.6 table)."""
    if str_siz <= 64:
        return Expr((), -2), -2
    if str_siz <= 84:
        return Expr((), -1), -1
    if str_siz <= 124:
        return Expr((), 0), 0
    if str_siz <= 164:
        return Expr(((1, 1, 4),), 0), 1
    if str_siz <= 204:
        return Expr(((1, 1, 6),), 0), 2
    if str_siz <= 284:
        return Expr(((1, 2, 6),), 0), 3
    extra = -(-(str_siz - 284) // 80)  # each further 80 or part of 80
    return Expr(((1, 2 + extra, 6),), 0), 3 + extra


def derived(str_: int, con: int, siz: int, dex: int, pow_: int) -> tuple[int, int, int, Expr, int]:
    """(max_hp, max_mp, mov, db, build) from characteristics (INV-0.6)."""
    mov = 8
    if dex < siz and str_ < siz:
        mov = 7
    elif dex > siz and str_ > siz:
        mov = 9
    db, build = db_and_build(str_ + siz)
    return (con + siz) // 10, pow_ // 5, mov, db, build


def trunc_half(x: int) -> int:
    """Halve toward zero."""
    return int(x / 2)
