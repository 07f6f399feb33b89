"""A scripted kiai player that plays like a competent table-top player.

It estimates every legal strike from the engine's own values (hit and dodge after every modifier,
criticals, damage dice against defense dice and the target's wound track) and then:

- closes in on the weakest reachable foe, charges with a spear, casts area spells only where no ally
  stands, puts a strong foe to sleep before closing in;
- picks the technique X that maximises the chance to land, feints against high-dodge foes, and spends
  kiai on damage techniques only when they are likely to end the fight (take the target out);
- all-out attacks a foe that cannot hit back (stunned, countered, or intimidated) when nobody else
  threatens it;
- reacts by the odds: dodging, attack-defense (when its damage should win) or a counter attack once
  its own turn is over this round; always chains consecutive attacks while they can still land.

Ties are broken by a seeded RNG of its own (never the combat's dice).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from trpg_arena.agents.base import Agent
from trpg_arena.agents.proposal import Proposal
from trpg_arena.agents.spec import register_agent
from trpg_arena.rules import Action, Combat
from trpg_arena.rules.kiai.checks import apply_mult, has, status_index, wound_penalty
from trpg_arena.rules.kiai.context import Ctx, ctx_of
from trpg_arena.rules.kiai.geometry import geo_of
from trpg_arena.rules.kiai.legal import base_hit, chain_value
from trpg_arena.rules.kiai.state import Fighter, KiaiState
from trpg_arena.rules.kiai.strike import dodge_parts

OUT_WEIGHT = 4.0  # a foe taken out is worth this many damage levels


def _phi(z: float) -> float:
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


class Estimator:
    """Probability and value estimates for one decision (reads the engine's values, never rolls)."""

    def __init__(self, combat: Combat) -> None:
        st = combat.state
        assert isinstance(st, KiaiState)
        self.st = st
        self.ctx: Ctx = ctx_of(combat)
        self.geo = geo_of(self.ctx)
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
            total += _phi((mean - need + 0.5) / sd)
        lo = self.out_level(t) - rise
        need = th[lo] if lo >= 0 else 1
        p_out = _phi((mean - need + 0.5) / sd)
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

    def threatens(self, e: Fighter, me: Fighter) -> bool:
        """Whether enemy `e` could strike `me` before my next turn (roughly)."""
        if e.out or e.hex is None or me.hex is None or has(e, "stunned") or e.countered:
            return False
        if has(e, "intimidated", me.id):
            return False
        spec = self.ctx.spec[e.id]
        reach = self.ctx.weapon(e.main).reach
        return self.geo.dist(e.hex, me.hex) <= spec.agility + reach

    def enemies(self, me: Fighter) -> list[Fighter]:
        """Foes still in the fight."""
        side = self.ctx.side[me.id]
        return [f for f in self.st.fighters.values() if not f.out and self.ctx.side[f.id] != side]


@register_agent("scripted", ruleset="kiai")
class KiaiScriptedAgent(Agent):
    """Heuristic kiai player (see the module docstring)."""

    def __init__(self, ruleset: str | None = None, rng: np.random.Generator | None = None,
                 seed: int | None = None) -> None:
        super().__init__(ruleset, rng if rng is not None else np.random.default_rng(seed))

    def propose(self, combat: Combat) -> Proposal:
        """The scripted choice."""
        return Proposal(self.act(combat), 0.0, ("the scripted policy's choice",))

    def act(self, combat: Combat) -> Action:
        """Choose an action for the current decision."""
        legal = combat.legal_actions()
        if len(legal) == 1:
            return legal[0]
        d = combat.decision
        assert d is not None
        est = Estimator(combat)
        me = est.st.fighters[d.actor]
        if d.step in ("R2", "R3"):
            return Action("dodge")
        if d.step == "R1":
            return self._react(est, me, legal)
        scored = [(self._score(est, me, a, d.step), i, a) for i, a in enumerate(legal)]
        best = max(s for s, _, _ in scored)
        top = [a for s, _, a in scored if s >= best - 1e-9]
        return top[int(self.rng.integers(len(top)))] if len(top) > 1 else top[0]

    # --- reactions -------------------------------------------------------------------------------
    def _react(self, est: Estimator, me: Fighter, legal: list[Action]) -> Action:
        fr = est.st.stack[-1]
        att = est.st.fighters[fr.attacker]
        ctx = est.ctx
        crit = fr.grade == 3
        dv, twice = est.dodge_value(me, fr.dodge_x)
        pd, pdc = est.p_le(dv), est.p_crit(dv)
        if twice:
            pd, pdc = 1 - (1 - pd) ** 2, 1 - (1 - pdc) ** 2
        # expected "badness" of the strike landing: ~1 level, a critical ~2
        p_land_dodge = (1 - pdc) if crit else (1 - pd)
        bad_dodge = p_land_dodge * (2.0 if crit and pd - pdc < 1 - pdc else 1.0)
        if crit:
            bad_dodge = (pd - pdc) * 1.0 + (1 - pd) * 2.0
        best_action, best_bad = Action("dodge"), bad_dodge
        a_dice = ctx.abilities[att.id][fr.ability].level if fr.ability else ctx.weapon(fr.weapon).level
        a_mean, a_var = est.damage(att.id, a_dice, mult=1.5 if fr.charge else 1.0)
        my_turn_done = self._turn_done(est, me)
        for a in legal:
            if a.verb not in ("attack_defense", "counter"):
                continue
            if a.verb == "counter" and not my_turn_done:
                continue  # countering would cost this round's attack
            hit_v = ctx.spec[me.id].hit + wound_penalty(ctx, me) - (20 if a.verb == "counter" else 0)
            if has(me, "deceived"):
                hit_v -= ctx.opts.illusion_penalty
            ph = est.p_le(hit_v)
            dice = ctx.abilities[me.id][a.option].level if a.option else ctx.weapon(me.main).level
            b_mean, b_var = est.damage(me.id, dice)
            p_win = _phi((b_mean - a_mean + 0.5) / math.sqrt(a_var + b_var + 1.0))
            land = 2.0 if crit else 1.0
            bad = (1 - ph) * (land + 1.0) + ph * (1 - p_win) * land
            if a.verb == "counter":
                bad -= ph * p_win * 1.5  # the counter strike hurts the attacker
            if a.option:
                bad += 0.3 * 2 * ctx.abilities[me.id][a.option].level / max(1, ctx.spec[me.id].kiai)
            if bad < best_bad - 0.05:
                best_action, best_bad = a, bad
        return best_action

    @staticmethod
    def _turn_done(est: Estimator, me: Fighter) -> bool:
        st = est.st
        if me.id not in st.order:
            return True
        pos = st.order.index(me.id)
        return pos < st.turn_index or (pos == st.turn_index and st.stage != "turn_start")

    # --- own decisions ---------------------------------------------------------------------------
    def _score(self, est: Estimator, me: Fighter, a: Action, kind: str) -> float:
        ctx = est.ctx
        verb = a.verb
        if verb in ("end_turn", "pass"):
            return 0.0
        if verb == "attack" or verb == "reattack":
            return self._attack_score(est, me, a)
        if verb == "consecutive_attack":
            t = est.st.fighters[a.target]
            v = chain_value(ctx, me)
            p_agi = 1.0 if me.chain_passed else est.p_le(ctx.spec[me.id].agility + wound_penalty(ctx, me))
            x = me.chain_x if ctx.opts.technique_chain_dodge_reduction else 0
            return p_agi * est.strike(me, t, v, x, ctx.weapon(me.main).level) + 0.01
        if verb == "two_weapon_attack":
            t = est.st.fighters[a.target]
            v = base_hit(ctx, me, bool(a.option))
            off = ctx.weapon(me.off)
            s = est.strike(me, t, v - 10, 0, ctx.weapon(me.main).level)
            s += est.strike(me, t, v - 20, 0, off.level)
            return s - (self._exposure(est, me) if a.option else 0.0)
        if verb == "offhand_attack":
            t = est.st.fighters[a.target]
            v = base_hit(ctx, me, me.chain_all_out)
            return est.strike(me, t, v - 20, 0, ctx.weapon(me.off).level) + 0.01
        if verb == "feint":
            return self._feint_score(est, me, a)
        if verb == "charge":
            t = est.st.fighters[a.target]
            mult = 3.0 if ctx.spec[me.id].dragon_knight else 2.0 if (
                ctx.spec[me.id].airborne or ctx.weapon(me.main).spec.category == "lance") else 1.5
            return est.strike(me, t, base_hit(ctx, me, False), 0, ctx.weapon(me.main).level, mult=mult) + 0.2
        if verb == "use_ability":
            return self._ability_score(est, me, a)
        if verb == "move":
            return self._move_score(est, me, a.dest, run=False)
        if verb == "run":
            return self._move_score(est, me, a.dest, run=True)
        if verb == "concentrate_dodge":
            threatened = any(est.threatens(e, me) for e in est.enemies(me))
            if not threatened:
                return 0.0
            return (0.15 if a.option == "bonus" else 0.12) + 0.1 * max(0, status_index(me))
        if verb == "ready_weapon":
            return 1.0 if not me.main else -1.0
        if verb == "pick_up":
            return 1.2 if not me.main else -1.0
        return -1.0  # break_weapon, disarm, flee: rarely worth it for this player

    def _exposure(self, est: Estimator, me: Fighter) -> float:
        """Cost of halving my dodge: how many foes could hit me before my next turn."""
        return 0.35 * sum(1 for e in est.enemies(me) if est.threatens(e, me))

    def _can_hit_back(self, est: Estimator, t: Fighter, me: Fighter) -> bool:
        return est.threatens(t, me)

    def _attack_score(self, est: Estimator, me: Fighter, a: Action) -> float:
        ctx = est.ctx
        t = est.st.fighters[a.target]
        x, all_out = a.option[0], a.option[1]
        ability = a.option[2] if len(a.option) > 2 else ""
        v = base_hit(ctx, me, all_out) - x
        if ability:
            ab = ctx.abilities[me.id][ability]
            dice = ab.level
            base = None if ctx.opts.ability_damage_base == "attack_value" else 0
        else:
            dice = ctx.weapon(me.main).level
            base = None
        s = est.strike(me, t, v, x, dice, base=base)
        if ability:
            plain = est.strike(me, t, base_hit(ctx, me, all_out) - x, x, ctx.weapon(me.main).level)
            gain = s - plain
            # save kiai for the blow that ends the fight
            if gain < 0.6 * OUT_WEIGHT * 0.5:
                return -1.0
            s -= 0.2 * ab.level / max(1, ctx.spec[me.id].kiai)
        if all_out:
            if any(e is not t and est.threatens(e, me) for e in est.enemies(me)) or est.threatens(t, me):
                s -= self._exposure(est, me) + 0.5
        # a following chain of consecutive attacks favours the plain attack a little
        if a.verb == "attack":
            s += 0.05
        return s

    def _feint_score(self, est: Estimator, me: Fighter, a: Action) -> float:
        ctx = est.ctx
        t = est.st.fighters[a.target]
        dv, _ = est.dodge_value(t, 0)
        if dv < 45 and est.can_react(t):
            return -1.0  # plain attacks do as well against low-dodge foes
        v = base_hit(ctx, me, False)
        dice = ctx.weapon(me.main).level
        total, go_on = 0.0, 1.0
        for i in (1, 2, 3):
            vi = v + (20 if i == a.option else 0)
            pn, pc = est.land(vi, t, 0)
            ph = est.p_le(vi)
            mean, var = est.damage(me.id, dice)
            total += go_on * (pn * est.hit_value(mean, var, t, False) + pc * est.hit_value(mean, var, t, True))
            go_on *= max(0.0, ph - pn - pc)  # hit but dodged: the feint goes on
        return total - 0.15

    def _ability_score(self, est: Estimator, me: Fighter, a: Action) -> float:
        ctx = est.ctx
        ab = ctx.abilities[me.id][a.option]
        spec = ctx.spec[me.id]
        cost = 0.25 * ab.level / max(1, spec.kiai)
        spell = ab.kind == "spell"
        if ab.effect == "damage":
            v = spec.magic_attack if spell else base_hit(ctx, me, False)
            base = None if ctx.opts.ability_damage_base == "attack_value" else 0
            if a.target is not None:
                t = est.st.fighters[a.target]
                return est.strike(me, t, v, 0, ab.level, base=base) - cost
            side = ctx.side[me.id]
            total = 0.0
            from trpg_arena.rules.kiai.abilities import area_targets

            for cid in area_targets(ctx, est.st, me.id, a.dest, ab.level):
                f = est.st.fighters[cid]
                val = est.strike(me, f, v, 0, ab.level, base=base)
                total += val if ctx.side[cid] != side else -2.5 * val - 1.0  # friendly fire
            return total - cost
        # status effects
        targets = [a.target] if a.target is not None else []
        if a.target is None:
            from trpg_arena.rules.kiai.abilities import area_targets

            targets = area_targets(ctx, est.st, me.id, a.dest, ab.level)
        total = 0.0
        for cid in targets:
            f = est.st.fighters[cid]
            tspec = ctx.spec[cid]
            cond = {"stun": "stunned", "intimidate": "intimidated", "illusion": "deceived"}[ab.effect]
            if has(f, cond):
                continue
            if spell:
                p = est.p_le(spec.magic_attack) * (1 - est.p_le(tspec.magic_defense + wound_penalty(ctx, f)))
            else:
                res = tspec.intelligence * 2 if ab.effect == "illusion" else tspec.resistance * 2
                p = 1 - est.p_le(res + wound_penalty(ctx, f))
                if ab.delivery in ("melee", "touch"):
                    pn, pc = est.land(base_hit(ctx, me, False), f, 0)
                    p *= pn + pc
            threat = 0.6 + 0.02 * tspec.attack + 0.2 * ctx.weapon(f.main).level
            worth = {"stun": 1.6, "intimidate": 0.7, "illusion": 0.5}[ab.effect] * threat
            total += p * worth if ctx.side[cid] != ctx.side[me.id] else -p * worth
        return total - cost

    def _move_score(self, est: Estimator, me: Fighter, dest: Any, *, run: bool) -> float:
        """Moving: into reach of the best foe if possible (then strike), else towards the nearest foe."""
        ctx = est.ctx
        geo = est.geo
        reach = ctx.weapon(me.main).reach
        foes = est.enemies(me)
        if not foes or dest is None or me.hex is None:
            return -1.0
        caster = self._caster_range(est, me)
        here_best = max((geo.dist(me.hex, f.hex) <= reach for f in foes if f.hex is not None), default=False)
        if here_best and not caster:
            return -0.5  # already in reach: strike instead
        score = 0.0
        in_reach = [f for f in foes if f.hex is not None and geo.dist(dest, f.hex) <= reach]
        if caster:
            # stay within spell range but away from melee
            near = min(geo.dist(dest, f.hex) for f in foes if f.hex is not None)
            score = 0.3 if 2 <= near <= caster else 0.1 - 0.02 * abs(near - caster)
            return score - (0.3 if run else 0.0)
        if in_reach and not run:
            v = base_hit(ctx, me, False)
            best = max(est.strike(me, f, v, 0, ctx.weapon(me.main).level) for f in in_reach)
            adjacent = sum(1 for f in foes if f.hex is not None and geo.dist(dest, f.hex) <= 1)
            return 0.5 + best - 0.1 * max(0, adjacent - 1)
        near = min(geo.dist(dest, f.hex) for f in foes if f.hex is not None)
        start = min(geo.dist(me.hex, f.hex) for f in foes if f.hex is not None)
        gain = start - near
        score = 0.02 * gain
        if run:
            score -= 0.05 + (0.3 if any(est.threatens(e, me) for e in foes) else 0.0)
            score = score if gain > ctx.spec[me.id].agility // 2 else score - 0.2
        return score

    @staticmethod
    def _caster_range(est: Estimator, me: Fighter) -> int:
        """The range of my best affordable damage spell, if I am a caster (magic attack above hit)."""
        ctx = est.ctx
        spec = ctx.spec[me.id]
        if spec.magic_attack <= spec.hit:
            return 0
        ranges = [ab.range or 0 for ab in ctx.abilities[me.id].values()
                  if ab.kind == "spell" and ab.effect == "damage" and ab.level <= me.kiai and (ab.range or 0) > 1]
        return max(ranges, default=0)
