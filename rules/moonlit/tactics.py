"""Moonlit's tactics: the scripted policy its `scripted` agent plays (`MoonlitSystem.scripted_agent`).

Focus fire, good charges and counters, cover, healing, purging, escape when hopeless. Every decision
returns a `Ranking`: the action, its value on the policy's scale (expected damage-equivalent worth for attacks
and heals, a rule's priority elsewhere), and closures that explain it. The agents layer makes the class an
agent (proposals, search priors, temperaments); `scored_attacks` and `estimates.strike` are what the odds
shown for a person's attacks are worked out with.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

from trpg_arena.rules.core.combat import Combat
from trpg_arena.rules.core.ranking import Ranking, Rival, Tactics, of_verb, pct
from trpg_arena.rules.core.values import Action, Decision
from trpg_arena.rules.moonlit.data import SKILLS
from trpg_arena.rules.moonlit.estimates import Strike, avg, p_at_least, strike
from trpg_arena.rules.moonlit.fighters import ABLE
from trpg_arena.rules.moonlit.skills import reaches
from trpg_arena.rules.moonlit.verbs import Condition, SkillChoice, Verb

# what a removal check is spent on first
PURGE_ORDER = (Condition.TRANCE, Condition.BIND, Condition.PARALYSIS, Condition.BAPTISM)
MIN_ATTACK = 0.3  # an attack worth less than this waits until nothing better is left to do
# the item and the skill that heal
HEALS: dict[str, str] = {Verb.USE_ITEM: "healing_salve", Verb.USE_SKILL: "healing_light"}
OFFENSE_ORDER = ("twin_target", "binding_thread", "full_force", "precise_aim")  # offense skills, best first


def _hp(g: Any) -> str:
    return f"{g.id} ({g.hp}/{g.max_hp} HP)"


#: A scored attack: its worth, the action and its GM sentence (built on request).
Scored = tuple[float, Action, Callable[[], str]]


def _attack_note(sk: Any, hit: tuple[Any, ...], est: dict[str, Any], slow: bool) -> str:
    """``strike on B1 (12/26 HP): 66 % to hit, about 10 damage through``, or who an area attack catches."""
    if sk.scope == "single":
        g = hit[0]
        e = est[g.id]
        note = (f"{sk.id} on {_hp(g)}: {pct(e.p_hit)} to hit, about {e.damage:.0f} damage through"
                + (" (baptism strips its traits)" if e.bonus >= 25 else ""))
    else:  # an area: each one caught, its chance to be hit, and the damage expected through all defences
        caught = ", ".join(f"{g.id} ({pct(est[g.id].p_hit)})" for g in hit)
        expected = sum(est[g.id].p_hit * est[g.id].damage for g in hit)
        where = "all of" if sk.scope == "global" else f"{hit[0].zone}:"
        note = f"{sk.id} on {where} {caught} to hit, about {expected:.0f} damage through in all"
    if sk.delay:
        note += "; the charge delay lets an enemy act first" if slow else "; the charge lands first"
    return note


class MoonlitTactics(Tactics):
    """Plays moonlit sensibly; deterministic (it draws nothing from its generator)."""

    def choose(self, combat: Combat, d: Decision, legal: list[Action]) -> Ranking:
        """A decision by its step's rule (``_<step>``); a trance is cleared first."""
        me = d.actor
        for a in of_verb(legal, Verb.CLEAR_TRANCE):
            return Ranking(a, 1.0, lambda: (f"{me} is in trance, which forbids every attack and most skills: "
                                            "15 emotion points clear it at once",),
                           lambda: [(0.0, x) for x in legal])  # MOON-13.5
        kind = d.step
        fn = getattr(self, f"_{kind}", None)
        choice = fn(combat, legal) if fn is not None else None
        if choice is not None and choice.action in legal:
            return choice
        return Ranking(legal[0], 0.0, lambda: (f"no rule of this agent covers the '{kind}' decision: "
                                               "the first legal action",))

    # --- helpers -------------------------------------------------------------------------------------------
    def _ctx(self, combat: Combat) -> tuple[Any, Any, Any, Any]:
        st = combat.state
        t = combat.tables
        d = combat.decision
        assert d is not None
        me = st.fighters[d.actor]
        return st, t, me, t.stats[me.id]

    @staticmethod
    def _enemies(st: Any, t: Any, side: str) -> list[Any]:
        return [st.fighters[i] for i in st.order if st.fighters[i].state in ABLE and t.stats[i].side != side]

    @staticmethod
    def _allies(st: Any, t: Any, side: str) -> list[Any]:
        return [st.fighters[i] for i in st.order if st.fighters[i].state in ABLE and t.stats[i].side == side]

    # --- public queries: the odds shown for a person's attacks ---------------------------------------------------
    def scored_attacks(self, combat: Combat, legal: list[Action]) -> list[Scored]:
        """The decider's attacks among `legal` that reach an enemy, best first: worth, action, GM sentence (lazy)."""
        st, t, me, s = self._ctx(combat)
        return self._attacks(st, t, me, s, legal, self._enemies(st, t, s.side))[0]

    def target_strike(self, combat: Combat, a: Action) -> Strike | None:
        """The declared attack's odds on the fighter a ``target`` action names (None: a zone, or no single target)."""
        st, t, me, s = self._ctx(combat)
        g = st.fighters.get(a.target) if a.verb == Verb.TARGET and a.target is not None else None
        if g is None or st.atk is None or SKILLS[st.atk.decl.skill].scope != "single":
            return None
        return strike(t, me, s, SKILLS[st.atk.decl.skill], g)

    # --- setup phase -----------------------------------------------------------------------------------------
    def _deploy(self, combat: Combat, legal: list[Action]) -> Ranking:
        st, t, me, s = self._ctx(combat)
        melee = any(sk.type == "melee" for sk in s.cat("attack"))
        a, other = (legal[0], legal[1]) if melee else (legal[1], legal[0])
        why = (f"{me.id} attacks in melee: the front row" if melee
               else f"{me.id} has no melee attack: the rear row, out of the first charge")
        return Ranking(a, 1.0, lambda: (why,), lambda: [(0.0, other)])

    def _escape(self, combat: Combat, legal: list[Action]) -> Ranking:
        st, t, me, s = self._ctx(combat)
        allies, enemies = self._allies(st, t, s.side), self._enemies(st, t, s.side)
        mine, theirs = sum(f.hp for f in allies), sum(f.hp for f in enemies)
        hopeless = mine * 5 < theirs and len(allies) < len(enemies)
        go, stay = Action(Verb.ESCAPE), Action(Verb.STAY)

        def odds() -> str:
            return (f"{me.id}'s side {s.side} has {len(allies)} able with {mine} HP against {len(enemies)} with "
                    f"{theirs} HP")
        if hopeless and go in legal:
            return Ranking(go, 1.0, lambda: (f"{odds()}: hopeless, so escape",), lambda: [(0.0, stay)])
        return Ranking(stay, 1.0, lambda: (f"{odds()}: not hopeless, so stay",),
                       lambda: [(0.0, go)] if go in legal else [])

    def _purge(self, combat: Combat, legal: list[Action]) -> Ranking:
        st, t, me, s = self._ctx(combat)
        p = p_at_least(7 + (3 if me.bind else 0) + (3 if me.mark_escape else 0))  # MOON-4.7: 7+, minus penalties

        def worth(a: Action) -> float:
            cond = a.option
            if a.verb != Verb.PURGE:
                return 0.0
            if cond in PURGE_ORDER:
                if cond == Condition.BAPTISM and me.tp < 30:
                    return -1.0  # keep TP for attacks: baptism only disables traits
                return p * (len(PURGE_ORDER) - PURGE_ORDER.index(cond))
            return p * 0.5 if me.poison >= 2 else -1.0

        scored = [(worth(a), a) for a in legal]
        value, best = max(scored, key=lambda x: x[0])
        if best.verb != Verb.PURGE or value <= 0:
            done = Action(Verb.DONE)
            return Ranking(done, 0.0, lambda: (f"{me.id} keeps its {me.tp} TP: no condition is worth a removal check",),
                           lambda: scored)
        cond = best.option
        effect = {Condition.TRANCE: "trance forbids every attack", Condition.BIND: "bind is -3 to every check",
                  Condition.PARALYSIS: "paralysis stops every move", Condition.BAPTISM: "baptism disables its traits",
                  Condition.POISON: f"{me.poison} poison stacks eat HP every end phase"}[cond]
        return Ranking(best, value, lambda: (f"{effect}: pay 15 TP of {me.tp} for a removal check, "
                                             f"{pct(p)} to shake it off",), lambda: scored)

    def _setup_skill(self, combat: Combat, legal: list[Action]) -> Ranking:
        st, t, me, s = self._ctx(combat)
        scored: list[Rival] = [(0.0, Action(Verb.DONE), "keep the TP")]
        for a in legal:
            if a.option == "field_dressing":
                g = st.fighters[a.target]
                gain = min(avg(SKILLS["field_dressing"].heal), g.max_hp - g.hp)
                urgent = g.state == "incapacitated" or g.hp * 2 < g.max_hp
                scored.append((gain * (2.0 if g.state == "incapacitated" else 1.0) + (10.0 if urgent else -10.0), a))
                if urgent:
                    return Ranking(a, scored[-1][0], lambda g=g: (
                        f"{_hp(g)} is {'down' if g.state == 'incapacitated' else 'below half'}: "
                        f"field dressing heals about {avg(SKILLS['field_dressing'].heal):.0f}",), lambda: scored)
        spare = me.tp - self._reserve(st, t, me, s)
        for a in legal:
            if a.option in ("battle_focus", "quicken") and spare >= 24:
                what = "+2 to hit this round" if a.option == "battle_focus" else "+3 AP: acting earlier"
                return Ranking(a, 1.0, lambda a=a, what=what: (
                    f"{me.id} has {spare} TP to spare: {a.option} for {what}",), lambda: scored)
        return Ranking(Action(Verb.DONE), 0.0, lambda: (
            f"{me.id} keeps its {me.tp} TP for attacks: no setup skill is needed now",),
            lambda: [(0.5 if a.option in ("battle_focus", "quicken") else -1.0, a) for a in legal] + scored)

    def _end_skill(self, combat: Combat, legal: list[Action]) -> Ranking:
        st, t, me, s = self._ctx(combat)
        for a in legal:
            if a.option == "regeneration":
                return Ranking(a, avg(SKILLS["regeneration"].heal), lambda: (
                    f"{_hp(me)} regenerates about {avg(SKILLS['regeneration'].heal):.1f} HP for no TP",),
                    lambda: [(0.0, x) for x in legal])
            if (isinstance(a.option, SkillChoice) and a.option.skill == "purifying_breath"
                    and a.option.choice != Condition.BAPTISM):
                return Ranking(a, 2.0, lambda a=a: (f"purifying breath clears {a.target}'s {a.option.choice}",),
                               lambda: [(0.0, x) for x in legal])
        return Ranking(Action(Verb.DONE), 0.0, lambda: ("no end-phase skill is worth its TP now",),
                       lambda: [(-0.5, x) for x in legal])

    # --- the main action -----------------------------------------------------------------------------------
    def _main(self, combat: Combat, legal: list[Action]) -> Ranking:
        st, t, me, s = self._ctx(combat)
        enemies = self._enemies(st, t, s.side)
        rivals: list[Rival] = []
        ranked, late = self._attacks(st, t, me, s, legal, enemies)

        def all_rivals() -> list[Rival]:
            return rivals + [(v, a, note()) for v, a, note in ranked] + [(0.0, Action(Verb.PASS))]

        # heal the fallen or the badly hurt
        heals = [a for a in legal if a.option is not None and HEALS.get(a.verb) == a.option]
        if heals:
            def need(a: Action) -> float:
                g = st.fighters[a.target]
                return (2.0 if g.state == "incapacitated" else 0.0) + 1 - g.hp / g.max_hp

            def heal_worth(a: Action) -> float:
                # HP restored, weighted by how badly they are missed; a revival puts a fighter back in the fight
                g = st.fighters[a.target]
                amount = avg(SKILLS["healing_light"].heal) if a.verb == Verb.USE_SKILL else 9.0
                down = g.state == "incapacitated"
                return min(amount, g.max_hp - g.hp) * 2 * (1 - g.hp / g.max_hp) + (20.0 if down else 0.0)

            rivals += [(heal_worth(a), a) for a in heals]
            best = max(heals, key=need)
            g = st.fighters[best.target]
            if g.state == "incapacitated" or g.hp * 10 < g.max_hp * 4:
                state = "is down" if g.state == "incapacitated" else "is below 40 %"
                return Ranking(best, heal_worth(best), lambda: (
                    f"{_hp(g)} {state}: healing comes before attacking",), all_rivals)
        items = of_verb(legal, Verb.USE_ITEM)
        for a in items:
            if a.option in ("antidote", "smelling_salts"):
                g = st.fighters[a.target]
                if a.option == "smelling_salts" or g.poison >= 2:
                    why = (f"{g.id} is in trance: smelling salts let it attack again" if a.option == "smelling_salts"
                           else f"{g.id} carries {g.poison} poison stacks: the antidote clears them all")
                    return Ranking(a, 5.0, lambda why=why: (why,), all_rivals)
        summons = [a for a in of_verb(legal, Verb.USE_SKILL) if isinstance(a.option, SkillChoice)
                   and a.option.skill == "puppet_soldiers"]
        if summons and not any(st.fighters[i].state in ABLE for i in t.summons_of.get(me.id, ())):
            return Ranking(summons[-1], 5.0, lambda: (
                f"no summon of {me.id} stands: call a {summons[-1].option.choice}",), all_rivals)
        aid = self._trance_aid(st, t, me, s, legal)
        if aid is not None:
            return aid
        keep = self._cure_reserve(st, t, me, s)
        usable = [r for r in ranked if SKILLS[r[1].option].tp <= me.tp - keep]
        wait = self._wait_to_charge(legal, enemies, usable, late)
        if wait is not None:
            return wait
        if usable and usable[0][0] > MIN_ATTACK:
            value, attack, note = usable[0]
            return Ranking(attack, value, lambda: (note(),), all_rivals)
        coups = of_verb(legal, Verb.COUP_DE_GRACE)
        if coups:
            return Ranking(coups[0], 4.0, lambda: (f"{coups[0].target} is down: the coup de grace kills it",),
                           all_rivals)
        weak = (f"{me.id}'s best attack is worth only {ranked[0][0]:.2f}" if ranked
                else f"no attack of {me.id} ({me.tp} TP, in {me.zone}) reaches an enemy")
        move = self._approach(st, t, me, s, legal, enemies)
        if move is not None:
            a, why = move
            return Ranking(a, 0.2, lambda: (f"{weak}: {why}",), all_rivals)
        if usable and usable[0][0] > 0:
            # a weak attack still beats waiting: passing every turn is how fights stall until the round cap
            value, attack, note = usable[0]
            return Ranking(attack, value, lambda: (note(), "weak, but better than waiting"), all_rivals)
        stim = [a for a in items if a.option == "stimulant"]
        if stim:
            return Ranking(stim[0], 0.1, lambda: (f"{weak}: a stimulant for +2 to hit this round",), all_rivals)
        return Ranking(Action(Verb.PASS), 0.0, lambda: (f"{weak}, and nothing else helps: pass",), all_rivals)

    @staticmethod
    def _wait_to_charge(legal: list[Action], enemies: list[Any], usable: list[Scored],
                        late: list[tuple[float, Action]]) -> Ranking | None:
        """Delay below the enemies still to act when a charged attack is the best move once they have acted.

        A standby attack is broken by any actual damage taken before it resolves (MOON-9.2); once the one enemy
        still to act this round has acted nothing can break it, so dropping AP just below its AP (MOON-6.3) first
        is worth it.
        """
        if not usable:
            return None
        cheap = {a for _, a, _ in usable}
        late = [(v, a) for v, a in late if a in cheap and v > usable[0][0]]
        waiting = [g for g in enemies if g.state == "not_acted"]
        if not late or len(waiting) != 1:
            return None  # against several, waiting lets all of them strike first
        below = min(g.ap for g in waiting) - 1
        delay = Action(Verb.DELAY, None, None, below)
        if below < 1 or delay not in legal:
            return None
        value, charge = max(late, key=lambda x: x[0])
        return Ranking(delay, value, lambda: (
            f"{waiting[0].id}, still to act, could break a charged {charge.option} with a single wound: "
            f"wait to AP {below}, then charge unhindered",), lambda: [(usable[0][0], usable[0][1])])

    def _approach(self, st: Any, t: Any, me: Any, s: Any, legal: list[Action],
                  enemies: list[Any]) -> tuple[Action, str] | None:
        """A move with a purpose, or None when moving would change nothing (no wandering between zones).

        Into the zone of the weakest enemy when no affordable attack reaches it from here, or to a fallen enemy
        for a coup de grace.
        """
        moves = {a.dest: a for a in of_verb(legal, Verb.MOVE)}
        if not moves:
            return None
        affordable = [] if me.trance else [sk for sk in s.cat("attack") if sk.tp <= me.tp]  # MOON-13.5
        if affordable and enemies:
            target = min(enemies, key=lambda g: g.hp)
            if target.zone in moves and not any(reaches(t, sk, me.zone, target.zone) for sk in affordable):
                return moves[target.zone], f"move to {target.zone}, where {_hp(target)} is the weakest enemy"
        fallen = [st.fighters[i] for i in st.order if st.fighters[i].state == "incapacitated"
                  and t.stats[i].side != s.side and st.fighters[i].zone in moves]
        if fallen:
            g = fallen[0]
            return moves[g.zone], f"move to {g.zone}, where {g.id} lies: a coup de grace can follow"
        return None

    def _can_cure_trance(self, t: Any, f: Any) -> bool:
        """Whether `f` can clear an ally's trance from its zone: purifying breath with the TP, or smelling salts."""
        return (("purifying_breath" in t.stats[f.id].skills and f.tp >= SKILLS["purifying_breath"].tp)
                or f.items.get("smelling_salts", 0) > 0)

    @staticmethod
    def _stuck_in_trance(f: Any) -> bool:
        """In trance with neither the emotion points to clear it nor the TP for a removal check (MOON-13.5, 4.7)."""
        return f.trance and f.emotion < 15 and f.tp < 15

    def _trance_aid(self, st: Any, t: Any, me: Any, s: Any, legal: list[Action]) -> Ranking | None:
        """Bring a trance cure and a stuck ally together: the curer walks over, or the tranced one walks to it."""
        curer, stuck = self._can_cure_trance(t, me), self._stuck_in_trance(me)
        if not (curer or stuck):
            return None
        moves = {a.dest: a for a in of_verb(legal, Verb.MOVE)}
        allies = [f for f in self._allies(st, t, s.side) if f.id != me.id]
        if curer:
            for f in allies:
                if self._stuck_in_trance(f) and f.zone != me.zone and f.zone in moves:
                    return Ranking(moves[f.zone], 6.0, lambda f=f: (
                        f"{f.id} is stuck in trance ({f.emotion} emotion, {f.tp} TP): walk to {f.zone} so that "
                        f"{me.id} can clear it there",))
        if stuck:
            for f in allies:
                if self._can_cure_trance(t, f) and f.zone != me.zone and f.zone in moves:
                    return Ranking(moves[f.zone], 6.0, lambda f=f: (
                        f"{me.id} is stuck in trance ({me.emotion} emotion, {me.tp} TP): walk to {f.id} in "
                        f"{f.zone}, who can clear it",))
        return None

    def _cure_reserve(self, st: Any, t: Any, me: Any, s: Any) -> int:
        """The TP of purifying breath while an ally is stuck in trance (kept even from attacks)."""
        if "purifying_breath" in s.skills and any(
                self._stuck_in_trance(f) for f in self._allies(st, t, s.side) if f.id != me.id):
            return SKILLS["purifying_breath"].tp
        return 0

    def _reserve(self, st: Any, t: Any, me: Any, s: Any) -> int:
        """TP to hold back from anything but the attacks that still win the fight.

        A stuck ally's trance cure comes first (purifying breath's cost). A fighter whose every attack costs TP
        keeps enough for the attacks it needs to take out the enemies still standing: spent on stances and
        focus, the TP would leave it unable to attack at all, and the fight would wait for the round cap.
        """
        keep = self._cure_reserve(st, t, me, s)
        attacks = s.cat("attack")
        if not attacks or any(sk.tp == 0 for sk in attacks):
            return keep
        cheapest = min(attacks, key=lambda sk: sk.tp)
        needed = 0.0
        for g in self._enemies(st, t, s.side):
            e = strike(t, me, s, cheapest, g)
            needed += g.hp / max(1.0, e.p_hit * e.damage)
        return keep + min(me.tp, cheapest.tp * math.ceil(needed))

    def _attacks(self, st: Any, t: Any, me: Any, s: Any, legal: list[Action],
                 enemies: list[Any]) -> tuple[list[Scored], list[tuple[float, Action]]]:
        """Every legal attack that reaches an enemy, with its worth and its sentence, best first; and the late charges.

        Ties keep the legal order; sentences are built only when asked for. Late charges are the charged attacks
        an enemy still to act could break first, with what they would be worth if it could not.
        """
        top_enemy_ap = max((g.ap for g in enemies if g.state == "not_acted"), default=-99)
        late: list[tuple[float, Action]] = []
        out: list[Scored] = []
        for a in of_verb(legal, Verb.ATTACK):
            sk = SKILLS[a.option]
            cands = [g for g in enemies if reaches(t, sk, me.zone, g.zone)]
            if not cands:
                continue
            est = {g.id: strike(t, me, s, sk, g) for g in cands}
            if sk.scope == "single":
                g = max(cands, key=lambda g: est[g.id].value)
                v = est[g.id].value
                hit: tuple[Any, ...] = (g,)
            elif sk.scope == "global":
                v = sum(e.value for e in est.values())
                hit = tuple(cands)
            else:
                by_zone: dict[str, float] = {}
                for g in cands:
                    by_zone[g.zone] = by_zone.get(g.zone, 0.0) + est[g.id].value
                zone = max(by_zone, key=lambda z: by_zone[z])
                v = by_zone[zone]
                hit = tuple(g for g in cands if g.zone == zone)
            slow = bool(sk.delay) and me.ap - sk.delay <= top_enemy_ap
            if sk.delay:
                v *= 0.5 if slow else 1.1
            v -= sk.tp * 0.05
            out.append((v, a, partial(_attack_note, sk, hit, est, slow)))
            if slow:
                late.append(((v + sk.tp * 0.05) / 0.5 * 1.1 - sk.tp * 0.05, a))
        out.sort(key=lambda x: -x[0])
        return out, late

    # --- attack details --------------------------------------------------------------------------------------
    def _offense(self, combat: Combat, legal: list[Action]) -> Ranking:
        st, t, me, s = self._ctx(combat)
        atk = st.atk
        opts = {a.option for a in legal}
        enemies = self._enemies(st, t, s.side)
        none = Action(Verb.OFFENSE, None, None, "none")
        skipped: list[Rival] = [(0.0, none)]
        prefs: tuple[str, ...] = OFFENSE_ORDER
        if any("regeneration" in t.stats[g.id].skills for g in enemies):
            prefs = ("soul_rend", *OFFENSE_ORDER)  # cap damage (MOON-12.1) is the one thing regeneration cannot undo
        for rank, pref in enumerate(prefs):
            if pref not in opts:
                continue
            a = Action(Verb.OFFENSE, None, None, pref)
            if pref == "twin_target" and len(enemies) < 2:
                skipped.append((-0.1, a, "a single enemy left"))
                continue
            if pref == "binding_thread" and atk is not None and atk.decl.targets:
                skipped.append((-0.1, a, "the targets are already bound by the declaration"))
                continue
            if me.tp - SKILLS[pref].tp < 12:
                skipped.append((-0.2, a, f"would leave under 12 of {me.tp} TP"))
                continue  # keep TP for the attacks themselves
            later = [(0.5 - 0.1 * i, Action(Verb.OFFENSE, None, None, p)) for i, p in enumerate(prefs) if i > rank]
            return Ranking(a, 1.0, lambda a=a: (
                f"{me.id} has {me.tp} TP: {a.option} costs {SKILLS[a.option].tp} and leaves enough for the attacks",),
                lambda later=later: [r for r in later if r[1] in legal] + skipped)
        return Ranking(none, 0.0, lambda: (f"{me.id} keeps its {me.tp} TP: no offense skill is worth it here",),
                       lambda: [r for r in skipped if r[1] != none])

    def _limit_break(self, combat: Combat, legal: list[Action]) -> Ranking:
        st, t, me, s = self._ctx(combat)
        enemies = self._enemies(st, t, s.side)
        none = Action(Verb.LIMIT_BREAK, None, None, "none")
        if me.hp >= 45 and len(enemies) == 1 and enemies[0].hp <= 20:
            for a in legal:
                if a.option != "none":
                    return Ranking(a, 1.0, lambda a=a: (
                        f"{_hp(me)} can pay 30 HP to add {a.option} against the last enemy, {_hp(enemies[0])}",),
                        lambda: [(0.0, none)])
        return Ranking(none, 0.0, lambda: (f"30 HP of {me.hp} is too dear for a second offense skill now",),
                       lambda: [(-1.0, a) for a in legal])

    def _target(self, combat: Combat, legal: list[Action]) -> Ranking:
        st, t, me, s = self._ctx(combat)
        sk = SKILLS[st.atk.decl.skill]
        people = [a for a in of_verb(legal, Verb.TARGET) if a.target in st.fighters]
        if people:
            def worth(a: Action) -> tuple[float, str]:
                g = st.fighters[a.target]
                return (strike(t, me, s, sk, g).value / max(1, g.hp) ** 0.5, a.target or "")
            best = max(people, key=worth)
            g = st.fighters[best.target]
            e = strike(t, me, s, sk, g)
            return Ranking(best, worth(best)[0], lambda: (
                f"{_hp(g)} is the best {sk.id} target for its HP: {pct(e.p_hit)} to hit, "
                f"about {e.damage:.0f} damage through",), lambda: [(worth(a)[0], a) for a in people])
        zones = of_verb(legal, Verb.TARGET)
        if zones:
            enemies = self._enemies(st, t, s.side)

            def weight(a: Action) -> float:
                return sum(1.0 + 10.0 / (1 + g.hp) for g in enemies if g.zone == a.target)
            best = max(zones, key=weight)
            there = [_hp(g) for g in enemies if g.zone == best.target]
            return Ranking(best, weight(best), lambda: (
                f"{best.target} holds {', '.join(there) or 'no enemy'}: the zone most worth hitting with {sk.id}",),
                lambda: [(weight(a), a) for a in zones])
        return Ranking(legal[-1], 0.0, lambda: ("no target is worth naming",))

    # --- reactions -------------------------------------------------------------------------------------------
    def _reaction(self, combat: Combat, legal: list[Action]) -> Ranking:
        st, t, me, s = self._ctx(combat)
        atk = st.atk
        hit = atk.hit
        sk = SKILLS[atk.decl.skill]
        counter = Action(Verb.COUNTER)
        opts = {a.option: a for a in of_verb(legal, Verb.DODGE)}
        plain = opts.get("none", legal[0])
        if hit.fumble:
            a = counter if counter in legal else legal[0]
            return Ranking(a, 1.0, lambda: (f"{atk.attacker} fumbled: the attack misses whatever {me.id} does",))
        mods = -3 if me.bind else 0
        p_dodge = 0.0 if hit.crit else p_at_least(hit.total - s.stat(sk.type) - mods)
        p_counter = 0.0
        if counter in legal and me.pending is not None:
            psk = SKILLS[me.pending.skill]
            cbase = s.stat(psk.type) + sum(SKILLS[o].hit_mod for o in me.pending.offense) + mods
            p_counter = 0.0 if hit.crit else p_at_least(hit.total + 1 - cbase)

        def odds() -> str:
            return f"{atk.attacker}'s {sk.id} rolled {hit.total}{' (critical)' if hit.crit else ''}"

        p_guard = 0.0 if hit.crit else p_at_least(hit.total - s.stat(sk.type) - mods - 2)

        def rivals() -> list[Rival]:
            # every option valued by its chance to come out unharmed; the notes say what it costs
            out: list[Rival] = [(p_dodge, plain, f"{pct(p_dodge)} to dodge")]
            if counter in legal:
                out.append((p_counter, counter, f"{pct(p_counter)} to win the counter"))
            notes = {"guard_stance": (p_guard, f"{pct(p_guard)} to dodge, 2 TP"),
                     "origin_stop": (1.0, "a certain dodge, once per combat"),
                     "iron_body": (p_dodge, f"{pct(p_dodge)} to dodge, reduction +4 if hit, 3 TP")}
            out += [(notes[name][0], a, notes[name][1]) for name, a in opts.items() if name in notes]
            return out

        if counter in legal and me.pending is not None:
            if p_counter > p_dodge + 0.1 or (p_dodge < 0.35 and p_counter > 0.35):
                return Ranking(counter, p_counter, lambda: (
                    f"{odds()}: countering with the charged {me.pending.skill} beats it {pct(p_counter)} of the time, "
                    f"dodging only {pct(p_dodge)}",), rivals)
        big = avg(sk.damage) >= 14 or me.hp * 2 < me.max_hp
        # TP on a stance only where the blow can hurt, and never out of what the attacks still need
        attacker = st.fighters[atk.attacker]
        hurts = strike(t, attacker, t.stats[attacker.id], sk, me).damage >= 1.0
        spare = me.tp - self._reserve(st, t, me, s)
        if not hurts:
            return Ranking(plain, p_dodge, lambda: (
                f"{odds()}, but it cannot get through {me.id}'s defence: no TP spent, {pct(p_dodge)} to dodge",),
                rivals)
        if "origin_stop" in opts and p_dodge < 0.6 and big:
            return Ranking(opts["origin_stop"], 1.0, lambda: (
                f"{odds()}: a plain dodge succeeds {pct(p_dodge)} of the time and the blow is heavy: "
                "origin stop dodges it for sure",), rivals)
        if "guard_stance" in opts and 0.05 < p_dodge < 0.9 and spare >= SKILLS["guard_stance"].tp:
            return Ranking(opts["guard_stance"], p_guard, lambda: (
                f"{odds()}: guard stance lifts the dodge from {pct(p_dodge)} to {pct(p_guard)} for 2 TP",), rivals)
        if "iron_body" in opts and p_dodge < 0.3 and me.tp >= 6 and spare >= SKILLS["iron_body"].tp:
            return Ranking(opts["iron_body"], p_dodge, lambda: (
                f"{odds()}: only {pct(p_dodge)} to dodge, so iron body adds 4 to the reduction",), rivals)
        return Ranking(plain, p_dodge, lambda: (f"{odds()}: {pct(p_dodge)} to dodge" + (
            "; no defence skill changes that enough" if len(opts) > 1 else ""),), rivals)

    def _cover(self, combat: Combat, legal: list[Action]) -> Ranking:
        st, t, me, s = self._ctx(combat)
        atk = st.atk
        h = st.fighters[atk.hits[atk.ti]]
        cover, decline = Action(Verb.COVER), Action(Verb.DECLINE)
        if h.hp * 10 <= h.max_hp * 35 and me.hp * 10 >= me.max_hp * 6 and me.hp > h.hp:
            return Ranking(cover, 1.0, lambda: (f"{_hp(h)} is hit and nearly down; {_hp(me)} takes the blow "
                                                "for 10 AP",), lambda: [(0.0, decline)])
        return Ranking(decline, 1.0, lambda: (f"{_hp(h)} can take this hit better than {_hp(me)} can",),
                       lambda: [(0.0, cover)])

    def _interrupt(self, combat: Combat, legal: list[Action]) -> Ranking:
        st, t, me, s = self._ctx(combat)
        for a in of_verb(legal, Verb.INTERRUPT):
            if t.stats[a.target].side == s.side:
                return Ranking(a, 1.0, lambda a=a: (f"{a.option or 'the interrupt'} protects ally {a.target} "
                                                    "from this attack",),
                               lambda: [(0.0, Action(Verb.DECLINE))])
        return Ranking(Action(Verb.DECLINE), 0.0, lambda: ("no ally here needs the interrupt",),
                       lambda: [(-0.5, a) for a in legal])
