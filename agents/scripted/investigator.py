"""A scripted player for the ``investigator`` rule system.

It plays like a careful investigator (or cultist): shooters take the shoot-phase priority when they have a
clean shot, otherwise move to a square out of every enemy's nine-grid with a target in base range, aim and
shoot; melee fighters close to two squares and strike with a one-step attack (so no opportunity attack is
provoked), preferring flanking squares; everyone takes free opportunity attacks, spends a leftover standard
action on pursuit attacks, first-aids a dying ally at once, heals with spells and reloads empty guns.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trpg_arena.agents.base import Agent
from trpg_arena.agents.proposal import Proposal
from trpg_arena.agents.spec import register_agent
from trpg_arena.rules import Action, Combat
from trpg_arena.rules.investigator.catalogue import Meta, catalogue_of
from trpg_arena.rules.investigator.compiled import DIRS, Setup, compile_setup
from trpg_arena.rules.investigator.legal import melee_weapon, shot_band, wielded_item, wielded_t
from trpg_arena.rules.investigator.rolls import EXTREME, HARD, REGULAR
from trpg_arena.rules.investigator.space import cheb, line_status
from trpg_arena.rules.investigator.state import Fighter, InvState

Cell = tuple[int, int]


def _p(skill: int, required: int, bonus: int = 0, penalty: int = 0) -> float:
    """Rough chance that a check reaches `required`, with bonus/penalty dice approximated."""
    thr = {REGULAR: skill, HARD: skill // 2, EXTREME: skill // 5}.get(required, skill) / 100.0
    thr = max(0.01, min(0.99, thr))
    n = bonus - penalty
    if n > 0:
        return 1 - (1 - thr) ** (1 + n)
    if n < 0:
        return thr ** (1 - n)
    return thr


@register_agent("scripted", ruleset="investigator")
class InvestigatorScriptedAgent(Agent):
    """Heuristic tactics for the investigator system (see the module docstring)."""

    def __init__(self, ruleset: str | None = None, rng: np.random.Generator | None = None,
                 seed: int | None = None) -> None:
        super().__init__(ruleset, rng if rng is not None else np.random.default_rng(seed))

    def propose(self, combat: Combat) -> Proposal:
        """The scripted choice."""
        return Proposal(self.act(combat), 0.0, ("the scripted policy's choice",))

    # --- entry ---------------------------------------------------------------------------------
    def act(self, combat: Combat) -> Action:
        """Choose an action for the current decision."""
        legal = combat.legal_actions()
        if len(legal) == 1:
            return legal[0]
        d = combat.decision
        assert d is not None
        self.c = combat
        self.s: Setup = compile_setup(combat.encounter)  # type: ignore[arg-type]
        self.st: InvState = combat.state  # type: ignore[assignment]
        self.meta = catalogue_of(self.s).meta
        self.me = self.st.fighters[self.s.idx[d.actor]]
        side = self.s.side_of[self.me.id]
        self.foes = [f for f in self.st.fighters if f.able and f.pos is not None and self.s.side_of[f.id] != side]
        self.friends = [f for f in self.st.fighters if f.pos is not None and not f.dead and not f.fled
                        and self.s.side_of[f.id] == side]
        if d.step == "defense":
            return self._defend(legal)
        if d.step == "reaction":
            return self._react(legal)
        if d.step == "phase_offer":
            return self._offer(legal)
        return self._turn(legal)

    def _m(self, a: Action) -> Meta:
        return self.meta[a]

    def _f(self, cid: str) -> Fighter:
        return self.st.fighters[self.s.idx[cid]]

    # --- reactions -----------------------------------------------------------------------------
    def _defend(self, legal: list[Action]) -> Action:
        verbs = {a.verb: a for a in legal}
        if "dive_for_cover" in verbs:
            return verbs["no_defense"]
        prof = self.s.prof(self.me.id)
        mw = melee_weapon(self.s, self.me)
        if "fight_back" in verbs and prof.skill(mw.skill) > prof.skill("Dodge") + 5:
            return verbs["fight_back"]
        return verbs.get("dodge", legal[-1])

    def _react(self, legal: list[Action]) -> Action:
        for a in legal:
            if a.verb == "opportunity_attack":
                return a
        plain = [a for a in legal if a.verb == "pursuit_attack" and a.option is None]
        if plain:
            mover = self._f(plain[0].target or "")
            if self.me.had_turn or not self._is_ranged(self.me) or self._is_ranged(mover):
                return plain[0]
        return next(a for a in legal if a.verb == "decline")

    # --- phase offers and turns ----------------------------------------------------------------
    def _offer(self, legal: list[Action]) -> Action:
        best, score = self._best_attack(legal)
        if best is not None and score >= 1.0:
            return best
        return next(a for a in legal if a.verb == "wait")

    def _turn(self, legal: list[Action]) -> Action:
        by_verb: dict[str, list[Action]] = {}
        for a in legal:
            by_verb.setdefault(a.verb, []).append(a)
        end = by_verb["end_turn"][0]
        if not self.foes:
            return end
        # first aid for a dying or unconscious ally comes first
        for a in by_verb.get("first_aid", []):
            t = self._f(a.target or "")
            if self.s.side_of[t.id] == self.s.side_of[self.me.id] and (t.dying or t.unconscious):
                return a
        for a in by_verb.get("cast", []):
            m = self._m(a)
            sp = self.s.spells[m.head]
            t = self._f(a.target or "")
            if sp.effect == "heal" and not m.when and (t.dying or t.hp <= self.s.prof(t.id).max_hp // 2):
                return a
        rescue = self._rescue_move(by_verb)
        if rescue is not None:
            return rescue
        it = wielded_item(self.me)
        w = wielded_t(self.s, self.me)
        if "reload" in by_verb and it is not None and (it.jammed or it.loaded == 0):
            return by_verb["reload"][0]
        if "switch_weapon" in by_verb:
            sw = self._switch(by_verb["switch_weapon"], w.kind, it)
            if sw is not None:
                return sw
        attack, score = self._best_attack(legal)
        if attack is not None:
            m = self._m(attack)
            if m.verb in ("shoot", "throw") and "prepare" in by_verb and not self.me.bonus_to:
                aim = [a for a in by_verb["prepare"] if a.option == "aim"]
                if aim:
                    return aim[0]
            if score > 0.3:
                return attack
        if "stand_up" in by_verb:
            return by_verb["stand_up"][0]
        if not self.me.move_used:
            mv = self._movement(by_verb)
            if mv is not None:
                return mv
        for a in by_verb.get("prepare", []):
            tq = self.s.techniques[a.option]
            if a.option != "aim" and any(k in tq.bonus_to for k in ("dodge",)):
                return a
        for a in by_verb.get("pick_up", []):
            if self.s.weapons.get(self._ground_template(a)) is not None and w.kind == "melee" \
                    and w.id == "unarmed":
                return a
        return end

    def _rescue_move(self, by_verb: dict[str, list[Action]]) -> Action | None:
        """Walk next to a dying ally with a visible wound so that first aid can follow this turn (INV-11.7)."""
        me = self.me
        if me.move_used or me.pos is None or me.standard_used >= self.s.prof(me.id).actions:
            return None
        patients = [f for f in self.friends if f.id != me.id and f.dying and f.untreated_wound and f.pos is not None]
        if not patients:
            return None
        best: tuple[float, Action] | None = None
        for a in by_verb.get("step", []) + by_verb.get("move", []):
            dest = a.dest
            if not any(cheb(dest, p.pos) == 1 for p in patients):  # type: ignore[arg-type]
                continue
            danger = sum(1 for f in self.foes if f.pos is not None and cheb(f.pos, dest) == 1)
            cost = danger * 2.0 + (0.5 if a.verb == "move" else 0.0)
            if best is None or cost < best[0]:
                best = (cost, a)
        return None if best is None else best[1]

    def _ground_template(self, a: Action) -> str:
        for g in self.st.ground:
            if g.item.id == a.option:
                return g.item.template
        return ""

    def _switch(self, options: list[Action], kind: str, it: Any) -> Action | None:
        """Drop an empty gun with no ammunition for the best melee weapon carried."""
        if kind == "firearm" and it is not None and it.loaded == 0 and self.me.ammo.get(
                self.s.weapons[it.template].ammo_type, 0) == 0:
            best = None
            for a in options:
                wid = a.option
                if wid == "unarmed":
                    continue
                carried = self.me.weapon(wid)
                if carried is not None and self.s.weapons[carried.template].kind in ("melee", "thrown"):
                    best = a
            return best or next((a for a in options if a.option == "unarmed"), None)
        if kind == "melee" and self.me.wielded == "unarmed":
            for a in options:
                carried = self.me.weapon(a.option)
                if carried is not None and self.s.weapons[carried.template].kind == "firearm" and carried.loaded:
                    return a
            for a in options:
                carried = self.me.weapon(a.option)
                if carried is not None and self.s.weapons[carried.template].kind == "melee":
                    return a
        return None

    # --- attack evaluation ---------------------------------------------------------------------
    def _is_ranged(self, f: Fighter) -> bool:
        it = wielded_item(f)
        if it is None:
            return bool(self.s.prof(f.id).spells) and f.mp >= 3
        w = self.s.weapons[it.template]
        return (w.kind == "firearm" and (it.loaded > 0 or f.ammo.get(w.ammo_type, 0) > 0)) or w.kind == "thrown"

    def _adjacent_threats(self, pos: Cell, ignore: str = "") -> int:
        return sum(1 for f in self.foes if f.id != ignore and f.pos is not None and cheb(f.pos, pos) == 1
                   and not f.opportunity_used and not f.channel_spell)

    def _value(self, t: Fighter, dmg: float) -> float:
        """Worth of `dmg` expected damage on `t`: more for kills, casters and dangerous foes."""
        hp = max(t.hp, 1)
        v = min(dmg, hp + 2) / hp * 3.0
        if dmg >= hp:
            v += 2.0
        if t.channel_spell:
            v += 3.0
        if not t.able:
            v *= 0.1
        return v

    def _best_attack(self, legal: list[Action]) -> tuple[Action | None, float]:
        best: Action | None = None
        best_score = -1e9
        for a in legal:
            if a.verb not in ("shoot", "melee", "throw", "cast", "pursue"):
                continue
            sc = self._score(a)
            if sc > best_score:
                best, best_score = a, sc
        return best, best_score

    def _score(self, a: Action) -> float:
        s, me = self.s, self.me
        m = self._m(a)
        t = self._f(m.target)
        if t.pos is None or me.pos is None:
            return -1e9
        src = me.pos
        if m.when == "before":
            dx, dy = DIRS[m.dir]
            src = (src[0] + dx, src[1] + dy)
        prof = s.prof(me.id)
        risk = 0.0
        if m.verb == "cast":
            sp = s.spells[m.head]
            if sp.effect != "damage" or sp.rounds > 1:
                return -1e9
            risk = 2.0 * self._adjacent_threats(src)
            avg = (sp.dice.maximum + sp.dice.flat + sum(n for _, n, _ in sp.dice.dice)) / 2.0
            p = 0.6 if sp.resist else 1.0
            score = p * self._value(t, avg) - risk
        elif m.verb == "shoot":
            it = wielded_item(me)
            if it is None:
                return -1e9
            w = s.weapons[it.template]
            band = shot_band(s, w, cheb(src, t.pos))
            if band is None:
                return -1e9
            req, dmg = band
            if line_status(s, self.st, src, t.pos, (me.id, t.id)) == "obstructed":
                req = EXTREME
            bonus = (1 if cheb(src, t.pos) == 1 else 0) + (1 if me.bonus_to and "shoot" in me.bonus_to else 0)
            p = _p(prof.skill(w.skill), req, bonus)
            avg = (dmg.maximum + dmg.flat + sum(n for _, n, _ in dmg.dice)) / 2.0
            risk = 2.5 * self._adjacent_threats(src)
            if m.head:
                return -1e9
            score = p * self._value(t, avg) * max(1, m.shots) - risk
        elif m.verb == "throw":
            it = wielded_item(me)
            if it is None:
                return -1e9
            w = s.weapons[it.template]
            req = HARD if me.moved_long else REGULAR
            if line_status(s, self.st, src, t.pos, (me.id, t.id)) == "obstructed":
                req = EXTREME
            p = _p(prof.skill(w.skill), req) * 0.8
            avg = (w.damage.maximum + w.damage.flat + sum(n for _, n, _ in w.damage.dice)) / 2.0
            score = p * self._value(t, avg)
        else:  # melee / pursue
            w = melee_weapon(s, me)
            req = HARD if me.moved_long else REGULAR
            opp = (t.pos[0] * 2 - src[0], t.pos[1] * 2 - src[1])
            flank = any(f.pos == opp and f.able for f in self.friends if f.id != me.id)
            p = _p(prof.skill(w.skill), req, 1 if flank else 0) * (0.75 if t.able else 1.0)
            avg = (w.damage.maximum + w.damage.flat + sum(n for _, n, _ in w.damage.dice)) / 2.0
            db = prof.db
            avg += (db.maximum + db.flat + sum(n for _, n, _ in db.dice)) / 2.0 if db.dice else db.flat
            if m.head:
                return -1e9
            if m.when == "after":
                return -1e9
            risk = 0.5 * max(0, self._adjacent_threats(src, ignore=t.id) - self._adjacent_threats(me.pos, t.id))
            score = p * self._value(t, avg) - risk + (0.2 if flank else 0)
        if m.when == "before" and self._adjacent_threats(me.pos) and any(
                f.pos is not None and cheb(f.pos, me.pos) == 1 and cheb(f.pos, src) > 1 for f in self.foes):
            score -= 1.0  # stepping away invites a pursuit attack
        return score

    # --- movement ------------------------------------------------------------------------------
    def _movement(self, by_verb: dict[str, list[Action]]) -> Action | None:
        me = self.me
        assert me.pos is not None
        options: list[tuple[Action, Cell, bool]] = [(a, a.dest, False) for a in by_verb.get("step", [])]
        options += [(a, a.dest, True) for a in by_verb.get("move", [])]
        if not options:
            return None
        ranged = self._is_ranged(me)
        # what does not depend on the square scored is worked out once
        adj_now = [f for f in self.foes if f.pos is not None and cheb(f.pos, me.pos) == 1]
        target = None if ranged else min(
            self.foes, key=lambda f: (cheb(f.pos, me.pos) > 6, f.hp, cheb(f.pos, me.pos)))  # type: ignore
        here = self._square_score(me.pos, ranged, False, adj_now, target)
        best, best_sc = None, here + 0.5
        for a, dest, long in options:
            sc = self._square_score(dest, ranged, long, adj_now, target)
            if sc > best_sc:
                best, best_sc = a, sc
        return best

    def _square_score(self, pos: Cell, ranged: bool, long: bool, adj_now: list[Fighter],
                      target: Fighter | None) -> float:
        s, me = self.s, self.me
        assert me.pos is not None
        leaving = sum(1 for f in adj_now if cheb(f.pos, pos) > 1 and f.pos is not None)  # type: ignore[arg-type]
        sc = -3.0 * leaving if (long or leaving) else 0.0
        adj = [f for f in self.foes if f.pos is not None and cheb(f.pos, pos) == 1]
        if ranged:
            sc -= 6.0 * len(adj)
            it = wielded_item(me)
            wt = s.weapons[it.template] if it is not None else None
            firearm = wt is not None and wt.kind == "firearm"
            best = 0.0
            for f in self.foes:
                assert f.pos is not None
                d = cheb(pos, f.pos)
                if firearm:
                    band = shot_band(s, wt, d)  # type: ignore[arg-type]
                    if band is None:
                        continue
                    q = {REGULAR: 3.0, HARD: 2.0, EXTREME: 1.0}[band[0]]
                elif it is not None:
                    if d > 10:
                        continue
                    q = 3.0 if d <= 6 else 2.0
                else:
                    sp = [s.spells[x] for x in s.prof(me.id).spells if s.spells[x].effect == "damage"]
                    if not sp or d > max(x.range for x in sp):
                        continue
                    q = 3.0
                ls = line_status(s, self.st, pos, f.pos, (me.id, f.id))
                if ls == "blocked":
                    continue
                if ls == "obstructed":
                    q = min(q, 1.0)
                best = max(best, q + (0.5 if f.hp <= 4 else 0.0))
            sc += best * 2.0
            sc += 0.05 * min(cheb(pos, f.pos) for f in self.foes if f.pos is not None)  # type: ignore[type-var]
            return sc
        # melee: get to distance 2 of the best target (a one-step attack next turn), or adjacent if safe
        assert target is not None and target.pos is not None
        d = cheb(pos, target.pos)
        if d == 1:
            free = target.opportunity_used or not target.able
            sc += 4.0 if free else -2.0
            others = [f for f in adj if f.id != target.id and not f.opportunity_used]
            sc -= 3.0 * len(others)
        elif d == 2:
            sc += 3.0 - 2.0 * len(adj)
        else:
            sc -= d * 0.6 + 2.0 * len(adj)
        if long and s.prof(me.id).actions >= 2:
            sc -= 0.5
        return sc
