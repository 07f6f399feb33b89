"""Kiai's tactics: the scripted policy its `scripted` agent plays (`KiaiSystem.scripted_agent`), and its estimates.

The policy plays like a competent table-top player. It estimates every legal strike from the engine's own
values (`estimates.Estimator`: hit and dodge after
every modifier, criticals, damage dice against defense dice and the target's wound track) and then:

- closes in on the weakest reachable foe, charges with a spear, casts area spells only where no ally
  stands, puts a strong foe to sleep before closing in;
- picks the technique X that maximises the chance to land, feints against high-dodge foes, and spends
  kiai on damage techniques only when they are likely to end the fight (take the target out);
- all-out attacks a foe that cannot hit back (stunned, countered, or intimidated) when nobody else
  threatens it;
- reacts by the odds: dodging, attack-defense (when its damage should win) or a counter attack once
  its own turn is over this round; always chains consecutive attacks while they can still land.

``ranked(combat)`` returns a `Ranking`: the best as the value and the scored actions as the runners-up (the
agents layer makes the class an agent: proposals, search priors, temperaments). Ties are broken by the
generator it is given (never the combat's dice). `strike_setup`, `charge_mult` and the `Estimator` are what the
odds shown for a person's attacks are worked out with.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from trpg_arena.rules.core.combat import Combat
from trpg_arena.rules.core.ranking import Ranking, Tactics, pct
from trpg_arena.rules.core.values import Action, Decision
from trpg_arena.rules.core.wording import counted
from trpg_arena.rules.kiai.abilities import area_targets
from trpg_arena.rules.kiai.checks import has, status_index, wound_penalty
from trpg_arena.rules.kiai.estimates import OUT_WEIGHT, Estimator, phi
from trpg_arena.rules.kiai.legal import base_hit, chain_value
from trpg_arena.rules.kiai.state import Fighter, Hex
from trpg_arena.rules.kiai.verbs import AttackOption, Condition, Verb


def _aimed_at(est: Estimator, a: Action) -> Fighter:
    """The fighter an action is aimed at (every strike, feint and manoeuvre names one)."""
    assert a.target is not None
    return est.st.fighters[a.target]


def _on_map(f: Fighter) -> Hex:
    """The hex of a fighter on the map (threats and the mover always stand on one)."""
    assert f.hex is not None
    return f.hex


def _gain(value: float) -> str:
    """The agent's score in words: wound levels it expects to deal (a foe taken out counts `OUT_WEIGHT`)."""
    if value <= 0:
        return "no expected gain"
    return f"about {value:.1f} wound levels expected (a foe taken out counts {OUT_WEIGHT:g})"


STRIKES = (Verb.ATTACK, Verb.REATTACK, Verb.CONSECUTIVE_ATTACK, Verb.TWO_WEAPON_ATTACK, Verb.OFFHAND_ATTACK,
           Verb.CHARGE, Verb.FEINT)


def strike_setup(est: Estimator, me: Fighter, a: Action) -> tuple[int, int, bool]:
    """The hit value, technique X and all-out flag of a strike (a verb in `STRIKES`) as the rules will roll it.

    A two-weapon attack is given by its main-hand blow (the off-hand one rolls 10 lower still).
    """
    ctx = est.ctx
    verb = a.verb
    if verb in (Verb.ATTACK, Verb.REATTACK):
        x, all_out = a.option.technique, a.option.all_out  # an `AttackOption` or a `ReattackOption`
        return base_hit(ctx, me, all_out) - x, x, all_out
    if verb == Verb.CONSECUTIVE_ATTACK:
        return chain_value(ctx, me), (me.chain_x if ctx.opts.technique_chain_dodge_reduction else 0), False
    if verb == Verb.TWO_WEAPON_ATTACK:
        return base_hit(ctx, me, bool(a.option)) - 10, 0, bool(a.option)
    if verb == Verb.OFFHAND_ATTACK:
        return base_hit(ctx, me, me.chain_all_out) - 20, 0, False
    return base_hit(ctx, me, False), 0, False


def charge_mult(est: Estimator, me: Fighter) -> float:
    """The damage multiplier a charge is expected to bring (the rules' from the run-up: 1.5, x2 lance or flying, x3)."""
    spec = est.ctx.spec[me.id]
    return 3.0 if spec.dragon_knight else 2.0 if (
        spec.airborne or est.ctx.weapon(me.main).spec.category == "lance") else 1.5


def _concentrate_value(me: Fighter, mode: str) -> float:
    """What concentrating on the dodge is worth where an enemy can strike (more for the wounded)."""
    return (0.15 if mode == "bonus" else 0.12) + 0.1 * max(0, status_index(me))


class _Approach:
    """What scoring a move reads that does not depend on where it goes, worked out once per decision.

    A turn offers a move to every reachable hex (a hundred or more), each scored against the same foes:
    their rows of the grid's distance table, the mover's weapon reach, its best strike on each foe and who
    threatens it are the same for all of them.
    """

    def __init__(self, est: Estimator, me: Fighter, caster: int) -> None:
        grid = est.grid
        self.est, self.me, self.caster = est, me, caster
        self.foes = est.enemies(me)
        self.index = grid.index
        self.reach = est.ctx.weapon(me.main).reach
        table = grid.distances
        self.placed = [(f, table[grid.index[f.hex]]) for f in self.foes if f.hex is not None]
        here = grid.index[me.hex] if me.hex is not None else None
        self.here_best = here is not None and any(row[here] <= self.reach for _, row in self.placed)
        self._start: int | None = None
        self._strikes: dict[str, float] = {}
        self._threatened: bool | None = None
        self._threat_rows: list[tuple[list[int], int]] | None = None

    @property
    def start(self) -> int:
        """The distance from the mover to its nearest foe now (asked only of a mover on the map)."""
        if self._start is None:
            here = self.index[_on_map(self.me)]
            self._start = min(row[here] for _, row in self.placed)
        return self._start

    @property
    def threatened(self) -> bool:
        """Whether any foe could strike the mover where it stands."""
        if self._threatened is None:
            self._threatened = any(self.est.threatens(e, self.me) for e in self.foes)
        return self._threatened

    def strike_worth(self, f: Fighter) -> float:
        """The mover's plain strike on `f`, as it would strike once in reach."""
        worth = self._strikes.get(f.id)
        if worth is None:
            est, me = self.est, self.me
            worth = self._strikes[f.id] = est.strike(me, f, base_hit(est.ctx, me, False), 0,
                                                     est.ctx.weapon(me.main).level)
        return worth

    def concentrate_worth(self, i: int) -> float:
        """`KiaiTactics._concentrate_worth` after a walk to the cell of index `i`."""
        rows = self._threat_rows
        if rows is None:
            table, index = self.est.grid.distances, self.index
            rows = self._threat_rows = [
                (table[index[e.hex]], reach) for e in self.foes
                if e.hex is not None and (reach := self.est.threat_range(e, self.me)) >= 0]
        if not any(row[i] <= reach for row, reach in rows):
            return 0.0
        return _concentrate_value(self.me, "bonus")


class KiaiTactics(Tactics):
    """Heuristic kiai policy (see the module docstring); its generator breaks ties between equal scores."""

    _approach: _Approach | None = None  # what scoring this decision's moves reads, built on first use

    def choose(self, combat: Combat, d: Decision, legal: list[Action]) -> Ranking:
        """A plain dodge, a reaction, or a turn."""
        est = Estimator(combat)
        me = est.st.fighters[d.actor]
        if d.step in ("R2", "R3"):
            return self._plain_dodge(est, me, legal, d.step)
        if d.step == "R1":
            return self._react(est, me, legal)
        scored = [(self._score(est, me, a, d.step), i, a) for i, a in enumerate(legal)]
        best = max(s for s, _, _ in scored)
        top = [a for s, _, a in scored if s >= best - 1e-9]
        choice = top[int(self.rng.integers(len(top)))] if len(top) > 1 else top[0]
        return Ranking(choice, best, lambda: self._why(est, me, choice, best, len(top)),
                       lambda: [(s, a) for s, _, a in scored])

    # --- reactions -------------------------------------------------------------------------------
    @staticmethod
    def _plain_dodge(est: Estimator, me: Fighter, legal: list[Action], step: str) -> Ranking:
        """R2 (the counter strike) and R3 (an area ability): dodging costs nothing and can only help."""
        dv, twice = est.dodge_value(me, 0)
        p = est.p_le(dv)
        p = 1 - (1 - p) ** 2 if twice else p
        what = "the counter strike" if step == "R2" else "the area ability"
        return Ranking(Action(Verb.DODGE), p, lambda: (
            f"dodging {what} costs {me.id} nothing: {pct(p)} to get out of the way (dodge {dv})",),
            lambda: [(0.0, a) for a in legal])

    def _react(self, est: Estimator, me: Fighter, legal: list[Action]) -> Ranking:
        """R1: the reaction that leaves the least expected harm (in wound levels); lower harm, higher value."""
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
        dodge = Action(Verb.DODGE)
        best_action, best_bad = dodge, bad_dodge
        harm: list[tuple[float, Action, str]] = [(bad_dodge, dodge, f"dodge {dv}: {pct(1 - p_land_dodge)} to avoid it")]
        a_dice = ctx.abilities[att.id][fr.ability].level if fr.ability else ctx.weapon(fr.weapon).level
        a_mean, a_var = est.damage(att.id, a_dice, mult=1.5 if fr.charge else 1.0)
        my_turn_done = self._turn_done(est, me)
        for a in legal:
            if a.verb not in (Verb.ATTACK_DEFENSE, Verb.COUNTER):
                continue
            if a.verb == Verb.COUNTER and not my_turn_done:
                harm.append((bad_dodge + 1.0, a, "would cost this round's own attack"))
                continue  # countering would cost this round's attack
            hit_v = ctx.spec[me.id].hit + wound_penalty(ctx, me) - (20 if a.verb == Verb.COUNTER else 0)
            if has(me, Condition.DECEIVED):
                hit_v -= ctx.opts.illusion_penalty
            ph = est.p_le(hit_v)
            dice = ctx.abilities[me.id][a.option].level if a.option else ctx.weapon(me.main).level
            b_mean, b_var = est.damage(me.id, dice)
            p_win = phi((b_mean - a_mean + 0.5) / math.sqrt(a_var + b_var + 1.0))
            land = 2.0 if crit else 1.0
            bad = (1 - ph) * (land + 1.0) + ph * (1 - p_win) * land
            if a.verb == Verb.COUNTER:
                bad -= ph * p_win * 1.5  # the counter strike hurts the attacker
            if a.option:
                bad += 0.3 * 2 * ctx.abilities[me.id][a.option].level / max(1, ctx.spec[me.id].kiai)
            harm.append((bad, a, f"{pct(ph)} to hit (V {hit_v}), {pct(p_win)} to out-damage it"))
            if bad < best_bad - 0.05:
                best_action, best_bad = a, bad
        note = next(n for b, a, n in harm if a == best_action)
        blow = f"{att.id}'s {'critical ' if crit else ''}strike on {me.id}"
        return Ranking(best_action, -best_bad, lambda: (
            f"{blow}: {note}; expected harm {best_bad:.2f} wound levels, the least of the options",),
            lambda: [(-b, a, n) for b, a, n in harm] + [(-(2.0 if crit else 1.0), x) for x in legal
                                                          if x.verb == Verb.NO_REACTION])

    @staticmethod
    def _turn_done(est: Estimator, me: Fighter) -> bool:
        st = est.st
        if me.id not in st.order:
            return True
        pos = st.order.index(me.id)
        return pos < st.turn_index or (pos == st.turn_index and st.stage != "turn_start")

    # --- explanations ----------------------------------------------------------------------------
    def _why(self, est: Estimator, me: Fighter, a: Action, value: float, tied: int) -> list[str]:
        """GM sentences for an own-turn choice, from the same estimates that scored it."""
        ctx = est.ctx
        verb = a.verb
        t = est.st.fighters.get(a.target) if a.target is not None else None
        out: list[str] = []
        if t is not None and verb in STRIKES:
            v, x, all_out = strike_setup(est, me, a)
            pn, pc = est.land(v, t, x)
            dv, _ = est.dodge_value(t, x)
            against = f"past {t.id}'s dodge {dv}" if est.can_react(t) else f"{t.id} cannot dodge"
            out.append(f"{t.id} is {self._wound_text(est, t)}; {pct(pn + pc)} to land (hit {v}, {against})")
            if verb in (Verb.ATTACK, Verb.REATTACK) and a.option.technique:
                out.append(f"technique {a.option.technique} cuts {t.id}'s dodge by as much as the hit")
            if all_out:
                out.append(f"all-out: nothing else threatens {me.id} before its next turn")
            if verb == Verb.ATTACK and a.option.ability:
                out.append(f"{a.option.ability} should take {t.id} out: worth the kiai")
            if verb == Verb.CHARGE:
                out.append(f"the charge multiplies the damage from {me.id}'s run-up")
            if verb == Verb.FEINT:
                out.append(f"{t.id}'s dodge {dv} is high: feinting opens it up")
        elif verb == Verb.USE_ABILITY:
            ab = ctx.abilities[me.id][a.option]
            if a.target is not None:
                where = a.target
            else:
                caught = area_targets(ctx, est.st, me.id, a.dest, ab.level)
                foes = [c for c in caught if ctx.side[c] != ctx.side[me.id]]
                where = (f"the area at {a.dest}, catching {', '.join(foes) or 'no enemy'}"
                         + (f" and ally {', '.join(c for c in caught if c not in foes)}" if len(foes) < len(caught)
                            else " and no ally"))
            out.append(f"{a.option} ({ab.effect}, kiai {ab.level} of {me.kiai}) on {where}: {_gain(value)}")
        elif verb in (Verb.MOVE, Verb.RUN):
            placed = [(f, f.hex) for f in est.enemies(me) if f.hex is not None]
            dest = a.dest
            if placed and me.hex is not None and dest is not None:
                near, there = min(placed, key=lambda p: est.grid.distance(dest, p[1]))
                out.append(f"{'runs' if verb == Verb.RUN else 'moves'} from {est.grid.distance(me.hex, there)} to "
                           f"{counted(est.grid.distance(dest, there), 'hex', 'hexes')} of {near.id}"
                           + (", into reach to strike" if est.grid.distance(dest, there)
                              <= ctx.weapon(me.main).reach else ""))
        elif verb == Verb.CONCENTRATE_DODGE:
            threats = [f"{e.id} ({counted(est.grid.distance(_on_map(e), _on_map(me)), 'hex', 'hexes')})"
                       for e in est.enemies(me) if est.threatens(e, me)]
            out.append(f"{', '.join(threats)} can strike {me.id} before its next turn and no strike of its own "
                       f"is worth more: concentrate on dodging ({a.option})")
        elif verb in (Verb.END_TURN, Verb.PASS):
            out.append(f"nothing {me.id} can do is worth more than ending the turn")
        elif verb in (Verb.READY_WEAPON, Verb.PICK_UP):
            out.append(f"{me.id} is unarmed: {'ready' if verb == Verb.READY_WEAPON else 'pick up'} {a.option}")
        if not out:
            out.append(f"the best of the legal actions: {_gain(value)}")
        if tied > 1:
            out.append(f"{tied} actions promise the same ({_gain(value)}): one of them picked at random")
        return out

    @staticmethod
    def _wound_text(est: Estimator, t: Fighter) -> str:
        """``lightly wounded; a serious wound takes it out``: its worst wound and the level that ends it."""
        names = ("unhurt", "lightly wounded", "moderately wounded", "seriously wounded", "mortally wounded")
        worst = names[max(0, min(status_index(t) + 1, len(names) - 1))]
        ends = ("light", "moderate", "serious", "mortal")[max(0, min(est.out_level(t), 3))]
        return f"{worst}; a {ends} wound takes it out"

    # --- own decisions ---------------------------------------------------------------------------
    def _score(self, est: Estimator, me: Fighter, a: Action, kind: str) -> float:
        # one dict lookup per legal action: a chain of `verb == Verb.X` tests pays an enum attribute read each
        score = _SCORES.get(a.verb)
        return -1.0 if score is None else score(self, est, me, a)  # break_weapon, disarm, flee: rarely worth it

    def _chain_score(self, est: Estimator, me: Fighter, a: Action) -> float:
        ctx = est.ctx
        t = _aimed_at(est, a)
        v = chain_value(ctx, me)
        p_agi = 1.0 if me.chain_passed else est.p_le(ctx.spec[me.id].agility + wound_penalty(ctx, me))
        x = me.chain_x if ctx.opts.technique_chain_dodge_reduction else 0
        return p_agi * est.strike(me, t, v, x, ctx.weapon(me.main).level) + 0.01

    def _two_weapon_score(self, est: Estimator, me: Fighter, a: Action) -> float:
        ctx = est.ctx
        t = _aimed_at(est, a)
        v = base_hit(ctx, me, bool(a.option))
        off = ctx.weapon(me.off)
        s = est.strike(me, t, v - 10, 0, ctx.weapon(me.main).level)
        s += est.strike(me, t, v - 20, 0, off.level)
        return s - (self._exposure(est, me) if a.option else 0.0)

    def _offhand_score(self, est: Estimator, me: Fighter, a: Action) -> float:
        ctx = est.ctx
        t = _aimed_at(est, a)
        v = base_hit(ctx, me, me.chain_all_out)
        return est.strike(me, t, v - 20, 0, ctx.weapon(me.off).level) + 0.01

    def _charge_score(self, est: Estimator, me: Fighter, a: Action) -> float:
        ctx = est.ctx
        t = _aimed_at(est, a)
        mult = charge_mult(est, me)
        return est.strike(me, t, base_hit(ctx, me, False), 0, ctx.weapon(me.main).level, mult=mult) + 0.2

    def _exposure(self, est: Estimator, me: Fighter) -> float:
        """Cost of halving my dodge: how many foes could hit me before my next turn."""
        return 0.35 * sum(1 for e in est.enemies(me) if est.threatens(e, me))

    def _attack_score(self, est: Estimator, me: Fighter, a: Action) -> float:
        ctx = est.ctx
        t = _aimed_at(est, a)
        x, all_out = a.option.technique, a.option.all_out
        ability = a.option.ability if type(a.option) is AttackOption else ""  # a reattack spends none
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
        if a.verb == Verb.ATTACK:
            s += 0.05
        return s

    def _feint_score(self, est: Estimator, me: Fighter, a: Action) -> float:
        ctx = est.ctx
        t = _aimed_at(est, a)
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
                t = _aimed_at(est, a)
                return est.strike(me, t, v, 0, ab.level, base=base) - cost
            side = ctx.side[me.id]
            total = 0.0
            for cid in area_targets(ctx, est.st, me.id, a.dest, ab.level):
                f = est.st.fighters[cid]
                val = est.strike(me, f, v, 0, ab.level, base=base)
                total += val if ctx.side[cid] != side else -2.5 * val - 1.0  # friendly fire
            return total - cost
        # status effects
        targets = [a.target] if a.target is not None else area_targets(ctx, est.st, me.id, a.dest, ab.level)
        total = 0.0
        for cid in targets:
            f = est.st.fighters[cid]
            tspec = ctx.spec[cid]
            cond = {"stun": Condition.STUNNED, "intimidate": Condition.INTIMIDATED,
                    "illusion": Condition.DECEIVED}[ab.effect]
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
        view = self._approach
        if view is None or view.est is not est:
            view = self._approach = _Approach(est, me, self._caster_range(est, me))
        if not view.foes or dest is None or me.hex is None:
            return -1.0
        caster = view.caster
        if view.here_best and not caster:
            return -0.5  # already in reach: strike instead
        score = 0.0
        i = view.index[dest]
        ds = [row[i] for _, row in view.placed]  # the distances from `dest` to each foe on the map
        if caster:
            # stay within spell range but away from melee
            near = min(ds)
            score = 0.3 if 2 <= near <= caster else 0.1 - 0.02 * abs(near - caster)
            return score - (0.3 if run else 0.0)
        if not run and any(d <= view.reach for d in ds):
            best = max(view.strike_worth(f) for (f, _), d in zip(view.placed, ds) if d <= view.reach)
            adjacent = sum(1 for d in ds if d <= 1)
            return 0.5 + best - 0.1 * max(0, adjacent - 1)
        near = min(ds)
        gain = view.start - near
        score = 0.02 * gain
        if run:
            score -= 0.05 + (0.3 if view.threatened else 0.0)
            score = score if gain > est.ctx.spec[me.id].agility // 2 else score - 0.2
        elif gain > 0:
            # A walk leaves the main action free (KIA-8.1): concentrating on the dodge can follow it, so closing
            # in costs no defence. Without this, two fighters just out of each other's striking distance would
            # both concentrate in place every turn and never meet.
            score += view.concentrate_worth(i)
        return score

    @staticmethod
    def _concentrate_worth(est: Estimator, me: Fighter, at: Any, mode: str) -> float:
        """Worth of concentrating on the dodge (KIA-20.1) while standing at `at`: only if an enemy can strike there."""
        if not any(est.threatens(e, me, at) for e in est.enemies(me)):
            return 0.0
        return _concentrate_value(me, mode)

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


#: What a turn's action is worth, by verb (`KiaiTactics._score`); a verb not listed is worth -1.
_SCORES: dict[str, Callable[[KiaiTactics, Estimator, Fighter, Action], float]] = {
    Verb.END_TURN: lambda self, est, me, a: 0.0,
    Verb.PASS: lambda self, est, me, a: 0.0,
    Verb.ATTACK: KiaiTactics._attack_score,
    Verb.REATTACK: KiaiTactics._attack_score,
    Verb.CONSECUTIVE_ATTACK: KiaiTactics._chain_score,
    Verb.TWO_WEAPON_ATTACK: KiaiTactics._two_weapon_score,
    Verb.OFFHAND_ATTACK: KiaiTactics._offhand_score,
    Verb.FEINT: KiaiTactics._feint_score,
    Verb.CHARGE: KiaiTactics._charge_score,
    Verb.USE_ABILITY: KiaiTactics._ability_score,
    Verb.MOVE: lambda self, est, me, a: self._move_score(est, me, a.dest, run=False),
    Verb.RUN: lambda self, est, me, a: self._move_score(est, me, a.dest, run=True),
    Verb.CONCENTRATE_DODGE: lambda self, est, me, a: self._concentrate_worth(est, me, me.hex, a.option),
    Verb.READY_WEAPON: lambda self, est, me, a: 1.0 if not me.main else -1.0,
    Verb.PICK_UP: lambda self, est, me, a: 1.2 if not me.main else -1.0,
}
