"""Investigator's tactics: the scripted policy its `scripted` agent plays (`InvestigatorSystem.scripted_agent`).

The policy plays like a careful investigator (or cultist): shooters take the shoot-phase priority when they have a
clean shot, otherwise move to a square out of every enemy's nine-grid with a target in base range, aim and
shoot; melee fighters close to two squares and strike with a one-step attack (so no opportunity attack is
provoked), preferring flanking squares; everyone takes free opportunity attacks, spends a leftover standard
action on pursuit attacks, first-aids a dying ally at once, heals with spells and reloads empty guns.

Attacks are valued by expected worth (hit chance times damage relative to the target's HP, more for kills);
the other choices follow a priority list, each giving its rule as the reason and leaving the scored attacks
as the runners-up. ``ranked(combat)`` returns a `Ranking` (the agents layer makes the class an agent:
proposals, search priors, temperaments); ``estimates(combat, actions)`` is the public query of an attack's
hit chance and damage that the odds shown for a person's attacks read.
"""

from __future__ import annotations

from itertools import groupby
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np

from trpg_arena.rules.core.battlefield import chebyshev
from trpg_arena.rules.core.combat import Combat
from trpg_arena.rules.core.ranking import Ranking, Rival, Tactics, grouped_by_verb, of_verb, pct
from trpg_arena.rules.core.values import Action, Decision
from trpg_arena.rules.core.wording import counted
from trpg_arena.rules.investigator.catalogue import Meta, catalogue_of
from trpg_arena.rules.investigator.compiled import DIRS, Setup, WeaponT
from trpg_arena.rules.investigator.legal import TurnActions, melee_weapon, shot_band, wielded_item, wielded_t
from trpg_arena.rules.investigator.rolls import EXTREME, HARD, REGULAR, Expr
from trpg_arena.rules.investigator.sight import line_status, standing_bodies
from trpg_arena.rules.investigator.state import Fighter, InvState, Item
from trpg_arena.rules.investigator.verbs import Verb

Cell = tuple[int, int]
ATTACK_VERBS = (Verb.SHOOT, Verb.MELEE, Verb.THROW, Verb.CAST, Verb.PURSUE)
NO_ATTACK = -1e9  # the score of an attack that makes no sense
ODDS_KEPT = 100_000  # shots' odds kept per encounter before the table starts afresh (a bound on memory)
WORTH = "hit chance times the share of the target's HP it takes, more for a kill"  # what a score means, for GMs


class Estimate(NamedTuple):
    """One attack action as the agent sees it: score, hit chance, mean damage, the risk taken, a description."""

    score: float
    p: float = 0.0
    damage: float = 0.0
    risk: float = 0.0
    note: str = ""


IMPOSSIBLE = Estimate(NO_ATTACK)
_VERB = attrgetter("verb")
_NO_ACTIONS: list[Action] = []  # no actions of a verb (read only)


def _attack_key(m: Meta, spells: dict[str, Any]) -> tuple[tuple[Any, ...], tuple[int, int] | None, Meta, bool]:
    """What `_estimate` keys an attack by, bar the square; the step before it, its parts, whether it is passed over.

    An attack with a step after it shares its key with the attack alone, but for melee (the step after rules
    it out); with a step before, the square is the attacker's moved by the step. `_estimate_from` rules some
    attacks out whatever the state (a shot or melee with a technique, a melee with a step after it, a spell that
    deals no damage at once): they score `NO_ATTACK`, so `_best_attack` passes over them. It passes over a shot or
    spell with a step after it too: the rules list one only after the same attack with no step, made from the same
    square under the same test (`Legal.step_options` gives the plain form first), which scores the same and, earlier
    in legal order, wins every tie.
    """
    when = m.when
    step = DIRS[m.dir] if when == "before" else None
    if m.verb == CAST:
        never = spells[m.head].effect != "damage" or spells[m.head].rounds > 1
    elif m.verb == SHOOT:
        never = bool(m.head)
    elif m.verb in _MELEE:
        never = bool(m.head) or when == "after"
    else:
        never = False
    if when == "after" and m.verb not in _MELEE:
        when = ""
        never = True  # the twin of the attack with no step, listed before it
    return (m.verb, m.target, m.head, when, m.shots), step, m, never


_MELEE = (Verb.MELEE, Verb.PURSUE)  # the verbs whose estimate tells a step after the attack from none
# the verbs the policy compares on every decision, bound once as module names: an enum member is a class
# attribute lookup (slow on Python 3.11)
(CAST, DECLINE, DIVE_FOR_COVER, DODGE, END_TURN, FIGHT_BACK, FIRST_AID, MOVE, NO_DEFENSE, OPPORTUNITY_ATTACK,
 PICK_UP, PREPARE, PURSUIT_ATTACK, RELOAD, SHOOT, STAND_UP, STEP, SWITCH_WEAPON, THROW, WAIT) = (
    Verb.CAST, Verb.DECLINE, Verb.DIVE_FOR_COVER, Verb.DODGE, Verb.END_TURN, Verb.FIGHT_BACK, Verb.FIRST_AID,
    Verb.MOVE, Verb.NO_DEFENSE, Verb.OPPORTUNITY_ATTACK, Verb.PICK_UP, Verb.PREPARE, Verb.PURSUIT_ATTACK,
    Verb.RELOAD, Verb.SHOOT, Verb.STAND_UP, Verb.STEP, Verb.SWITCH_WEAPON, Verb.THROW, Verb.WAIT)


def _mean(e: Expr) -> float:
    """The rough mean the policy weighs a damage expression by: half of (maximum + flat + dice count)."""
    known = _MEANS.get(e)
    if known is None:
        known = _MEANS[e] = (e.maximum + e.flat + sum(n for _, n, _ in e.dice)) / 2.0
    return known


_MEANS: dict[Expr, float] = {}  # damage expressions are few and frozen: each mean is worked out once


def _at(f: Fighter) -> Cell:
    """The square of a fighter on the map (the agent only weighs those: foes and patients are picked so)."""
    assert f.pos is not None
    return f.pos


def _p(skill: int, required: int, bonus: int = 0) -> float:
    """Rough chance that a check reaches `required`, with bonus dice approximated (the policy weighs no penalty)."""
    thr = (skill // 2 if required == HARD else skill // 5 if required == EXTREME else skill) / 100.0
    thr = max(0.01, min(0.99, thr))
    if bonus > 0:
        return 1 - (1 - thr) ** (1 + bonus)
    return thr


class InvestigatorTactics(Tactics):
    """Heuristic tactics for the investigator system (see the module docstring); it draws nothing from its generator."""

    # --- entry ---------------------------------------------------------------------------------
    def choose(self, combat: Combat, d: Decision, legal: list[Action]) -> Ranking:
        """A defence, a reaction, a phase offer or a turn, each by its own rules."""
        step = d.step
        if step == "defense" or step == "reaction":
            self._glance(combat, d)
            return self._defend(legal) if step == "defense" else self._react(legal)
        self._look(combat)
        if step == "phase_offer":
            return self._offer(legal)
        return self._turn(legal)

    def estimates(self, combat: Combat, actions: list[Action]) -> dict[Action, Estimate]:
        """The decider's attacks among `actions` that make sense, each with its hit chance, damage and score."""
        self._look(combat)
        out = {}
        for a in actions:
            if a.verb in ATTACK_VERBS:
                est = self._estimate(a)
                if est.score > NO_ATTACK:
                    out[a] = est
        return out

    def _look(self, combat: Combat) -> None:
        """What every estimate of this decision reads: the tables, the decider, its friends and its foes."""
        d = combat.decision
        assert d is not None
        self._glance(combat, d)
        cat = catalogue_of(self.s)
        self.meta = cat.meta
        side_of = self.s.side_of
        side = side_of[self.me.id]
        # foes (able, on the map) and friends (on the map, neither dead nor fled) in one pass, fighters' order
        foes: list[Fighter] = []
        friends: list[Fighter] = []
        self.foes, self.friends = foes, friends
        for f in self.st.fighters:
            if f.pos is None or f.dead or f.fled:
                continue
            if side_of[f.id] == side:
                friends.append(f)
            elif not (f.unconscious or f.dying):  # `able`, inline (dead and fled are out already)
                foes.append(f)
        # what many candidates of this decision ask again, worked out on first use
        self._bodies: dict[Cell, tuple[str, ...]] | None = None
        self._adjacent: dict[tuple[Cell, str], int] = {}
        self._kit: tuple[Any, Any, bool, int | None] | None = None
        self._estimates: dict[tuple[Any, ...], Estimate] = {}
        self._keys = cat.attack_keys  # the encounter's: each action's part of an estimate's key
        self._bounds: dict[tuple[str, int, int], float | None] = {}  # `_shot_bound` by target, distance and shots
        self._shots: dict[tuple[str, Cell], tuple[float, float, float, float, str, str] | None] = {}
        self._away: dict[Cell, bool] = {}
        self._odds: dict[tuple[Any, ...], tuple[float, float, float, str, str]] = cat.shot_odds  # the encounter's
        if len(self._odds) > ODDS_KEPT:
            self._odds.clear()
        self._qualities: dict[int, float | None] = {}
        self._gun: tuple[Item | None, WeaponT | None, bool] | None = None  # `_shot`'s wielded item, weapon, aim
        self._foe_cells = [f.pos for f in self.foes if f.pos is not None]  # every foe's: `foes` are on the map

    def _glance(self, combat: Combat, d: Decision) -> None:
        """What a defence or a reaction reads: the tables, the state and the decider (not `_look`'s friends, foes)."""
        self.c = combat
        self.s: Setup = combat.tables
        self.st: InvState = combat.state
        self.me = self.st.fighters[self.s.idx[d.actor]]

    def _line(self, a: Cell, b: Cell, ends: tuple[str, str]) -> str:
        """`line_status` in this decision's state (the standing bodies looked up once)."""
        if self._bodies is None:
            self._bodies = standing_bodies(self.st)
        return line_status(self.s, self.st, a, b, ends, self._bodies)

    def _m(self, a: Action) -> Meta:
        return self.meta[a]

    def _f(self, cid: str) -> Fighter:
        return self.st.fighters[self.s.idx[cid]]

    # --- reactions -----------------------------------------------------------------------------
    def _defend(self, legal: list[Action]) -> Ranking:
        verbs = {a.verb: a for a in legal}
        prof = self.s.prof(self.me.id)
        mw = melee_weapon(self.s, self.me)
        dodge, fight = prof.skill("Dodge"), prof.skill(mw.skill)

        def rivals() -> list[Rival]:
            odds: dict[str, tuple[float, str]] = {
                DODGE: (dodge / 100, f"Dodge {dodge}"), FIGHT_BACK: (fight / 100, f"{mw.skill} {fight}"),
                DIVE_FOR_COVER: (dodge / 200, f"Dodge {dodge} for a penalty die, and a standard action lost"),
                NO_DEFENSE: (0.0, "")}
            return [(odds[a.verb][0], a, odds[a.verb][1]) for a in legal if a.verb in odds]

        if DIVE_FOR_COVER in verbs:
            return Ranking(verbs[NO_DEFENSE], 0.0, lambda: (
                f"diving for cover only adds a penalty die and costs {self.me.id} a standard action: take the shot",),
                rivals)
        if FIGHT_BACK in verbs and fight > dodge + 5:
            return Ranking(verbs[FIGHT_BACK], fight / 100, lambda: (
                f"{self.me.id}'s {mw.skill} {fight} beats its Dodge {dodge}: fight back, and hurt the attacker "
                "on a win",), rivals)
        a = verbs.get(DODGE, legal[-1])
        why = (f"{self.me.id}'s Dodge {dodge} against its {mw.skill} {fight}: not better enough to risk fighting back"
               if FIGHT_BACK in verbs and fight > dodge else f"Dodge {dodge} is the best defence {self.me.id} has")
        return Ranking(a, dodge / 100, lambda: (why,), rivals)

    def _react(self, legal: list[Action]) -> Ranking:
        decline = of_verb(legal, DECLINE)[0]
        for a in of_verb(legal, OPPORTUNITY_ATTACK):
            return Ranking(a, 1.0, lambda a=a: (
                f"{a.target} moves out of {self.me.id}'s reach: the opportunity attack is free",),
                lambda: [(0.0, decline)])
        plain = [a for a in of_verb(legal, PURSUIT_ATTACK) if a.option is None]
        if plain:
            mover = self._f(plain[0].target or "")
            why = ("its turn is over, so the standard action is spare" if self.me.had_turn
                   else f"{self.me.id} fights in melee anyway" if not self._is_ranged(self.me)
                   else f"{mover.id} is a shooter getting away")
            if self.me.had_turn or not self._is_ranged(self.me) or self._is_ranged(mover):
                return Ranking(plain[0], 0.5, lambda: (f"pursue {mover.id}: {why}",), lambda: [(0.0, decline)])
            return Ranking(decline, 0.0, lambda: (
                f"{self.me.id} keeps its standard action for its own shot rather than chase {mover.id}",),
                lambda: [(-0.5, plain[0])])
        return Ranking(decline, 0.0, lambda: ("no reaction here is worth a standard action",),
                       lambda: [(-0.5, a) for a in legal])

    # --- phase offers and turns ----------------------------------------------------------------
    def _offer(self, legal: list[Action]) -> Ranking:
        best, score = self._best_attack(legal)
        wait = legal[-1] if legal[-1].verb == WAIT else of_verb(legal, WAIT)[0]  # the rules list it last

        def scored() -> list[tuple[float, Action]]:
            return self._attack_scores(legal)

        if best is not None and score >= 1.0:
            return Ranking(best, score, lambda: self._attack_reasons(best, score), scored)
        return Ranking(wait, 0.0, lambda: (
            f"{self.me.id} waits for its turn: " + (f"its best shot, at {self._m(best).target}, is worth only "
                                                    f"{score:.2f} ({WORTH})" if best else "it has no shot now"),),
            scored)

    def _turn(self, legal: list[Action]) -> Ranking:  # noqa: C901 - a priority list
        # the rules' groups where the set carries them (`TurnActions`): a turn's set is mostly moves
        by_verb = legal.groups if type(legal) is TurnActions else grouped_by_verb(legal)
        end = by_verb[END_TURN][0]
        me = self.me
        if not self.foes:
            return Ranking(end, 0.0, lambda: ("no enemy is left standing",))
        scored: list[tuple[float, Action]] | None = None

        def attacks() -> list[tuple[float, Action]]:
            nonlocal scored
            if scored is None:
                scored = self._attack_scores(legal)
            return scored

        def rivals() -> list[Rival]:
            return [*attacks(), (0.0, end)]

        # first aid for a dying or unconscious ally comes first
        for a in by_verb.get(FIRST_AID, []):
            t = self._f(a.target or "")
            if self.s.side_of[t.id] == self.s.side_of[me.id] and (t.dying or t.unconscious):
                return Ranking(a, 5.0, lambda t=t: (
                    f"{t.id} is {'dying' if t.dying else 'unconscious'}: first aid comes first",), rivals)
        for a in by_verb.get(CAST, []):
            m = self._m(a)
            sp = self.s.spells[m.head]
            t = self._f(a.target or "")
            if sp.effect == "heal" and not m.when and (t.dying or t.hp <= self.s.prof(t.id).max_hp // 2):
                return Ranking(a, 4.0, lambda t=t, head=m.head: (
                    f"{t.id} is at {t.hp}/{self.s.prof(t.id).max_hp} HP: {head} heals before anyone attacks",),
                    rivals)
        rescue = self._rescue_move(by_verb)
        if rescue is not None:
            patient = next(f.id for f in self.friends if f.dying and f.pos is not None
                           and chebyshev(f.pos, rescue.dest) == 1)
            return Ranking(rescue, 3.0, lambda: (
                f"{patient} is dying: walk next to it so that first aid can follow this turn",), rivals)
        it = wielded_item(me)
        w = wielded_t(self.s, me)
        if RELOAD in by_verb and it is not None and (it.jammed or it.loaded == 0):
            return Ranking(by_verb[RELOAD][0], 2.0, lambda: (
                f"{me.id}'s {it.template} is {'jammed' if it.jammed else 'empty'}: reload",), rivals)
        if SWITCH_WEAPON in by_verb:
            sw = self._switch(by_verb[SWITCH_WEAPON], w.kind, it)
            if sw is not None:
                why = (f"{me.id}'s gun is empty with no ammunition left: switch to {sw.option}"
                       if w.kind == "firearm" else f"{me.id} is fighting bare-handed: switch to {sw.option}")
                return Ranking(sw, 1.5, lambda: (why,), rivals)
        attack, score = self._best_attack(legal, by_verb)
        if attack is not None:
            m = self._m(attack)
            if m.verb in (SHOOT, THROW) and PREPARE in by_verb and not me.bonus_to:
                aim = [a for a in by_verb[PREPARE] if a.option == "aim"]
                if aim:
                    return Ranking(aim[0], score, lambda: (
                        f"aim first: the {m.verb} at {m.target} to follow gets a bonus die",
                        *self._attack_reasons(attack, score)), rivals)
            if score > 0.3:
                return Ranking(attack, score, lambda: self._attack_reasons(attack, score), rivals)
        weak = (f"the best attack is worth only {score:.2f} ({WORTH})" if attack is not None
                else "no attack is possible")
        if STAND_UP in by_verb:
            return Ranking(by_verb[STAND_UP][0], 0.5, lambda: (f"{me.id} is prone: {weak}, so stand up",), rivals)
        if not me.move_used:
            mv = self._movement(by_verb)
            if mv is not None:
                dest, gain = mv
                return Ranking(dest, max(gain, 0.0), lambda: (f"{weak}: {self._move_reason(dest)}",),
                               lambda: [*rivals(), *self._move_rivals(by_verb)])
        for a in by_verb.get(PREPARE, []):
            tq = self.s.techniques[a.option]
            if a.option != "aim" and any(k in tq.bonus_to for k in ("dodge",)):
                return Ranking(a, 0.2, lambda a=a: (f"{weak} for {me.id}: prepare {a.option} for a bonus die on the "
                                                    "next dodge",),
                               rivals)
        for a in by_verb.get(PICK_UP, []):
            lying = next((g.item.template for g in self.st.ground if g.item.id == a.option), "")
            if self.s.weapons.get(lying) is not None and w.kind == "melee" and w.id == "unarmed":
                return Ranking(a, 0.3, lambda a=a: (f"{me.id} is unarmed: pick up the {a.option}",), rivals)
        return Ranking(end, 0.0, lambda: (f"{weak} for {me.id}, " + (
            "whose move is used" if me.move_used else f"and no square beats staying at {me.pos}") + ": end the turn",),
            rivals)

    def _rescue_move(self, by_verb: dict[str, list[Action]]) -> Action | None:
        """Walk next to a dying ally with a visible wound so that first aid can follow this turn (INV-11.7)."""
        me = self.me
        if me.move_used or me.pos is None or me.standard_used >= self.s.prof(me.id).actions:
            return None
        patients = [f for f in self.friends if f.id != me.id and f.dying and f.untreated_wound and f.pos is not None]
        if not patients:
            return None
        best: tuple[float, Action] | None = None
        for a, dest, full_move in self._move_options(by_verb):
            if not any(chebyshev(dest, _at(p)) == 1 for p in patients):
                continue
            danger = sum(1 for f in self.foes if f.pos is not None and chebyshev(f.pos, dest) == 1)
            cost = danger * 2.0 + (0.5 if full_move else 0.0)
            if best is None or cost < best[0]:
                best = (cost, a)
        return None if best is None else best[1]

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
        """The foes next to `pos` (Chebyshev distance 1) that could still strike, less `ignore` (kept per decision)."""
        key = (pos, ignore)
        known = self._adjacent.get(key)
        if known is not None:
            return known
        x, y = pos
        n = 0
        for f in self.foes:  # a plain loop with the distance inline: called for most squares an attack is made from
            p = f.pos
            if p is not None and f.id != ignore and not f.opportunity_used and not f.channel_spell:
                dx, dy = p[0] - x, p[1] - y
                if -1 <= dx <= 1 and -1 <= dy <= 1 and (dx or dy):
                    n += 1
        self._adjacent[key] = n
        return n

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

    def _attack_scores(self, legal: list[Action]) -> list[tuple[float, Action]]:
        """Every legal attack with its score, legal order (impossible ones at -1e9 are left out)."""
        out = []
        for verb, run in groupby(legal, _VERB):  # a legal set lists each verb's actions together
            if verb in ATTACK_VERBS:
                for a in run:
                    sc = self._estimate(a).score
                    if sc > NO_ATTACK:
                        out.append((sc, a))
        return out

    def _best_attack(self, legal: list[Action],
                     by_verb: dict[str, list[Action]] | None = None) -> tuple[Action | None, float]:
        """The first of `_attack_scores(legal)` with the highest score, with the shots weighed best bound first.

        A shot's score is its worth with a clear line times the shots, less the risk and a pursuit's point: an
        obstruction only lowers the hit chance, and the rest only subtracts, so the clear worth times the shots
        bounds it (the same float operations, monotone). The other attacks, and shots already weighed in this
        decision, are scored outright; the shots left are then weighed in order of their bounds, highest first
        (legal order among equals), until no bound left can beat the best score or tie it earlier in legal order.
        A decision offers a shot from every square a step away, most of which cannot beat the plain shot, so
        their lines and the threats at their squares are never looked at. Attacks that `_attack_key` rules out
        whatever the state are passed over (they score `NO_ATTACK`, which no attack needs to beat), and so are the
        shots and spells with a step after them: each scores what the same attack with no step, listed before it,
        scores, and a later attack wins only with a higher score. Every other attack has a key of its own.

        `by_verb` is the legal set grouped by verb, when the caller has it: a legal set lists each verb's actions
        together, so its groups give the attacks in legal order without walking the moves (most of a turn's set).
        """
        best: Action | None = None
        best_score = NO_ATTACK
        best_i = -1
        estimates = self._estimates
        keys = self._keys
        here = self.me.pos
        fighters, idx, bounds = self.st.fighters, self.s.idx, self._bounds
        # shots to weigh: (-bound, index, ...); the index is unique, so a plain sort orders them highest bound
        # first, then in legal order, without a key function
        pending: list[tuple[float, int, Meta, tuple[Any, ...], Cell]] = []
        i = -1  # the attack's place among the legal attacks (legal order)
        attack_of: list[Action] = []  # by that place
        runs = groupby(legal, _VERB) if by_verb is None else by_verb.items()
        for verb, run in runs:  # a legal set lists each verb's actions together
            if verb not in ATTACK_VERBS:
                continue
            for a in run:
                info = keys.get(a)  # the key of `_estimate`, inline
                if info is None:
                    info = keys[a] = _attack_key(self.meta[a], self.s.spells)
                part, step, m, never = info
                if never:
                    continue  # it scores `NO_ATTACK`, which never beats the best score (the floor at worst), or it is
                    # the twin of an attack met before it
                i += 1
                attack_of.append(a)
                src = here
                if step is not None and src is not None:
                    src = (src[0] + step[0], src[1] + step[1])
                key = (part, src)
                est = estimates.get(key)
                if est is None:
                    if verb == SHOOT and src is not None and not m.head:  # a possible shot: bounded, weighed later
                        tpos = fighters[idx[m.target]].pos
                        if tpos is not None:
                            dx, dy = src[0] - tpos[0], src[1] - tpos[1]
                            d = max(dx if dx > 0 else -dx, dy if dy > 0 else -dy)  # `chebyshev`, inline
                            bkey = (m.target, d, m.shots)  # one target's shots from one distance share a bound
                            bound = bounds[bkey] if bkey in bounds else self._shot_bound(bkey)
                            if bound is not None:
                                pending.append((-bound, i, m, key, src))
                                continue
                    est = estimates[key] = self._estimate_from(m, src)
                sc = est.score
                if sc > best_score:  # legal order: a later attack wins only with a higher score
                    best, best_score, best_i = a, sc, i
        if pending:
            pending.sort()
            for neg, i, m, key, src in pending:
                bound = -neg
                if bound < best_score:
                    break  # no shot left can reach the best score
                if bound == best_score and i > best_i:
                    continue  # it could only tie an attack earlier in legal order
                est = estimates.get(key)  # an equal shot of the same key may have been weighed just before
                if est is None:
                    est = estimates[key] = self._estimate_from(m, src)
                sc = est.score
                if sc > best_score or (sc == best_score and sc > NO_ATTACK and i < best_i):
                    best, best_score, best_i = attack_of[i], sc, i
        return best, best_score

    def _shot_bound(self, key: tuple[str, int, int]) -> float | None:
        """The most a shot can score (`_best_attack`): its worth with a clear line times the shots (None: no bound).

        `key` is the target, the distance shot from and the shots; the bound is kept in `_bounds` under it.
        """
        tid, d, shots = key
        bound = None
        _, w, aimed = self._wielded()
        if w is not None:
            band = shot_band(self.s, w, d)
            if band is not None:
                t = self.st.fighters[self.s.idx[tid]]
                bound = self._shot_odds(t, d, False, band, w, aimed)[0] * max(1, shots)
        self._bounds[key] = bound
        return bound

    def _estimate(self, a: Action) -> Estimate:
        """Hit chance, expected damage and score of one attack action (score `NO_ATTACK` if it makes no sense).

        An attack with a step after it is weighed from where the attacker stands, whichever way it then steps:
        the estimate depends on the attack and the square it is made from only, so it is worked out once. Only
        melee tells a step after from none (it rules the step after out), so the other verbs share one key.
        """
        info = self._keys.get(a)
        if info is None:
            info = self._keys[a] = _attack_key(self.meta[a], self.s.spells)
        part, step, m, _ = info
        src = self.me.pos
        if step is not None and src is not None:
            src = (src[0] + step[0], src[1] + step[1])
        key = (part, src)
        est = self._estimates.get(key)
        if est is None:
            est = self._estimates[key] = self._estimate_from(m, src)
        return est

    def _estimate_from(self, m: Meta, src: Cell | None) -> Estimate:
        s, me = self.s, self.me
        t = self.st.fighters[s.idx[m.target]]
        if t.pos is None or me.pos is None or src is None:
            return IMPOSSIBLE
        risk = 0.0
        note = ""
        if m.verb == CAST:
            sp = s.spells[m.head]
            if sp.effect != "damage" or sp.rounds > 1:
                return IMPOSSIBLE
            risk = 2.0 * self._adjacent_threats(src)
            avg = _mean(sp.dice)
            p = 0.6 if sp.resist else 1.0
            score = p * self._value(t, avg) - risk
            note = f"{m.head}" + (", which it may resist" if sp.resist else "")
        elif m.verb == SHOOT:
            if m.head:
                return IMPOSSIBLE
            shot = self._shot(t, src)
            if shot is None:
                return IMPOSSIBLE
            worth, p, avg, risk, lead, tail = shot
            score = worth * max(1, m.shots) - risk
            note = lead + (f", {m.shots} shots" if m.shots > 1 else "") + tail
        elif m.verb == THROW:
            it = wielded_item(me)
            if it is None:
                return IMPOSSIBLE
            w = s.weapons[it.template]
            req = HARD if me.moved_long else REGULAR
            if self._line(src, t.pos, (me.id, t.id)) == "obstructed":
                req = EXTREME
            p = _p(s.prof(me.id).skill(w.skill), req) * 0.8
            avg = _mean(w.damage)
            score = p * self._value(t, avg)
            note = f"thrown {w.id}"
        else:  # melee / pursue
            if m.head or m.when == "after":
                return IMPOSSIBLE
            w = melee_weapon(s, me)
            req = HARD if me.moved_long else REGULAR
            opp = (t.pos[0] * 2 - src[0], t.pos[1] * 2 - src[1])
            flank = any(f.pos == opp and f.able for f in self.friends if f.id != me.id)
            prof = s.prof(me.id)
            p = _p(prof.skill(w.skill), req, 1 if flank else 0) * (0.75 if t.able else 1.0)
            avg = _mean(w.damage)
            db = prof.db
            avg += _mean(db) if db.dice else db.flat
            risk = 0.5 * max(0, self._adjacent_threats(src, ignore=t.id) - self._adjacent_threats(me.pos, t.id))
            score = p * self._value(t, avg) - risk + (0.2 if flank else 0)
            note = f"{w.id}" + (", flanking with an ally" if flank else "") + (
                ", stepping in first" if m.when == "before" else "")
        if m.when == "before" and self._steps_away(src):
            score -= 1.0  # stepping away invites a pursuit attack
            note += ", though stepping away invites a pursuit attack"
        return Estimate(score, p, avg, risk, note)

    def _shot(self, t: Fighter, src: Cell) -> tuple[float, float, float, float, str, str] | None:
        """A shot at `t` from `src`, whatever the number of shots (None: out of range or nothing wielded).

        Its worth per shot, hit chance, mean damage, risk, and the note's parts before and after the shots.
        """
        key = (t.id, src)
        if key in self._shots:
            return self._shots[key]
        out = None
        _, w, aimed = self._wielded()
        if w is not None:  # a wielded weapon
            tpos = t.pos
            assert tpos is not None
            dx, dy = src[0] - tpos[0], src[1] - tpos[1]
            d = max(dx if dx > 0 else -dx, dy if dy > 0 else -dy)  # `chebyshev`, inline
            band = shot_band(self.s, w, d)
            if band is not None:
                obstructed = self._line(src, tpos, (self.me.id, t.id)) == "obstructed"
                worth, p, avg, lead, tail = self._shot_odds(t, d, obstructed, band, w, aimed)
                out = (worth, p, avg, 2.5 * self._adjacent_threats(src), lead, tail)
        self._shots[key] = out
        return out

    def _wielded(self) -> tuple[Item | None, WeaponT | None, bool]:
        """What every shot of this decision reads of the shooter: its wielded item, that weapon, whether it aimed."""
        gun = self._gun
        if gun is None:
            me = self.me
            it = wielded_item(me)
            gun = self._gun = (it, None if it is None else self.s.weapons[it.template],
                               bool(me.bonus_to and "shoot" in me.bonus_to))
        return gun

    def _shot_odds(self, t: Fighter, d: int, obstructed: bool, band: tuple[int, Expr], w: WeaponT,
                   aimed: bool) -> tuple[float, float, float, str, str]:
        """A shot's worth, hit chance, mean damage and note parts at `d` squares through a line so obstructed or not.

        Squares at one distance with the same line make the same shot (only the risk differs). The odds read the
        static tables, the shooter's weapon and aim, and the target's HP, channelled spell and ability to act (`_value`)
        only, so they are kept per encounter under exactly those: a shooter weighs the same shots turn after turn.
        """
        key = (self.me.id, w.id, aimed, t.id, t.hp, bool(t.channel_spell), t.able, d, obstructed)
        odds = self._odds.get(key)
        if odds is None:
            req, dmg = band
            if obstructed:
                req = EXTREME
            bonus = (1 if d == 1 else 0) + (1 if aimed else 0)
            p = _p(self.s.prof(self.me.id).skill(w.skill), req, bonus)
            avg = _mean(dmg)
            odds = self._odds[key] = (
                p * self._value(t, avg), p, avg, f"{w.id} at {counted(d, 'square')}",
                (", through an obstruction" if obstructed else "") + (", aimed" if aimed else ""))
        return odds

    def _steps_away(self, src: Cell) -> bool:
        """Whether a step to `src` leaves a foe's reach (and so invites a pursuit attack)."""
        known = self._away.get(src)
        if known is None:
            me = _at(self.me)
            known = self._away[src] = bool(self._adjacent_threats(me)) and any(
                f.pos is not None and chebyshev(f.pos, me) == 1 and chebyshev(f.pos, src) > 1 for f in self.foes)
        return known

    def _attack_reasons(self, a: Action, score: float) -> list[str]:
        """What the chosen attack was scored on: target, hit chance, damage against its HP, the risk taken."""
        e = self._estimate(a)
        m = self._m(a)
        t = self._f(m.target)
        most_wounded = min(self.foes, key=lambda f: f.hp / max(1, self.s.prof(f.id).max_hp)).id if self.foes else ""
        who = (f"{t.id} ({t.hp} HP) is the most wounded enemy"
               if most_wounded == t.id and t.hp < self.s.prof(t.id).max_hp else f"{t.id} has {t.hp} HP")
        odds = (f"{pct(e.p)} that it is not resisted" if e.p < 1 else "it cannot miss") if m.verb == CAST \
            else f"{pct(e.p)} to hit"
        out = [f"{who}; {odds} with the {e.note}, about {e.damage:.0f} damage"]
        if e.risk > 0:
            out.append(f"risky: {e.risk / 2.5 if m.verb == SHOOT else e.risk:.0f} enemies could strike back "
                       "from next to it")
        elif e.damage >= t.hp:
            out.append(f"a hit should finish {t.id}")
        return out

    # --- movement ------------------------------------------------------------------------------
    def _move_options(self, by_verb: dict[str, list[Action]]) -> list[tuple[Action, Cell, bool]]:
        options: list[tuple[Action, Cell, bool]] = [(a, a.dest, False) for a in by_verb.get(STEP, [])]
        return options + [(a, a.dest, True) for a in by_verb.get(MOVE, [])]

    def _movement(self, by_verb: dict[str, list[Action]]) -> tuple[Action, float] | None:
        """The best square to go to and how much better it is than staying (None: staying is as good).

        The first square of the highest score wins if it beats staying by more than half a point. Every
        square's melee score, or ranged bound (its score with every line clear), is worked out at once in
        numpy; a shooter's squares then have their lines drawn best bound first, until no bound left can
        beat the best score found (a line only lowers a score).
        """
        me = self.me
        assert me.pos is not None
        # the options of `_move_options`, in its order (steps, then long moves), without a tuple per option
        steps = by_verb.get(STEP, _NO_ACTIONS)
        options = steps + by_verb.get(MOVE, _NO_ACTIONS)
        if not options:
            return None
        ranged, adj_now, target = self._move_context()
        here = self._square_score(me.pos, ranged, False, adj_now, target)
        floor = here + 0.5
        if self._ceiling(ranged, target) <= floor:
            return None  # no square can beat staying: a fighter placed well is not moved, so its squares go unscored
        scores = self._square_scores(options, len(steps), ranged, adj_now, target)
        if not ranged:
            i = int(np.argmax(scores))
            return (options[i], float(scores[i]) - here) if scores[i] > floor else None
        best_sc, best = floor, -1
        # highest bound first, then option order: a stable sort of the negated bounds
        for i in np.argsort(-scores, kind="stable").tolist():
            bound = scores[i]
            if bound < best_sc:
                break
            if bound == best_sc and (best < 0 or i > best):
                continue  # even with every line clear it would only tie a square before it
            sc = self._square_score(options[i].dest, ranged, i >= len(steps), adj_now, target)
            if sc > best_sc or (sc == best_sc and 0 <= best and i < best):
                best_sc, best = sc, i
        return None if best < 0 else (options[best], best_sc - here)

    def _square_scores(self, options: list[Action], steps: int, ranged: bool, adj_now: list[Fighter],
                       target: Fighter | None) -> np.ndarray:
        """`_square_score` of every option's square at once: exact for melee, the all-lines-clear bound for shooters.

        `options` are one-step moves, then (from index `steps` on) long moves. The same float operations run in
        the same order, so the values are the same to the bit.
        """
        me = self.me
        # the squares as grid cell indices, read off the encounter's table of move actions in one pass of a C-level
        # map (numpy converts a list of pairs several times slower); every distance is then read off the board's
        # table with `take`, a plain gather (numpy's fancy indexing with broadcast index arrays costs a few times more)
        dist, cell_of = self._distances()
        n = len(options)
        at = np.fromiter(map(cell_of.__getitem__, options), dtype=np.intp, count=n)
        index = self.s.bf.grid.index
        foes_at = np.fromiter(map(index.__getitem__, self._foe_cells), dtype=np.intp, count=len(self._foe_cells))
        # foes x squares: the sums and extremes over the few foes run down the rows (numpy reduces a short inner axis
        # slowly); integer counts and extremes, so the values are the same whatever the layout
        ds = dist.take(foes_at, 0).take(at, 1)
        adjacent = ds == 1
        adj = np.add.reduce(adjacent, axis=0, dtype=np.int64)  # the counts `sum` gives, without its wrapper
        # the squares from index `steps` on are long moves: -3.0 times the foes left behind, as on a step that leaves
        # one; a step that leaves none scores 0.0 (a long move -0.0, what -3.0 times 0 is), written in place rather
        # than picked with `np.where` over a mask of long moves
        if adj_now:
            now = np.fromiter((index[_at(f)] for f in adj_now), dtype=np.intp, count=len(adj_now))
            leaving = np.add.reduce(dist.take(now, 0).take(at, 1) > 1, axis=0, dtype=np.int64)
            sc = -3.0 * leaving
            head = sc[:steps]
            head[leaving[:steps] == 0] = 0.0
        else:  # nobody to leave
            sc = np.zeros(n)
            sc[steps:] = -0.0
        if ranged:
            sc = sc - 6.0 * adj
            # each distance's shot quality, out of range -inf (no bonus lifts it, the maximum below passes over it)
            quality = self._quality_table(dist)[0]
            bonus = np.array([0.5 if f.hp <= 4 else 0.0 for f in self.foes])
            top = np.maximum.reduce(quality.take(ds) + bonus[:, None], axis=0)
            return (sc + np.maximum(0.0, top) * 2.0) + 0.05 * np.minimum.reduce(ds, axis=0)
        assert target is not None and target.pos is not None
        d = dist[index[target.pos]].take(at)
        free = target.opportunity_used or not target.able
        # the adjacent foes that could strike, less the target: every adjacent foe less the rows of those that cannot
        # (integer counts, so the same values as a count of the rows that can)
        others = adj
        for row, f in zip(adjacent, self.foes):
            if f.id == target.id or f.opportunity_used:
                others = others - row
        crowd = 2.0 * adj  # the same product in the two branches that read it
        sc = np.where(d == 1, (sc + (4.0 if free else -2.0)) - 3.0 * others,
                      np.where(d == 2, sc + (3.0 - crowd), sc - (d * 0.6 + crowd)))
        if self.s.prof(me.id).actions >= 2:
            sc[steps:] -= 0.5  # a long move costs the second action: `sc - 0.5` on those squares
        return sc

    def _quality_table(self, dist: np.ndarray) -> tuple[np.ndarray, float]:
        """`_shot_quality` of every distance `dist` holds (-inf: out of range), and the best of them (-inf: none).

        Kept per encounter and ranged kit: a shot's quality depends on the encounter's options, the wielded weapon
        (or its absence) and the damage spells' reach only, and a mover meets the same few kits decision after
        decision, game after game.
        """
        it, wt, firearm, spell_reach = self._ranged_kit()
        tables = catalogue_of(self.s).shot_qualities
        key = (None if wt is None else wt.id, it is not None, firearm, spell_reach)
        kept: tuple[np.ndarray, float] | None = tables.get(key)
        if kept is None:
            table = np.array([
                -np.inf if (q := self._shot_quality(d)) is None else q for d in range(int(dist.max()) + 1)])
            kept = tables[key] = (table, float(table.max()))
        return kept

    def _ceiling(self, ranged: bool, target: Fighter | None) -> float:
        """A score no square of this decision's moves exceeds (`_square_scores`, and `_square_score` below it).

        Every term of a square's score but its best attack takes away: the foes left behind, a long move's second
        action and, for a shooter, the foes next to the square; a melee fighter's best is a square next to a target
        that cannot strike back (4.0), else one two squares from it (3.0); a shooter's is the best shot quality of
        its kit at the weakest foe, doubled, plus a twentieth of the farthest its nearest foe can be (no farther
        than the farthest any square of the board is from any one foe). Float additions and products by a positive
        number keep their order, so the bound holds to the bit.
        """
        if not ranged:
            assert target is not None
            return 4.0 if target.opportunity_used or not target.able else 3.0
        dist, _ = self._distances()
        top = self._quality_table(dist)[1] + (0.5 if any(f.hp <= 4 for f in self.foes) else 0.0)
        # by cell index, how far the board's square farthest from that cell is (kept by `_distances`)
        farthest: list[int] = catalogue_of(self.s).square_distances[2]
        index = self.s.bf.grid.index
        return (0.0 + max(0.0, top) * 2.0) + 0.05 * min(farthest[index[c]] for c in self._foe_cells)

    def _distances(self) -> tuple[np.ndarray, dict[Action, int]]:
        """The Chebyshev distance between every two cells of the board, by cell index, and each move's cell index.

        Kept with the encounter's catalogue, not the policy: an agent lives one game in a series, and a brawl's
        board (224 squares) takes about a millisecond to lay out, a few per cent of its game. The legal set's moves
        are the catalogue's own actions, so one lookup by action gives a square's index (a step and a long move to
        one square share it).
        """
        grid = self.s.bf.grid
        cat = catalogue_of(self.s)
        kept = cat.square_distances
        if kept is None or kept[0] is not grid:
            xy = np.array(grid.cells, dtype=np.int64).reshape(-1, 2)
            xs, ys = xy[:, 0], xy[:, 1]
            apart = np.maximum(np.abs(xs[:, None] - xs[None, :]), np.abs(ys[:, None] - ys[None, :]))
            kept = cat.square_distances = (grid, apart, apart.max(axis=1).tolist())
        cells = cat.move_cells
        if cells is None or cells[0] is not grid:
            index = grid.index
            cells = cat.move_cells = (grid, {a: index[c] for moves in (cat.steps, cat.moves)
                                             for c, a in moves.items() if c in index})
        table: np.ndarray = kept[1]
        cell_of: dict[Action, int] = cells[1]
        return table, cell_of

    def _move_context(self) -> tuple[bool, list[Fighter], Fighter | None]:
        """What does not depend on the square scored: ranged or not, who is adjacent now, the melee target."""
        me = self.me
        ranged = self._is_ranged(me)
        here = _at(me)
        adj_now = [f for f in self.foes if chebyshev(_at(f), here) == 1]
        target = None if ranged else min(
            self.foes, key=lambda f: (chebyshev(_at(f), here) > 6, f.hp, chebyshev(_at(f), here)))
        return ranged, adj_now, target

    def _move_rivals(self, by_verb: dict[str, list[Action]]) -> list[Rival]:
        """Every square scored against staying put (the alternatives of a move)."""
        me = self.me
        ranged, adj_now, target = self._move_context()
        here = self._square_score(_at(me), ranged, False, adj_now, target)
        return [(self._square_score(dest, ranged, long, adj_now, target) - here, a)
                for a, dest, long in self._move_options(by_verb)]

    def _move_reason(self, a: Action) -> str:
        """Why this square: a shooter's clean shot out of reach, or a melee fighter's approach."""
        me = self.me
        ranged, _, target = self._move_context()
        dest = a.dest
        if ranged:
            shots = [f.id for f in self.foes if f.pos is not None
                     and self._line(dest, f.pos, (me.id, f.id)) == "clear"]
            safe = not any(chebyshev(f.pos, dest) == 1 for f in self.foes if f.pos is not None)
            return (f"move to {dest}" + (", out of every enemy's reach" if safe else "")
                    + (f", with a clean shot at {', '.join(shots)}" if shots else ""))
        assert target is not None and target.pos is not None
        return (f"close in on {target.id} ({target.hp} HP): {chebyshev(me.pos, target.pos)} "
                f"-> {counted(chebyshev(dest, target.pos), 'square')}")

    def _shot_quality(self, d: int) -> float | None:
        """How good a shot at `d` squares is with the mover's weapon or spells (3 best; None: out of range)."""
        if d in self._qualities:
            return self._qualities[d]
        it, wt, firearm, spell_reach = self._ranged_kit()
        q: float | None
        if firearm and wt is not None:
            band = shot_band(self.s, wt, d)
            q = None if band is None else {REGULAR: 3.0, HARD: 2.0, EXTREME: 1.0}[band[0]]
        elif it is not None:
            q = None if d > 10 else 3.0 if d <= 6 else 2.0
        else:
            q = None if spell_reach is None or d > spell_reach else 3.0
        self._qualities[d] = q
        return q

    def _ranged_kit(self) -> tuple[Any, Any, bool, int | None]:
        """The mover's wielded item, its weapon, whether it is a firearm, and its damage spells' longest range."""
        if self._kit is None:
            s, me = self.s, self.me
            it = wielded_item(me)
            wt = s.weapons[it.template] if it is not None else None
            sp = [s.spells[x] for x in s.prof(me.id).spells if s.spells[x].effect == "damage"]
            self._kit = (it, wt, wt is not None and wt.kind == "firearm", max(x.range for x in sp) if sp else None)
        return self._kit

    def _square_score(self, pos: Cell, ranged: bool, long: bool, adj_now: list[Fighter],
                      target: Fighter | None) -> float:
        """How good a square is to stand on."""
        s, me = self.s, self.me
        assert me.pos is not None
        leaving = sum(1 for f in adj_now if f.pos is not None and chebyshev(f.pos, pos) > 1)
        sc = -3.0 * leaving if (long or leaving) else 0.0
        ds = [chebyshev(c, pos) for c in self._foe_cells]  # each foe's distance, in the order of `foes`
        adj = [f for f, d in zip(self.foes, ds) if d == 1]
        if ranged:
            sc -= 6.0 * len(adj)
            shots: list[tuple[float, float, Fighter]] = []  # each foe in range: the shot's quality, without the line
            for f, d in zip(self.foes, ds):
                q = self._shot_quality(d)
                if q is not None:
                    shots.append((q, 0.5 if f.hp <= 4 else 0.0, f))
            near = 0.05 * min(ds)
            best = 0.0
            for q, bonus, f in shots:
                if q + bonus <= best:
                    continue  # its line cannot raise the best shot
                assert f.pos is not None
                ls = self._line(pos, f.pos, (me.id, f.id))
                if ls == "blocked":
                    continue
                if ls == "obstructed":
                    q = min(q, 1.0)
                best = max(best, q + bonus)
            sc += best * 2.0
            sc += near
            return sc
        # melee: get to distance 2 of the best target (a one-step attack next turn), or adjacent if safe
        assert target is not None and target.pos is not None
        d = chebyshev(pos, target.pos)
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
