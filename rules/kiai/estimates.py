"""Kiai's tactical estimates: hit, dodge and damage odds from the engine's own values (it never rolls).

An `Estimator` is built for one decision and reads the combat's state and static context: effective hit and
dodge values after every modifier, criticals, damage dice against defense dice and each target's wound track.
"""

from __future__ import annotations

import math
from typing import Any

from trpg_arena.rules.kiai.checks import apply_mult, has, wound_penalty
from trpg_arena.rules.kiai.context import Ctx
from trpg_arena.rules.kiai.state import Fighter, KiaiCombat
from trpg_arena.rules.kiai.strike import dodge_parts
from trpg_arena.rules.kiai.verbs import Condition

OUT_WEIGHT = 4.0  # a foe taken out is worth this many damage levels


def phi(z: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


class Estimator:
    """Probability and value estimates for one decision (reads the engine's values, never rolls).

    The state does not change while a decision is weighed, so what many candidates ask again (a strike's
    worth, who threatens whom, the enemies) is worked out once and kept for the decision.
    """

    def __init__(self, combat: KiaiCombat) -> None:
        self.st = combat.state
        self.ctx: Ctx = combat.tables
        self.grid = self.ctx.grid
        self.fmin = self.ctx.opts.fumble_min
        self.div = self.ctx.opts.crit_divisor
        self._strikes: dict[tuple[Any, ...], float] = {}
        self._threats: dict[tuple[str, str], bool] = {}
        self._enemies: dict[str, list[Fighter]] = {}
        self._hits: dict[tuple[float, float, str, bool], float] = {}

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
        return not t.out and not has(t, Condition.STUNNED)

    def out_level(self, t: Fighter) -> int:
        """The lowest damage level that takes `t` out (mortal or dead after overflow), 0..4."""
        boxes = self.ctx.boxes
        lvl = 3
        for lv in (2, 1, 0):
            if t.wounds[lv] >= boxes[lv] and lvl == lv + 1:
                lvl = lv
        return lvl

    def hit_value(self, dmg_mean: float, dmg_var: float, t: Fighter, crit: bool) -> float:
        """Expected worth (damage levels, a take-out counted OUT_WEIGHT) of a landing hit.

        Kept for the decision: the techniques of one weapon differ in their odds, not in their damage.
        """
        key = (dmg_mean, dmg_var, t.id, crit)
        worth = self._hits.get(key)
        if worth is None:
            worth = self._hits[key] = self._hit_value(dmg_mean, dmg_var, t, crit)
        return worth

    def _hit_value(self, dmg_mean: float, dmg_var: float, t: Fighter, crit: bool) -> float:
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
        """Expected worth of one strike at `t` (worked out once per decision for the same strike)."""
        key = (att.id, t.id, hit_v, x, dice, base, mult)
        worth = self._strikes.get(key)
        if worth is None:
            worth = self._strikes[key] = self._strike(att, t, hit_v, x, dice, base, mult)
        return worth

    def _strike(self, att: Fighter, t: Fighter, hit_v: int, x: int, dice: int, base: int | None,
                mult: float) -> float:
        pn, pc = self.land(hit_v, t, x)
        if pn + pc <= 0:
            return 0.0
        mean, var = self.damage(att.id, dice, base=base, mult=mult)
        return pn * self.hit_value(mean, var, t, False) + pc * self.hit_value(mean, var, t, True)

    def threatens(self, e: Fighter, me: Fighter, at: Any = None) -> bool:
        """Whether enemy `e` could strike `me` (standing at `at`, by default where it is) before my next turn.

        Rough on purpose: anything within the enemy's agility plus reach counts.
        """
        if at is None:  # where `me` stands: asked for many candidates, so kept for the decision
            key = (e.id, me.id)
            known = self._threats.get(key)
            if known is None:
                known = self._threats[key] = self._threatens(e, me, me.hex)
            return known
        return self._threatens(e, me, at)

    def _threatens(self, e: Fighter, me: Fighter, at: Any) -> bool:
        reach = self.threat_range(e, me)
        return reach >= 0 and e.hex is not None and at is not None and self.grid.distance(e.hex, at) <= reach

    def threat_range(self, e: Fighter, me: Fighter) -> int:
        """How far from its hex enemy `e` could strike `me` before `me`'s next turn (-1: it cannot at all)."""
        if e.out or e.hex is None or me.hex is None or has(e, Condition.STUNNED) or e.countered:
            return -1
        if has(e, Condition.INTIMIDATED, me.id):
            return -1
        return self.ctx.spec[e.id].agility + self.ctx.weapon(e.main).reach

    def enemies(self, me: Fighter) -> list[Fighter]:
        """Foes still in the fight (the same list for the whole decision: read it, do not change it)."""
        foes = self._enemies.get(me.id)
        if foes is None:
            side = self.ctx.side[me.id]
            foes = self._enemies[me.id] = [f for f in self.st.fighters.values()
                                           if not f.out and self.ctx.side[f.id] != side]
        return foes
