"""A scripted moonlit agent: focus fire, good charges and counters, cover, healing, purging, escape when hopeless."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from trpg_arena.agents.base import Agent
from trpg_arena.agents.proposal import Proposal
from trpg_arena.agents.spec import register_agent
from trpg_arena.rules import Action, Combat
from trpg_arena.rules.moonlit.data import SKILLS
from trpg_arena.rules.moonlit.fighters import ABLE, tb

# P(2D6 >= k)
_AT_LEAST = {k: sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= k) / 36 for k in range(-20, 30)}


def p_at_least(k: int) -> float:
    """Probability that 2D6 is at least k."""
    return 1.0 if k <= 2 else 0.0 if k > 12 else _AT_LEAST[k]


def _avg(expr: Any) -> float:
    return 0.0 if expr is None else expr.count * 3.5 + expr.flat


# P(2D6 + d > 2D6): the attacker beats the defender (ties go to the defender)
_BEATS: dict[int, float] = {}


def p_beats(diff: int) -> float:
    """Probability that 2D6 + diff beats another 2D6 (strictly)."""
    if diff not in _BEATS:
        ways = {n: sum(1 for a in range(1, 7) for b in range(1, 7) if a + b == n) for n in range(2, 13)}
        _BEATS[diff] = sum(ways[x] * ways[y] for x in range(2, 13) for y in range(2, 13) if x + diff > y) / 1296
    return _BEATS[diff]


def _positive_part(mu: float, sd: float) -> float:
    """E[max(0, X)] for X ~ Normal(mu, sd): damage that can still get through on a good roll."""
    z = mu / sd
    return mu * 0.5 * (1 + math.erf(z / math.sqrt(2))) + sd * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)


def _value(t: Any, me: Any, s: Any, sk: Any, g: Any) -> float:
    """Expected worth of hitting g with attack skill sk: net damage (kill-weighted) plus after-damage effects."""
    gs = t.stats[g.id]
    w = s.weapon
    base = _avg(sk.damage) + (w.damage_flat if w is not None and w.type == sk.type else 0)
    n_red = 0 if sk.element else gs.defense + gs.armour_dice
    red = gs.attributes.get(sk.element, 0) if sk.element else 3.5 * n_red
    net = base - red
    traits = not g.baptism and ("unacceptable_existence" in gs.skills or "death_rebirth" in gs.skills)
    if not g.baptism and "unacceptable_existence" in gs.skills:
        net -= 5
    n_dice = (sk.damage.count if sk.damage is not None else 0) + n_red
    net = _positive_part(net, math.sqrt(35 / 12 * max(1, n_dice)))
    bonus = 0.0
    for eff in sk.after_damage:
        if eff == "baptism" and traits:
            bonus += 25.0  # strips death_rebirth / unacceptable_existence: the key to beating such a foe
        elif eff in ("trance", "paralysis", "bind") and not getattr(g, eff):
            bonus += 3.0
        elif eff == "poison":
            bonus += 2.0
    hit_mod = (w.hit_mod if w is not None and w.type == sk.type else 0) - (3 if me.bind else 0)
    p = p_beats(s.stat(sk.type) + hit_mod - gs.stat(sk.type) + (3 if g.bind else 0))
    kill = 1.5 if net >= g.hp else 1.0
    return p * (net * kill + bonus)


@register_agent("scripted", ruleset="moonlit")
class MoonlitScriptedAgent(Agent):
    """Plays moonlit sensibly; deterministic except for ties broken by its own seeded RNG."""

    def __init__(self, ruleset: str | None = None, rng: np.random.Generator | None = None,
                 seed: int | None = None) -> None:
        super().__init__(ruleset, rng if rng is not None else np.random.default_rng(seed))

    def propose(self, combat: Combat) -> Proposal:
        """The scripted choice."""
        return Proposal(self.act(combat), 0.0, ("the scripted policy's choice",))

    # --- helpers -------------------------------------------------------------------------------------------
    def _ctx(self, combat: Combat) -> tuple[Any, Any, Any, Any]:
        st = combat.state
        t = tb(combat)
        d = combat.decision
        assert d is not None
        me = st.fighters[d.actor]  # type: ignore[attr-defined]
        return st, t, me, t.stats[me.id]

    @staticmethod
    def _enemies(st: Any, t: Any, side: str) -> list[Any]:
        return [st.fighters[i] for i in st.order if st.fighters[i].state in ABLE and t.stats[i].side != side]

    @staticmethod
    def _allies(st: Any, t: Any, side: str) -> list[Any]:
        return [st.fighters[i] for i in st.order if st.fighters[i].state in ABLE and t.stats[i].side == side]

    def act(self, combat: Combat) -> Action:
        """Choose an action for the current decider."""
        legal = combat.legal_actions()
        if len(legal) == 1:
            return legal[0]
        for a in legal:
            if a.verb == "clear_trance":
                return a  # MOON-13.5: trance shuts almost everything off
        kind = combat.decision.step if combat.decision else ""
        fn = getattr(self, f"_{kind}", None)
        choice = fn(combat, legal) if fn is not None else None
        return choice if choice is not None and choice in legal else legal[0]

    # --- decision kinds ---------------------------------------------------------------------------------------
    def _deploy(self, combat: Combat, legal: list[Action]) -> Action:
        st, t, me, s = self._ctx(combat)
        melee = any(sk.type == "melee" for sk in s.cat("attack"))
        return legal[0] if melee else legal[1]

    def _escape(self, combat: Combat, legal: list[Action]) -> Action:
        st, t, me, s = self._ctx(combat)
        mine = sum(f.hp for f in self._allies(st, t, s.side))
        theirs = sum(f.hp for f in self._enemies(st, t, s.side))
        hopeless = mine * 5 < theirs and len(self._allies(st, t, s.side)) < len(self._enemies(st, t, s.side))
        return Action("escape") if hopeless and Action("escape") in legal else Action("stay")

    def _purge(self, combat: Combat, legal: list[Action]) -> Action:
        st, t, me, s = self._ctx(combat)
        for cond in ("trance", "bind", "paralysis", "baptism"):
            a = Action("purge", None, None, cond)
            if a in legal and (cond != "baptism" or me.tp >= 30):
                return a
        a = Action("purge", None, None, "poison")
        if a in legal and me.poison >= 2:
            return a
        return Action("done")

    def _setup_skill(self, combat: Combat, legal: list[Action]) -> Action:
        st, t, me, s = self._ctx(combat)
        for a in legal:
            if a.option == "field_dressing":
                g = st.fighters[a.target]
                if g.state == "incapacitated" or g.hp * 2 < g.max_hp:
                    return a
        for a in legal:
            if a.option in ("battle_focus", "quicken") and me.tp >= 24:
                return a
        return Action("done")

    def _end_skill(self, combat: Combat, legal: list[Action]) -> Action:
        for a in legal:
            if a.option == "regeneration":
                return a
            if isinstance(a.option, tuple) and a.option[0] == "purifying_breath" and a.option[1] != "baptism":
                return a
        return Action("done")

    def _main(self, combat: Combat, legal: list[Action]) -> Action:
        st, t, me, s = self._ctx(combat)
        enemies = self._enemies(st, t, s.side)
        # heal the fallen or the badly hurt
        heals = [a for a in legal if (a.verb == "use_item" and a.option == "healing_salve")
                 or (a.verb == "use_skill" and a.option == "healing_light")]
        if heals:
            def need(a: Action) -> float:
                g = st.fighters[a.target]
                return (2.0 if g.state == "incapacitated" else 0.0) + 1 - g.hp / g.max_hp
            best = max(heals, key=need)
            g = st.fighters[best.target]
            if g.state == "incapacitated" or g.hp * 10 < g.max_hp * 4:
                return best
        for a in legal:
            if a.verb == "use_item" and a.option in ("antidote", "smelling_salts"):
                g = st.fighters[a.target]
                if a.option == "smelling_salts" or g.poison >= 2:
                    return a
        summons = [a for a in legal if a.verb == "use_skill" and isinstance(a.option, tuple)
                   and a.option[0] == "puppet_soldiers"]
        if summons and not any(st.fighters[i].state in ABLE for i in t.summons_of.get(me.id, ())):
            return summons[-1]
        attack = self._best_attack(st, t, me, s, legal, enemies)
        if attack is not None:
            return attack
        coups = [a for a in legal if a.verb == "coup_de_grace"]
        if coups:
            return coups[0]
        # move toward the weakest enemy if melee is all we have
        moves = [a for a in legal if a.verb == "move"]
        if moves and enemies:
            target = min(enemies, key=lambda g: g.hp)
            for a in moves:
                if a.dest == target.zone:
                    return a
            return moves[0]
        stim = [a for a in legal if a.verb == "use_item" and a.option == "stimulant"]
        if stim:
            return stim[0]
        return Action("pass")

    def _best_attack(self, st: Any, t: Any, me: Any, s: Any, legal: list[Action], enemies: list[Any]) -> Action | None:
        best, best_v = None, 0.3
        top_enemy_ap = max((g.ap for g in enemies if g.state == "not_acted"), default=-99)
        for a in legal:
            if a.verb != "attack":
                continue
            sk = SKILLS[a.option]
            from trpg_arena.rules.moonlit.skills import reaches
            cands = [g for g in enemies if reaches(t, sk, me.zone, g.zone)]
            if not cands:
                continue
            vals = sorted((_value(t, me, s, sk, g) for g in cands), reverse=True)
            if sk.scope == "single":
                v = vals[0]
            elif sk.scope == "global":
                v = sum(vals)
            else:
                by_zone: dict[str, float] = {}
                for g in cands:
                    by_zone[g.zone] = by_zone.get(g.zone, 0.0) + _value(t, me, s, sk, g)
                v = max(by_zone.values())
            if sk.delay:
                v *= 0.5 if me.ap - sk.delay <= top_enemy_ap else 1.1
            v -= sk.tp * 0.05
            if v > best_v:
                best, best_v = a, v
        return best

    def _offense(self, combat: Combat, legal: list[Action]) -> Action:
        st, t, me, s = self._ctx(combat)
        atk = st.atk
        opts = {a.option for a in legal}
        enemies = self._enemies(st, t, s.side)
        for pref in ("twin_target", "binding_thread", "full_force", "precise_aim"):
            if pref not in opts:
                continue
            if pref == "twin_target" and len(enemies) < 2:
                continue
            if pref == "binding_thread" and atk is not None and atk.decl.targets:
                continue
            if me.tp - SKILLS[pref].tp < 12:
                continue  # keep TP for the attacks themselves
            return Action("offense", None, None, pref)
        return Action("offense", None, None, "none")

    def _limit_break(self, combat: Combat, legal: list[Action]) -> Action:
        st, t, me, s = self._ctx(combat)
        enemies = self._enemies(st, t, s.side)
        if me.hp >= 45 and len(enemies) == 1 and enemies[0].hp <= 20:
            for a in legal:
                if a.option != "none":
                    return a
        return Action("limit_break", None, None, "none")

    def _target(self, combat: Combat, legal: list[Action]) -> Action:
        st, t, me, s = self._ctx(combat)
        sk = SKILLS[st.atk.decl.skill]
        people = [a for a in legal if a.verb == "target" and a.target in st.fighters]
        if people:
            def worth(a: Action) -> tuple[float, str]:
                g = st.fighters[a.target]
                return (_value(t, me, s, sk, g) / max(1, g.hp) ** 0.5, a.target)
            return max(people, key=worth)
        zones = [a for a in legal if a.verb == "target"]
        if zones:
            enemies = self._enemies(st, t, s.side)

            def weight(a: Action) -> float:
                return sum(1.0 + 10.0 / (1 + g.hp) for g in enemies if g.zone == a.target)
            return max(zones, key=weight)
        return legal[-1]

    def _reaction(self, combat: Combat, legal: list[Action]) -> Action:
        st, t, me, s = self._ctx(combat)
        atk = st.atk
        hit = atk.hit
        sk = SKILLS[atk.decl.skill]
        counter = Action("counter")
        if hit.fumble:
            return counter if counter in legal else legal[0]
        mods = -3 if me.bind else 0
        p_dodge = 0.0 if hit.crit else p_at_least(hit.total - s.stat(sk.type) - mods)
        if counter in legal and me.pending is not None:
            psk = SKILLS[me.pending.skill]
            cbase = s.stat(psk.type) + sum(SKILLS[o].hit_mod for o in me.pending.offense) + mods
            p_counter = 0.0 if hit.crit else p_at_least(hit.total + 1 - cbase)
            if p_counter > p_dodge + 0.1 or (p_dodge < 0.35 and p_counter > 0.35):
                return counter
        opts = {a.option: a for a in legal if a.verb == "dodge"}
        big = _avg(sk.damage) >= 14 or me.hp * 2 < me.max_hp
        if "origin_stop" in opts and p_dodge < 0.6 and big:
            return opts["origin_stop"]
        if "guard_stance" in opts and 0.05 < p_dodge < 0.9:
            return opts["guard_stance"]
        if "iron_body" in opts and p_dodge < 0.3 and me.tp >= 6:
            return opts["iron_body"]
        return opts.get("none", legal[0])

    def _cover(self, combat: Combat, legal: list[Action]) -> Action:
        st, t, me, s = self._ctx(combat)
        atk = st.atk
        h = st.fighters[atk.hits[atk.ti]]
        if h.hp * 10 <= h.max_hp * 35 and me.hp * 10 >= me.max_hp * 6 and me.hp > h.hp:
            return Action("cover")
        return Action("decline")

    def _interrupt(self, combat: Combat, legal: list[Action]) -> Action:
        st, t, me, s = self._ctx(combat)
        for a in legal:
            if a.verb == "interrupt" and t.stats[a.target].side == s.side:
                return a
        return Action("decline")
