"""Reincarnator's tactics: the scripted policy its `scripted` agent plays (`ReincarnatorSystem.scripted_agent`).

The policy plays like a competent table-top player: it aims before shooting, charges across open ground,
takes cover or goes prone under fire, grapples and pins casters, defends fully when badly hurt and strikes
hard in the surprise round.

It reads the engine's own pool and defence functions to estimate each legal attack (expected net
successes), then follows a fixed priority list: each rule that fires is the proposal's reason, and the
scored attacks are its runners-up. Ties are broken by the generator it is given. ``ranked(combat)`` returns a
`Ranking` (the agents layer makes the class an agent: proposals, search priors, temperaments);
``attack_odds`` is the public query of an attack's pool against the defence that the odds shown for a
person's attacks read.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress, repeat
from operator import itemgetter, le
from typing import Any, NamedTuple

from trpg_arena.rules.core.battlefield import chebyshev as cheb
from trpg_arena.rules.core.combat import Combat
from trpg_arena.rules.core.ranking import Ranking, Rival, Tactics, grouped_by_verb, of_verb, pct
from trpg_arena.rules.core.values import Action, Decision
from trpg_arena.rules.reincarnator.actions import item_ids, uid
from trpg_arena.rules.reincarnator.attack import defences, throw_crushes
from trpg_arena.rules.reincarnator.attack_math import attack_dice
from trpg_arena.rules.reincarnator.conditions import wound_penalty
from trpg_arena.rules.reincarnator.grapple import policy_mode
from trpg_arena.rules.reincarnator.interned import act
from trpg_arena.rules.reincarnator.movement import board, closed_doors
from trpg_arena.rules.reincarnator.state import Cell, Fighter, Pending, cell_of_key
from trpg_arena.rules.reincarnator.verbs import Verb, all_out, into_of

ATTACKS = (Verb.MELEE_ATTACK, Verb.RANGED_ATTACK, Verb.THROW, Verb.CAST, Verb.VEHICLE_ATTACK, Verb.ACRO_FIRE,
           Verb.PIN_STRIKE, Verb.GRAPPLE_STRIKE, Verb.CHARGE, Verb.ACRO_CHARGE, Verb.VEHICLE_CRUSH)
_EARLIER: dict[str, int] = {v: -i for i, v in enumerate(ATTACKS)}  # between equal values the attack listed first wins
P_SUCCESS = 1 / 3  # expected successes per die with 8+ and 10-again
MIN_ATTACK = 0.6  # expected net successes below which an attack waits until nothing better is left to do
WEAK_ATTACK = 0.2  # ... and below which it is not worth making at all
SHOTS = (Verb.RANGED_ATTACK, Verb.CAST, Verb.VEHICLE_ATTACK)  # attacks that need a line of sight to the target
HOLD_STRIKES = (Verb.PIN_STRIKE, Verb.GRAPPLE_STRIKE)  # strikes at a held foe: a fixed pool, no defence
CHARGES = (Verb.CHARGE, Verb.ACRO_CHARGE)  # the base defence is lost afterwards
# The verbs `expected` and `pending_of` tell apart, read once here: they run for every legal attack, and each
# `Verb.X` read pays the enum class's attribute hook.
THROW, CAST, VEHICLE_CRUSH, GRAPPLE_STRIKE = Verb.THROW, Verb.CAST, Verb.VEHICLE_CRUSH, Verb.GRAPPLE_STRIKE
# ... and the verbs a turn looks up in the legal set, bound once as module names for the same reason
(ACRO_MOVE, ACRO_PARRY, AIM, CRAWL, CROUCH, CYCLE_BOLT, DRAW, DRIVE, DRIVE_FAST, END_TURN, ESCAPE_GRAPPLE,
 FULL_DEFENSE, GO_PRONE, GRAPPLE, GRAPPLE_RESIST, MOVE, PARRY, PIN, RANGED_ATTACK, REFLEX_STEP, RELOAD,
 RELOAD_HEAVY, RETRIEVE, STAND_FROM_CROUCH, STAND_FROM_PRONE, STEALTH_WALK, TAKE_COVER) = (
    Verb.ACRO_MOVE, Verb.ACRO_PARRY, Verb.AIM, Verb.CRAWL, Verb.CROUCH, Verb.CYCLE_BOLT, Verb.DRAW, Verb.DRIVE,
    Verb.DRIVE_FAST, Verb.END_TURN, Verb.ESCAPE_GRAPPLE, Verb.FULL_DEFENSE, Verb.GO_PRONE, Verb.GRAPPLE,
    Verb.GRAPPLE_RESIST, Verb.MOVE, Verb.PARRY, Verb.PIN, Verb.RANGED_ATTACK, Verb.REFLEX_STEP, Verb.RELOAD,
    Verb.RELOAD_HEAVY, Verb.RETRIEVE, Verb.STAND_FROM_CROUCH, Verb.STAND_FROM_PRONE, Verb.STEALTH_WALK,
    Verb.TAKE_COVER)


_END_TURN = act(END_TURN)  # the legal set's own object: `Combat.act` finds it by identity

_VALUES = "attack values"  # the static tables' memo entries of `ReincarnatorTactics.attack_values`
_ODDS = "attack odds"
_BLASTS = "blast values"  # ... and of the blast values by where everyone stands (`_blast_values`)
BLASTS_KEPT = 4_096  # layouts of the fighters whose blast values are kept per encounter before the table starts afresh
_VALUE = itemgetter(0)  # of a (value, action) pair
LOOKS_KEPT = 20_000  # attackers and targets with their fields kept per encounter before the tables start afresh
# (a bound on memory: each holds the few attacks of one attacker on one target)
_UNSEEN = object()  # a fighter whose key fields this decision has not looked at yet


def _item_ids(combat: Combat, cid: str, a: Action, names: dict[Any, Any] | None = None) -> tuple[Any, ...]:
    """The item ids of an attack's option (`item_ids`); `names` keeps them by option in one state."""
    known: tuple[Any, ...] | None = None if names is None else names.get(a.option)
    if known is None:
        known = item_ids(combat, cid, a.option)
        if names is not None:
            names[a.option] = known
    return known


def _gives_away(item: Any) -> bool:
    """Whether throwing this item throws a weapon away: anything but a thrown weapon or an object (REI-4.6)."""
    return item.kind not in ("thrown", "object")


def _throws_own_weapon(combat: Combat, cid: str, a: Action) -> bool:
    """A throw at a combatant that would give a weapon away: the policy never makes one (`weigh`)."""
    return a.verb == THROW and a.target is not None and _gives_away(combat.tables.items[_item_ids(combat, cid, a)[0]])


_BLAST_SQUARE = tuple((dx, dy) for dx in range(-2, 3) for dy in range(-2, 3))  # the cells within 2 of a spot


def _caught_by_cell(spots: list[tuple[int, int, float]]) -> dict[tuple[int, int], float]:
    """What a blast at each cell is worth: the sum of the `blast_spots` within 2 cells of it (a missing cell: 0.0).

    A thrower weighs about fifty blast cells per decision, and a spot adds to the 25 cells around it, so every cell's
    sum is made at once, its spots added in `spots` order from 0.0.
    """
    out: dict[tuple[int, int], float] = {}
    get = out.get
    for x, y, w in spots:
        for dx, dy in _BLAST_SQUARE:
            c = (x + dx, y + dy)
            out[c] = get(c, 0.0) + w
    return out


def _blast_values(combat: Combat, spots: list[tuple[int, int, float]]) -> dict[tuple[int, int], float]:
    """`_caught_by_cell` of `spots`, kept per encounter by the spots themselves (the callers only read it).

    The spots change only when someone moves, falls or changes side, so a thrower's aim, shot and end of turn, and
    the turns of others who stay where they are, meet the same ones: the values are worked out once per layout.
    """
    memo = combat.tables.memo
    table: dict[tuple[Any, ...], dict[tuple[int, int], float]] | None = memo.get(_BLASTS)
    if table is None or len(table) > BLASTS_KEPT:
        table = memo[_BLASTS] = {}
    key = tuple(spots)
    hit = table.get(key)
    if hit is None:
        hit = table[key] = _caught_by_cell(spots)
    return hit


def _attacker_look(combat: Combat, cid: str) -> tuple[Any, ...] | None:
    """The attacker's fields an attack's value reads; None in a state whose values are not kept.

    They are its wound penalty, base-defence loss (a charge's bonus), prone, surprise, hiding and vehicle (a
    crush's pool). Its aim counts against one target only, so `attack_values` keys that per target. A grapple or
    an effect makes the reads go wider: such states are worked out afresh.
    """
    state = combat.state
    f = state.fighters[cid]
    if f.effects or state.grapples:
        return None
    return (wound_penalty(combat, cid), f.bd_loss, f.prone, f.surprise_turn, f.hidden, f.hidden_attacked,
            f.in_vehicle)


def _target_look(combat: Combat, cid: str, target: str | None) -> tuple[Any, ...] | None:
    """The target's fields an attack's value reads; None where the value is not kept (a target with an effect).

    They are its damage taken, defences, stance, cover (with the cells that make cover directional: the target's,
    the cover source's and the attacker's) and vehicle; a vehicle's own damage for a vehicle.
    """
    state = combat.state
    v = state.vehicles.get(target or "")
    if v is not None:
        return (v.lethal + v.bashing, "vehicle")
    f = state.fighters.get(target or "")
    if f is None or f.effects:
        return None
    cover: tuple[Any, ...] = ()
    src = f.cover_source
    if src is not None:
        if "," in src:
            where: Cell | None = cell_of_key(src)
        elif src in state.vehicles:
            where = state.vehicles[src].cell
        elif src in state.fighters:
            where = state.fighters[src].cell
        else:
            return None
        cover = (src, f.cover_value, f.cell, where, state.fighters[cid].cell)
    return (f.lethal + f.bashing, f.bd_loss, f.prone, f.crouching, f.hidden, f.full_defense, f.acro_dodge,
            f.parry_value, f.in_vehicle, cover)


def _at(f: Fighter) -> Cell:
    """The cell of a fighter on the map (the turn weighs only those: the mover and enemies with a cell)."""
    assert f.cell is not None
    return f.cell


class Odds(NamedTuple):
    """What an attack's value was worked out from: the attack pool, the defence dice and base-defence successes."""

    pool: int
    defence: int
    bd_es: int


def p_any_success(dice: int) -> float:
    """Chance that a pool of `dice` d10 shows at least one success (8+), ignoring 10-again."""
    return 1 - 0.7 ** dice if dice > 0 else 0.0


class ReincarnatorTactics(Tactics):
    """A competent, rule-aware reincarnator policy; its generator breaks ties between equal choices."""

    # --- public queries: the odds shown for a person's attacks ----------------------------------------
    def attack_odds(self, combat: Combat, cid: str, a: Action) -> Odds | None:
        """The pool and defence of an attack action of `cid` on its target (None: no target, or not worked out)."""
        if a.target is None:
            return None
        return self.odds(combat, self.pending_of(combat, cid, a, _item_ids(combat, cid, a)), a.target)

    # --- helpers ------------------------------------------------------------------------------------
    def expected(self, combat: Combat, cid: str, a: Action, names: dict[Any, Any] | None = None) -> float:
        """Expected net successes of an attack action (weapon damage already in the pool).

        `names`: the item ids of options already looked up in this state (`uid` walks every item), by option.
        """
        if a.target is None:
            return self.blast_value(combat, cid, a)
        if a.verb in HOLD_STRIKES:
            pool = 8.0 - (2 if a.verb == GRAPPLE_STRIKE else 0)
            return pool * P_SUCCESS
        known = _item_ids(combat, cid, a, names)
        p = self.pending_of(combat, cid, a, known)
        return self.weigh(combat, cid, a, known, p, self.odds(combat, p, a.target))

    def weigh(self, combat: Combat, cid: str, a: Action, o: tuple[Any, ...], p: Pending, odds: Odds | None) -> float:
        """`expected` from an attack's odds (`o`: its item ids, `p`: its declaration).

        The net successes, then the policy's weights: crushes, charges, hulls, finishing blows and casters.
        """
        state = combat.state
        st = combat.tables
        assert a.target is not None
        if odds is None:
            return 0.0
        pool, d, bd_es = odds
        dice = pool - d
        value = dice * P_SUCCESS - bd_es * 0.8 if dice > 0 else 0.1
        if a.verb == VEHICLE_CRUSH or (a.verb == THROW and throw_crushes(combat, cid, st.items[o[0]])):
            value *= 0.7
        if a.verb == THROW and _gives_away(st.items[o[0]]):
            return 0.0  # never throw the own weapon away
        if a.verb in CHARGES:
            value *= 0.85  # the base defence is lost afterwards
        if p.into == "random":
            value *= 0.5
        if a.target in state.vehicles:
            v = state.vehicles[a.target]
            left = st.vehicles[a.target].structure - v.lethal - v.bashing
            value *= 1.0 if left <= value + 1 else 0.25  # a hull soaks damage; wreck it only when nearly done
        if a.target in state.fighters:
            f = state.fighters[a.target]
            left = st.max_health[a.target] - f.lethal - f.bashing
            weapon = st.weapon(cid, o[0]) if o and a.verb != CAST else None
            lethal = weapon is None or weapon.dtype == "lethal"
            value += 0.6 if left <= value + 0.5 else 0.0  # finishing blows first
            value *= 1.0 if lethal else 0.8
            if self.is_caster(combat, a.target):
                value += 0.4
        return value

    def attack_values(self, combat: Combat, cid: str, by: dict[str, list[Action]]) -> list[tuple[float, Action]]:
        """Every legal attack with its value (`expected`), in `ATTACKS` order, each verb's in legal order.

        Attacks differing only in the end cell (charges) score alike, so a value is worked out once per verb,
        target and option; a blast's value is its cell's (`blast_value`). A targeted attack's value reads the
        static tables and a few fields of the attacker and the target (`_attacker_look`, `_target_look`), so it
        is also kept in a table of the encounter under those fields: a policy weighs the same attacks decision
        after decision, and most of them meet the same fields again. The table is keyed in two levels, the
        attacker, target and their fields first (one lookup per target and decision: that key is the long one
        to hash), then the verb, option and item ids.
        """
        out: list[tuple[float, Action]] = []
        append = out.append
        values: dict[tuple[Any, ...], float] = {}  # (verb, target, option) -> value, for targets not kept
        names: dict[Any, Any] = {}  # option -> its item ids, in this state
        kept_for: dict[Any, Any] = {}  # target -> its values in the table (None: not kept), in this state
        looks: dict[Any, tuple[Any, ...]] = {}  # target -> the key of its values in the table
        mine: Any = _UNSEEN  # `_attacker_look`, read at the first targeted attack
        me = combat.state.fighters[cid]
        memo = combat.tables.memo
        table: dict[Any, dict[Any, float]] | None = memo.get(_VALUES)
        if table is None or len(table) > LOOKS_KEPT:
            table = memo[_VALUES] = {}
        blasts: dict[Any, float] | None = None  # cell -> a blast's value there (`_blast_values`)
        for verb in ATTACKS:
            acts = by.get(verb)
            if acts is None:
                continue
            last_t: Any = _UNSEEN  # a charge's end cells come in runs of one target and option: they score alike
            last_o: Any = _UNSEEN
            v = 0.0
            for a in acts:
                t = a.target
                if t is None:  # a blast: its cell's value (a grenade's cells come once per attribute it is thrown by)
                    if blasts is None:
                        blasts = _blast_values(combat, self.blast_spots(combat, cid))
                    append((blasts.get(a.dest, 0.0), a))
                    continue
                opt = a.option
                if t is last_t and opt is last_o:
                    append((v, a))
                    continue
                last_t, last_o = t, opt
                kept = kept_for.get(t, _UNSEEN)
                if kept is _UNSEEN:
                    if mine is _UNSEEN:
                        mine = _attacker_look(combat, cid)
                    theirs = _target_look(combat, cid, t) if mine is not None else None
                    if theirs is None:
                        kept = kept_for[t] = None
                    else:
                        # an aim counts against its target only
                        look = looks[t] = (cid, t, mine, theirs, me.aim_count if me.aim_target == t else 0)
                        kept = table.get(look)
                        if kept is None:
                            kept = table[look] = {}
                        kept_for[t] = kept
                if kept is None:
                    k = (verb, t, opt)
                    known = values.get(k)
                    if known is None:
                        known = values[k] = self.expected(combat, cid, a, names)
                    v = known
                else:
                    o = names.get(opt)
                    if o is None:
                        o = names[opt] = item_ids(combat, cid, opt)
                    k = (verb, opt, o)
                    known = kept.get(k)
                    if known is None:
                        known = kept[k] = self._fresh_value(combat, cid, a, o, looks[t])
                    v = known
                append((v, a))
        return out

    def _fresh_value(self, combat: Combat, cid: str, a: Action, o: tuple[Any, ...], look: tuple[Any, ...]) -> float:
        """A kept attack's value worked out (`look`: the key of its attacker and target): its odds, then `weigh`.

        The odds do not read the target's damage, which only the policy's weights read (a finishing blow), so they
        are kept apart, under the same fields less the damage: a hurt target meets its odds again.
        """
        memo = combat.tables.memo
        odds_table: dict[Any, dict[Any, Any]] | None = memo.get(_ODDS)
        if odds_table is None or len(odds_table) > LOOKS_KEPT:
            odds_table = memo[_ODDS] = {}
        at, t, mine, theirs, aim = look
        okey = (at, t, mine, theirs[1:], aim)
        sub = odds_table.get(okey)
        if sub is None:
            sub = odds_table[okey] = {}
        p = self.pending_of(combat, cid, a, o)
        k = (a.verb, a.option, o)
        odds = sub.get(k, _UNSEEN)
        if odds is _UNSEEN:
            odds = sub[k] = self.odds(combat, p, t)
        return self.weigh(combat, cid, a, o, p, odds)

    @staticmethod
    def pending_of(combat: Combat, cid: str, a: Action, o: tuple[Any, ...]) -> Pending:
        """The attack an action declares, as the engine's pool functions read it (`o`: its item ids).

        The pool and defence functions only read it, so one object per declaration is kept in the static
        tables' memo: a policy weighs the same few attacks decision after decision.
        """
        bonus = 0
        if a.verb in CHARGES:
            bonus = min(3, max(0, combat.tables.specs[cid].base_defense - combat.state.fighters[cid].bd_loss))
        memo = combat.tables.memo
        key = ("pending", a.verb, cid, a.target, o, bonus)
        known: Pending | None = memo.get(key)
        if known is not None:
            return known
        p = memo[key] = Pending(a.verb, cid, target=a.target, weapon=o[0] if o else None)
        opt = a.option  # typed per verb: the legal set's own action
        p.all_out = all_out(opt)
        if a.verb == THROW:
            p.attr, p.fast = opt.attr, opt.fast
        p.into = into_of(opt)
        p.bonus = bonus
        return p

    @staticmethod
    def odds(combat: Combat, p: Pending, target: str) -> Odds | None:
        """The engine's attack pool and defences for a declared attack (None where they cannot be worked out)."""
        try:
            pool = attack_dice(combat, p, target)
            d, bd_es, _ = defences(combat, p, target)
        except (KeyError, AssertionError, AttributeError):
            return None
        return Odds(pool, d, bd_es)

    def blast_value(self, combat: Combat, cid: str, a: Action) -> float:
        """Enemies minus allies in a blast's reach, times a rough damage."""
        return _blast_values(combat, self.blast_spots(combat, cid)).get(a.dest, 0.0)

    @staticmethod
    def blast_spots(combat: Combat, cid: str) -> list[tuple[int, int, float]]:
        """Where each active fighter on the map stands, with what catching it in a blast is worth to `cid`."""
        side = combat.state.fighters[cid].side
        return [(f.cell[0], f.cell[1], 2.0 if f.side != side else -3.0) for f in combat.state.fighters.values()
                if f.cell is not None and f.status == "active"]

    @staticmethod
    def is_caster(combat: Combat, cid: str) -> bool:
        """Whether a combatant knows spells."""
        return bool(combat.tables.spells.get(cid))

    @staticmethod
    def hurt(combat: Combat, cid: str) -> float:
        """Fraction of health left."""
        f = combat.state.fighters[cid]
        mx = combat.tables.max_health[cid]
        return (mx - f.lethal - f.bashing) / mx

    # --- the policy ---------------------------------------------------------------------------------
    def choose(self, combat: Combat, d: Decision, legal: list[Action]) -> Ranking:
        """A grapple's resistance, a reaction to an attack, or a turn."""
        if d.step == "grapple_resist":
            mode = policy_mode(combat, d.actor, "")
            return Ranking(Action(GRAPPLE_RESIST, option=mode), 1.0, lambda: (
                f"{d.actor} resists with the larger pool: {mode}",),
                lambda: [(0.0, a) for a in legal])
        if d.step == "attack_declared":
            return self.react(combat, d.actor, legal)
        return self.turn(combat, d.actor, legal)

    def react(self, combat: Combat, cid: str, legal: list[Action]) -> Ranking:
        """Step out of an attacker's reach when possible (REI-5.7)."""
        state = combat.state
        p = state.pending[-1] if state.pending else None
        src = state.fighters[p.actor].cell if p is not None else None
        steps = [(cheb(a.dest, src), a) for a in of_verb(legal, REFLEX_STEP)] if src is not None else []
        stay = legal[0]
        attacker = p.actor if p is not None else "the attacker"  # steps are only found when p is an attack

        def rivals() -> list[Rival]:
            return [(float(dist - 1), a, f"{dist} m from {attacker}") for dist, a in steps]

        if not steps:
            return Ranking(stay, 0.0, lambda: (f"no reflex step gets {cid} away from the attack",), rivals)
        far = max(steps, key=lambda x: x[0])
        if far[0] > 1:
            return Ranking(far[1], float(far[0] - 1), lambda: (
                f"a reflex step to {far[1].dest} puts {cid} {far[0]} m from {attacker}, out of its reach",),
                rivals)
        return Ranking(stay, 0.0, lambda: (f"every reflex step stays next to {attacker}: {cid} holds its ground",),
                       rivals)

    def _attack_reason(self, combat: Combat, cid: str, a: Action, value: float) -> str:
        """``B2 (3/7 health): pool 7 against 2 defence dice, 62 % to hit, 1.8 net successes expected``."""
        if a.target is None:
            return (f"the blast at {a.dest} catches more enemies than allies (about {value:.1f} net successes "
                    "expected against enemies, allies' counted against it)")
        odds = self.attack_odds(combat, cid, a)
        st = combat.tables
        f = combat.state.fighters.get(a.target)
        who = a.target if f is None else (f"{a.target} ({st.max_health[a.target] - f.lethal - f.bashing}/"
                                          f"{st.max_health[a.target]} health)")
        if odds is None or a.verb in HOLD_STRIKES:
            return f"{who}: {value:.1f} net successes expected"
        dice = odds.pool - odds.defence
        return (f"{who}: pool {odds.pool} against {odds.defence} defence dice, {pct(p_any_success(dice))} to hit, "
                f"{value:.1f} net successes expected")

    def turn(self, combat: Combat, cid: str, legal: list[Action]) -> Ranking:  # noqa: C901 - a priority list
        """One decision of the own turn."""
        state = combat.state
        st = combat.tables
        me = state.fighters[cid]
        by = grouped_by_verb(legal)
        enemies = [f for f in state.fighters.values() if f.side != me.side and f.status == "active"
                   and f.cell is not None]
        end = _END_TURN
        attacks: list[tuple[float, Action]] = []

        def rivals() -> list[Rival]:
            return [*((v, a, f"would throw {cid}'s {a.option[0]} away (an improvised throw, bashing, no weapon damage)")
                      if _throws_own_weapon(combat, cid, a) else (v, a) for v, a in attacks), (0.0, end)]

        def rule(a: Action, value: float, why: Callable[..., str]) -> Ranking:
            # the reason is worded only when a proposal asks for it (`Ranking.why`): play and search never do
            return Ranking(a, value, lambda: (why(),), rivals)

        # a delay never helps this policy
        # 1. out of a hold: escape with the better pool
        if ESCAPE_GRAPPLE in by:
            for a in by[ESCAPE_GRAPPLE]:
                if a.option == policy_mode(combat, cid, a.target or ""):
                    return rule(a, 1.0, lambda a=a: f"{cid} is held by {a.target}: {a.option} with the larger pool")
        # 2. get up when prone and enemies are adjacent
        if me.prone and STAND_FROM_PRONE in by and any(cheb(_at(f), _at(me)) <= 1 for f in enemies):
            return rule(by[STAND_FROM_PRONE][0], 1.0, lambda: f"{cid} is prone with an enemy next to it: stand up")
        # 3. reload an empty gun (spare magazines are precious), chamber a round
        for a in by.get(RELOAD, []) + by.get(RELOAD_HEAVY, []):
            if state.items[uid(combat, cid, a.option)].loaded == 0:
                return rule(a, 1.0, lambda a=a: f"{cid}'s {a.option} has 0 rounds loaded: reload")
        for a in by.get(CYCLE_BOLT, []):
            return rule(a, 1.0, lambda a=a: f"chamber the next round of {cid}'s {a.option}")
        if DRAW in by and not any(st.items[k].is_ranged or st.items[k].kind == "melee"
                                    for k, it in state.items.items() if it.holder == cid and it.loc == "held"):
            return rule(by[DRAW][0], 1.0, lambda: f"{cid} holds no weapon: draw {by[DRAW][0].option}")
        # 4. a grenade ready for a cluster of enemies
        grenade_ready = [a for a in by.get(RETRIEVE, []) if st.items[uid(combat, cid, a.option)].blast]
        attacks += self.attack_values(combat, cid, by)
        best_attack = max(map(_VALUE, attacks), default=0.0)
        if grenade_ready and best_attack < 2.5 and sum(1 for f in enemies if f.cell and me.cell
                                                        and cheb(f.cell, me.cell) <= 14) >= 2:
            return rule(grenade_ready[0], 2.5, lambda: f"two or more enemies within 14 m and no attack worth 2.5: "
                                                       f"ready the {grenade_ready[0].option}")
        # 5. badly hurt with nothing good to do: full defence
        if self.hurt(combat, cid) <= 0.3 and best_attack < 1.2 and FULL_DEFENSE in by:
            return rule(by[FULL_DEFENSE][0], 1.2, lambda: f"{cid} has {self.hurt(combat, cid):.0%} of its health "
                                                           f"left and no attack worth 1.2: full defence")
        # 6. grapple a dangerous caster in reach, then pin and strike
        for a in by.get(PIN, []):
            return rule(a, 2.0, lambda a=a: f"{cid} holds {a.target}: pin it")
        for a in by.get(GRAPPLE, []):
            if a.option is None and a.target and self.is_caster(combat, a.target) and \
                    st.specs[cid].specialties.get("brawl", 0) >= 2:
                return rule(a, 2.0, lambda a=a: f"{a.target} casts spells: grapple it before it can")
        # 7. aim first when it is cheap (a trick or an unused swift) and a shot is coming
        if AIM in by and not me.aimed:
            shots = [(s, a) for s, a in attacks if a.verb in (RANGED_ATTACK, THROW) and a.target]
            if shots:
                s, shot = max(shots, key=lambda x: x[0])
                aim = Action(AIM, target=shot.target)
                if aim in set(by[AIM]) and (me.slots.get("trick", 0) > 0 or me.slots.get("swift", 0) > 0):
                    return Ranking(aim, s, lambda: (
                        f"aiming at {shot.target} is free this turn and improves the shot to come",
                        self._attack_reason(combat, cid, shot, s)), rivals)
        # 8. the best attack if it is worth it (not a charge when a plain attack is as good)
        if attacks:
            s = best_attack  # the best value; the pick is drawn among every attack within rounding of it
            if s >= MIN_ATTACK:
                top = list(compress(attacks, map(le, repeat(s - 1e-9), map(_VALUE, attacks))))
                # a draw among one is no draw: the generator returns 0 without consuming a number, so it is skipped
                pick = top[int(self.rng.integers(len(top)))][1] if len(top) > 1 else top[0][1]
                return Ranking(pick, s, lambda: (self._attack_reason(combat, cid, pick, s),) + (
                    (f"{len(top)} attacks promise the same: one of them picked at random",) if len(top) > 1 else ()),
                    rivals)
        def weak() -> str:
            if attacks and all(_throws_own_weapon(combat, cid, a) for _, a in attacks):
                kept = sorted({a.option[0] for _, a in attacks})
                return f"{cid}'s only attacks from here would throw its {' or '.join(kept)} away"
            if attacks:
                return f"{cid}'s best attack is worth only {best_attack:.1f} net successes"
            where = f" ({self._nearest(me.cell, enemies)})" if enemies and me.cell is not None else ""
            return f"{cid} has no attack from {me.cell}{where}"

        # 9. drive a vehicle toward the enemy
        if me.in_vehicle is not None:
            for v in (DRIVE, DRIVE_FAST):
                if v in by and enemies:
                    a = self.toward(combat, by[v], enemies, keep=3)
                    return rule(a, 0.5, lambda a=a: f"{weak()}: drive to {a.dest}, 3 m from the nearest enemy")
        # 10. close in: melee fighters walk toward the nearest enemy; shooters walk to a square with a clean shot
        moving = by.get(MOVE, []) + by.get(ACRO_MOVE, [])
        if me.hidden and by.get(STEALTH_WALK):
            moving = by[STEALTH_WALK]  # stay hidden while closing in (REI-6.4)
        armed = self.armed(combat)
        shooter = cid in armed or bool(st.spells[cid])
        if enemies and not me.moved and not shooter:
            if moving:
                a = self.toward(combat, moving, enemies, keep=1)
                return rule(a, 0.5, lambda: f"{weak()}: close in to {a.dest}, {self._nearest(a.dest, enemies)}")
            up = self.stand_up(me, by)
            if up is not None:  # prone or crouching: no walk is offered until it stands
                return rule(up, 0.4, lambda: f"{weak()}, and {cid} cannot walk from where it lies: stand up to "
                                             "close in")
        if enemies and shooter and not me.moved and best_attack < MIN_ATTACK and me.slots.get("standard", 0):
            in_sight = any(a.verb in SHOTS for _, a in attacks)
            sight = None if in_sight else self.sight_move(combat, cid, moving + by.get(CRAWL, []), enemies)
            if sight is not None:
                a, target = sight
                return rule(a, 0.55, lambda: f"{weak()}: {'crawl' if a.verb == CRAWL else 'move'} to {a.dest} for a "
                                             f"clean shot at {target.id}, {cheb(a.dest, target.cell)} m away")
            if moving:
                # no square in reach sees an enemy: go round the obstacles, closer, until one does
                near = min(cheb(_at(me), _at(f)) for f in enemies)
                a = self.toward(combat, moving, enemies, keep=6 if near > 6 else 1)
                return rule(a, 0.5, lambda: f"{weak()}, and no square in reach has a line of sight: move to "
                                            f"{a.dest}, {self._nearest(a.dest, enemies)}")
            up = None if in_sight else self.stand_up(me, by)
            if up is not None:
                return rule(up, 0.4, lambda: f"{weak()}, and no crawl gives {cid} a line of sight: stand up to "
                                             "find one")
        # a weak attack still beats waiting: passing every turn is how fights stall until the round cap
        if attacks:
            s, a = max(attacks, key=lambda x: (x[0], _EARLIER[x[1].verb]))
            if s >= WEAK_ATTACK:
                return Ranking(a, s, lambda: (self._attack_reason(combat, cid, a, s),
                                              f"weak, but better than waiting: {cid} has nothing better to do"), rivals)
        # 11. defensive use of leftovers: cover, prone for shooters, parry for fighters
        under_fire = any(f.id in armed or f.in_vehicle is not None or bool(st.spells.get(f.id))
                         for f in enemies)  # enemies that shoot: a loaded ranged weapon, a vehicle or spells
        if me.slots.get("move", 0) > 0:
            if TAKE_COVER in by and under_fire and me.cover_source is None:
                return rule(by[TAKE_COVER][0], 0.3, lambda: f"{cid} is under fire: take cover")
            if CROUCH in by and under_fire:
                return rule(by[CROUCH][0], 0.2, lambda: f"{cid} is under fire: crouch")
            if GO_PRONE in by and shooter and under_fire and not any(
                    cheb(_at(f), _at(me)) <= 2 for f in enemies):
                return rule(by[GO_PRONE][0], 0.2, lambda: f"{cid} shoots from afar under fire: go prone")
            if ACRO_PARRY in by:
                return rule(by[ACRO_PARRY][0], 0.1, lambda: f"{weak()}: the spare move action parries acrobatically")
            if PARRY in by and any(cheb(_at(f), _at(me)) <= 2 for f in enemies):
                return rule(by[PARRY][0], 0.1, lambda: f"{weak()}: an enemy is close, so the spare move action parries")
        return rule(end, 0.0, lambda: f"{weak()}, and nothing else helps: end the turn")

    @staticmethod
    def stand_up(me: Any, by: dict[str, list[Action]]) -> Action | None:
        """Getting up from prone or a crouch, where legal: neither offers a walk (REI-6.1 to 6.3)."""
        for verb in (STAND_FROM_CROUCH, STAND_FROM_PRONE):
            if by.get(verb) and (me.crouching if verb == STAND_FROM_CROUCH else me.prone):
                return by[verb][0]
        return None

    def sight_move(self, combat: Combat, cid: str, moves: list[Action],
                   enemies: list[Any]) -> tuple[Action, Any] | None:
        """A walk to a square with a line of sight to an enemy within range, and that enemy (None if none in reach).

        Preferred: not next to an enemy, then the distance nearest six metres; ties at random (own RNG). The squares
        within range of each enemy with a clear line to it are one mask (`Board.los_to`, kept by the grid per cell,
        range and closed doors), so a walk's square is tested against each enemy with one `&`.
        """
        reach = self.shot_range(combat, cid)
        field = board(combat)
        doors = closed_doors(combat)
        seen_by = [(f, field.los_to(f.cell, reach, doors)) for f in enemies]
        anywhere = 0
        for _f, m in seen_by:
            anywhere |= m
        bit = field.bit
        best: tuple[tuple[bool, int], list[tuple[Action, Any]]] | None = None
        for a in moves:
            b = bit[a.dest]
            if not b & anywhere:
                continue
            seen = [f for f, m in seen_by if m & b]
            target = min(seen, key=lambda f: cheb(a.dest, f.cell))
            near = min(cheb(a.dest, f.cell) for f in enemies)
            key = (near >= 2, -abs(near - 6))
            if best is None or key > best[0]:
                best = (key, [(a, target)])
            elif key == best[0]:
                best[1].append((a, target))
        if best is None:
            return None
        top = best[1]
        return top[int(self.rng.integers(len(top)))] if len(top) > 1 else top[0]

    @staticmethod
    def shot_range(combat: Combat, cid: str) -> int:
        """The longest reach of a loaded held ranged weapon or a known spell, in metres."""
        st = combat.tables
        state = combat.state
        guns = [st.items[k].range_m or 1 for k, it in state.items.items()
                if it.holder == cid and it.loc == "held" and st.items[k].is_ranged and it.loaded > 0]
        spells = [sp.range_m for sp in st.spells.get(cid, {}).values()]
        return max(guns + spells, default=1)

    @staticmethod
    def _nearest(cell: Any, enemies: list[Any]) -> str:
        """``4 m from B1``: the nearest enemy to a cell."""
        f = min(enemies, key=lambda f: cheb(cell, f.cell))
        return f"{cheb(cell, f.cell)} m from {f.id}"

    @staticmethod
    def armed(combat: Combat) -> set[str]:
        """Who holds a loaded ranged weapon: one pass over the items for every fighter a turn asks about."""
        st = combat.tables
        return {it.holder for k, it in combat.state.items.items()
                if it.loc == "held" and it.loaded > 0 and it.holder is not None and st.items[k].is_ranged}

    def toward(self, combat: Combat, moves: list[Action], enemies: list[Any], keep: int) -> Action:
        """The destination closest to `keep` metres from the nearest enemy (ties at random, own generator).

        The least (|distance - keep|, distance) to the nearest enemy (the board's metres, Chebyshev) is the first
        distance of keep, keep - 1, keep + 1, keep - 2, keep + 2 ... at which some destination lies. The cells at
        most k from the nearest enemy are the union of the enemies' discs of radius k (`Grid.disc`, kept per cell and
        radius), so the cells at exactly k are a ring of two such unions: the destinations are read once for their
        mask and once for those on the first ring that holds any, not measured one by one.
        """
        grid = board(combat).grid
        bit, disc = grid.bit, grid.disc
        spots = [_at(f) for f in enemies]
        assert spots, "toward needs an enemy"
        dests = 0
        for a in moves:
            dests |= bit[a.dest]

        def within(k: int) -> int:
            m = 0
            if k >= 0:
                for c in spots:
                    m |= disc(c, k)
            return m

        off = 0
        while True:
            for k in ((keep,) if off == 0 else (keep - off, keep + off)):
                ring = within(k) & ~within(k - 1) & dests if k >= 0 else 0
                if ring:
                    top = [a for a in moves if bit[a.dest] & ring]
                    return top[int(self.rng.integers(len(top)))] if len(top) > 1 else top[0]
            off += 1
