"""D100 checks, grades and effective values (KIA-0.2, KIA-0.3, KIA-7.6)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.kiai.context import Ctx
from trpg_arena.rules.kiai.state import CRITICAL, FAILURE, FUMBLE, GRADE_NAMES, SUCCESS, Fighter

if TYPE_CHECKING:
    from trpg_arena.rules.kiai.state import KiaiCombat


def status_index(f: Fighter) -> int:
    """KIA-7.5: highest checked level (-1 none, 0 light ... 3 mortal, 4 dead)."""
    if f.dead:
        return 4
    w = f.wounds
    for i in (3, 2, 1, 0):
        if w[i]:
            return i
    return -1


STATUS_NAMES = ("none", "light", "moderate", "serious", "mortal", "dead")


def wound_penalty(ctx: Ctx, f: Fighter) -> int:
    """KIA-7.6: the penalty of the highest wound status only (no stacking)."""
    return ctx.penalties[status_index(f) + 1]


def has(f: Fighter, ctype: str, source: str | None = None) -> bool:
    """Whether the fighter has a condition (optionally from one source)."""
    for c in f.conds:
        if c.type == ctype and (source is None or c.source == source):
            return True
    return False


def grade_of(ctx: Ctx, roll: int, v: int) -> int:
    """KIA-0.2: FUMBLE on >= fumble_min, CRITICAL on <= floor(V / crit_divisor), SUCCESS on <= V."""
    if roll >= ctx.opts.fumble_min:
        return FUMBLE
    if roll <= max(0, v // ctx.opts.crit_divisor):
        return CRITICAL
    if roll <= v:
        return SUCCESS
    return FAILURE


def apply_mult(base: int, mult: int) -> int:
    """KIA-0.3 step 2 (KIA-0.5: halving rounds down)."""
    if mult == 2:
        return base * 2
    if mult == -2:
        return base // 2
    return base


def check(combat: KiaiCombat, ctx: Ctx, who: Fighter, purpose: str, base: int, mult: int,
          mods: list[tuple[str, int]], rule: str, *, twice: bool = False) -> int:
    """Roll one D100 check (two with `twice`, best grade, KIA-20.1) and emit a `check` event; returns the grade.

    The wound penalty (KIA-7.6) is added here, for every check of every kind.
    """
    pen = wound_penalty(ctx, who)
    if pen:
        mods = [*mods, ("wounds", pen)]
    v = apply_mult(base, mult) + sum(m for _, m in mods)
    crit = max(0, v // ctx.opts.crit_divisor)
    dice = combat.dice
    rolls = [dice.roll(100, roller=who.id, purpose=f"a {purpose} check")]
    if twice:
        rolls.append(dice.roll(100, roller=who.id, purpose=f"a {purpose} check, rolled twice (the better counts)"))
    grade = max(grade_of(ctx, r, v) for r in rolls)
    combat.emit("check", f"{who.id} {purpose}: d100={'/'.join(map(str, rolls))} vs {v} (C {crit}) -> "
                f"{GRADE_NAMES[grade]}", actor=who.id, rule=rule, combatant=who.id, purpose=purpose, base=base,
                mult=mult, modifiers=[list(m) for m in mods], V=v, C=crit, rolls=rolls, grade=GRADE_NAMES[grade])
    return grade


def succeeded(grade: int) -> bool:
    """SUCCESS or CRITICAL."""
    return grade >= SUCCESS


__all__ = ["CRITICAL", "FAILURE", "FUMBLE", "SUCCESS", "apply_mult", "check", "grade_of", "has",
           "status_index", "succeeded", "wound_penalty"]
