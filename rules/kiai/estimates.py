"""Kiai's tactical estimates: hit, dodge and damage odds from the engine's own values (it never rolls).

An `Estimator` is built for one decision and reads the combat's state and static context: effective hit and
dodge values after every modifier, criticals, damage dice against defense dice and each target's wound track.
"""

from __future__ import annotations

import math
from typing import Any

from trpg_arena.rules.core.combat import Combat
from trpg_arena.rules.kiai.checks import apply_mult, has, wound_penalty
from trpg_arena.rules.kiai.context import Ctx, ctx_of
from trpg_arena.rules.kiai.state import Fighter, KiaiState
from trpg_arena.rules.kiai.strike import dodge_parts

OUT_WEIGHT = 4.0  # a foe taken out is worth this many damage levels


def phi(z: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


class Estimator:
    """Probability and value estimates for one decision (reads the engine's values, never rolls)."""

    def __init__(self, combat: Combat) -> None:
        st = combat.state
        assert isinstance(st, KiaiState)
        self.st = st
        self.ctx: Ctx = ctx_of(combat)
        self.grid = self.ctx.grid
        self.fmin = self.ctx.opts.fumble_min
        self.div = self.ctx.opts.crit_divisor

    def p_le(self, v: int) -> float:
        """P(D100 succeeds at V), fumbles excluded."""
        return max(0, min(v, self.fmin - 1, 100)) / 100

    def p_crit(self, v: int) -> float:
        """P(D100 is critical at V)."""
        return max(0, min(v // self.div, self.fmin - 1, 100)) / 100 if v > 0 else 0.0

    def dodge_value(self, t: Fighter, x: int = 0) -> tuple[int, bool]:
        """The target's effective dodge value against a strike with technique X, and whether it rolls twice."""
        base, mult, mods, twice = dodge_parts(self.ctx, t, x)
        return apply_mult(base, mult) + sum(m for _, m in mods) + wound_penalty(self.ctx, t), twice

    def land(self, hit_v: int, t: Fighter, x: int) -> tuple[float, float]:
        """(P(normal hit lands), P(critical hit lands)) assuming the target dodges (when it can react)."""
        ph, pc = self.p_le(hit_v), self.p_crit(hit_v)
        if not self.can_react(t):
            return ph - pc, pc
        dv, twice = self.dodge_value(t, x)
        pd, pdc = self.p_le(dv), self.p_crit(dv)
        if twice:
            pd, pdc = 1 - (1 - pd) ** 2, 1 - (1 - pdc) ** 2
        return (ph - pc) * (1 - pd), pc * (1 - pdc) + 0.0 * (pd - pdc)

    @staticmethod
    def can_react(t: Fighter) -> bool:
        """Stunned or out fighters take every strike."""
        return not t.out and not has(t, "stunned")

    def out_level(self, t: Fighter) -> int:
        """The lowest damage level that takes `t` out (mortal or dead after overflow), 0..4."""
        boxes = self.ctx.boxes
        lvl = 3
        for lv in (2, 1, 0):
            if t.wounds[lv] >= boxes[lv] and lvl == lv + 1:
                lvl = lv
        return lvl

    def hit_value(self, dmg_mean: float, dmg_var: float, t: Fighter, crit: bool) -> float:
        """Expected worth (damage levels, a take-out counted OUT_WEIGHT) of a landing hit."""
        spec = self.ctx.spec[t.id]
        arm = spec.armour.level
        mean = dmg_mean - spec.defense - 5.5 * arm
        sd = math.sqrt(dmg_var + 8.25 * arm + 1.0)
        th = self.ctx.thresholds[t.id]
        rise = 1 if crit else 0
        total = 0.0
        for i in range(4):
            need = th[i - rise] if i - rise >= 0 else 1
            total += phi((mean - need + 0.5) / sd)
        lo = self.out_level(t) - rise
        need = th[lo] if lo >= 0 else 1
        p_out = phi((mean - need + 0.5) / sd)
        return total + OUT_WEIGHT * p_out

    def damage(self, cid: str, dice: int, *, base: int | None = None, mult: float = 1.0) -> tuple[float, float]:
        """Mean and variance of attack + dice D10 (times a charge multiplier)."""
        b = self.ctx.spec[cid].attack if base is None else base
        return (b + 5.5 * dice + (0.3 * dice if dice >= 2 else 0)) * mult, 8.25 * dice * mult * mult

    def strike(self, att: Fighter, t: Fighter, hit_v: int, x: int, dice: int, *, base: int | None = None,
               mult: float = 1.0) -> float:
        """Expected worth of one strike at `t`."""
        pn, pc = self.land(hit_v, t, x)
        if pn + pc <= 0:
            return 0.0
        mean, var = self.damage(att.id, dice, base=base, mult=mult)
        return pn * self.hit_value(mean, var, t, False) + pc * self.hit_value(mean, var, t, True)

    def threatens(self, e: Fighter, me: Fighter, at: Any = None) -> bool:
        """Whether enemy `e` could strike `me` (standing at `at`, by default where it is) before my next turn.

        Rough on purpose: anything within the enemy's agility plus reach counts.
        """
        if e.out or e.hex is None or me.hex is None or has(e, "stunned") or e.countered:
            return False
        if has(e, "intimidated", me.id):
            return False
        spec = self.ctx.spec[e.id]
        reach = self.ctx.weapon(e.main).reach
        return self.grid.distance(e.hex, me.hex if at is None else at) <= spec.agility + reach

    def enemies(self, me: Fighter) -> list[Fighter]:
        """Foes still in the fight."""
        side = self.ctx.side[me.id]
        return [f for f in self.st.fighters.values() if not f.out and self.ctx.side[f.id] != side]
