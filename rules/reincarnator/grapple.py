"""Grappling (REI-7.3-7.16): contact follow-up, contests, holds, pins, strikes, escapes, drags."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import shared_decision
from trpg_arena.rules.core.wording import counted
from trpg_arena.rules.reincarnator.attack import after_roll, fmt, grapple_spec
from trpg_arena.rules.reincarnator.conditions import (
    apply_damage,
    effect_mod,
    end_grapple,
    end_hidden,
    grapple_between,
    key_es,
    loser_margin,
    rating,
    wound_penalty,
)
from trpg_arena.rules.reincarnator.movement import plan, step_cost, walk
from trpg_arena.rules.reincarnator.pools import PoolRoll, roll_pool
from trpg_arena.rules.reincarnator.state import Cell, Grapple, Pending
from trpg_arena.rules.reincarnator.verbs import Verb

if TYPE_CHECKING:
    from trpg_arena.rules.reincarnator.state import ReiCombat


def r_of(combat: ReiCombat, cid: str, other: str) -> str:
    """R for `cid` in its grapple with `other`: the soft weapon's specialty for its initiator (REI-7.15)."""
    g = grapple_between(combat.state, cid, other)
    if g is not None and g.holder == cid and g.with_:
        return grapple_spec(combat, cid, g.with_)
    return "brawl"


def resist_pool(combat: ReiCombat, cid: str, mode: str, other: str) -> tuple[int, str]:
    """REI-7.5: break = STR + martial + R, escape = DEX + athletics + reflex; wound penalty applies."""
    st = combat.tables
    if mode == "escape":
        n = rating(st, cid, "dex") + rating(st, cid, "athletics") + rating(st, cid, "reflex")
        key = "dex"
    else:
        r = r_of(combat, cid, other)
        n = rating(st, cid, "str") + rating(st, cid, "martial") + rating(st, cid, r)
        key = "str"
    return n - wound_penalty(combat, cid), key


def active_pool(combat: ReiCombat, cid: str, other: str, with_: str | None = None) -> int:
    """The initiator's contest pool STR + martial + R (REI-7.5)."""
    st = combat.tables
    r = grapple_spec(combat, cid, with_) if with_ else r_of(combat, cid, other)
    return rating(st, cid, "str") + rating(st, cid, "martial") + rating(st, cid, r) - wound_penalty(combat, cid)


def policy_mode(combat: ReiCombat, cid: str, other: str) -> str:
    """`grapple_resist_choice = policy`: the larger pool, break on equal size."""
    b, _ = resist_pool(combat, cid, "break", other)
    e, _ = resist_pool(combat, cid, "escape", other)
    return "escape" if e > b else "break"


def roll_named(combat: ReiCombat, cid: str, pool: int, key: str | None, label: str, rule: str) -> PoolRoll:
    """Roll a contest pool and log it."""
    roll = roll_pool(combat.dice, pool, combat.tables.enc.options, key_es(combat, cid, key) if key else 0,
                     roller=cid, purpose=f"{label} ({counted(pool, 'die', 'dice')})")
    combat.emit("roll", f"{cid} {label}: {pool} dice {fmt(roll.dice)} -> {roll.t}", actor=cid, rule=rule,
                pool=pool, defence=0, dice=[list(b) for b in roll.dice], r=roll.r, es=roll.es, t=roll.t, n=roll.t,
                contest=label)
    return roll


def open_resist(combat: ReiCombat, p: Pending) -> None:
    """Ask the opponent for its resistance pool, or pick it by policy (REI-7.5)."""
    state = combat.state
    target = p.target or ""
    if combat.tables.enc.options.grapple_resist_choice == "policy":
        p.mode = policy_mode(combat, target, p.actor)
        contest(combat, p)
        return
    p.step = "resist"
    state.pending.append(p)
    combat.emit("reaction_window", f"{target} chooses how to resist the grapple", actor=target, rule="REI-7.5",
                window="grapple_resist")
    state.decision = shared_decision(target, "grapple_resist", f"{p.actor} grapples you: break or escape")


def after_contact(combat: ReiCombat, p: Pending, n: int) -> None:
    """REI-7.3: a hitting contact leads to the contest."""
    state = combat.state
    target = p.target or ""
    if n < 1:
        combat.emit("miss", f"{p.actor}'s grapple misses {target}", actor=p.actor, rule="REI-7.3", target=target)
        return
    combat.emit("hit", f"{p.actor}'s grapple contact hits {target}", actor=p.actor, rule="REI-7.3", target=target, n=n)
    t = state.fighters[target]
    if p.out_of_range and p.origin is not None and t.cell != p.origin:
        t.cell = p.origin  # REI-5.7 decision: a target that stepped out of reach is pulled back
        combat.emit("movement", f"{target} is pulled back to {p.origin[0]},{p.origin[1]}", actor=target,
                    rule="REI-5.7", verb="pulled", path=[list(p.origin)], cost=0)
    open_resist(combat, p)


def contest(combat: ReiCombat, p: Pending) -> None:
    """The grapple contest, then its outcome per verb (REI-7.5, 7.9, 7.11)."""
    state = combat.state
    target = p.target or ""
    mode = p.mode or "break"
    combat.emit("reaction_chosen", f"{target} resists with {mode}", actor=target, rule="REI-7.5", mode=mode)
    a_pool = active_pool(combat, p.actor, target, p.weapon if p.verb == Verb.GRAPPLE else None)
    a = roll_named(combat, p.actor, a_pool, "str", "grapple contest", "REI-7.5")
    d_pool, d_key = resist_pool(combat, target, mode, p.actor)
    d = roll_named(combat, target, d_pool, d_key, f"resists ({mode})", "REI-7.5")
    margin = a.t - d.t
    if margin <= 0:
        combat.emit("contest_lost", f"{p.actor} does not win the contest ({a.t} vs {d.t})", actor=p.actor,
                    rule="REI-3.4", margin=margin)
        return
    if p.verb == Verb.GRAPPLE:
        g = Grapple(p.actor, target, "hold", margin, 0, p.weapon)
        state.grapples.append(g)
        combat.emit("grapple_formed", f"{p.actor} holds {target} (margin {margin})", actor=p.actor, rule="REI-7.5",
                    holder=p.actor, held=target, margin=margin)
        end_hidden(combat, target, "grappled")  # REI-6.6
    elif p.verb == Verb.PIN:
        g2 = grapple_between(state, p.actor, target)
        assert g2 is not None
        g2.state, g2.pin_margin = "pin", margin
        combat.emit("grapple_changed", f"{p.actor} pins {target} (margin {margin}); {target} is immobilized",
                    actor=p.actor, rule="REI-7.11", state="pin", margin=margin)
    elif p.verb == Verb.GRAPPLE_STRIKE:
        strike(combat, p, "REI-7.9")


def strike(combat: ReiCombat, p: Pending, rule: str) -> None:
    """The strike roll: STR + martial + R + modifiers, undefended, bashing (REI-7.9, 7.16)."""
    st = combat.tables
    state = combat.state
    target = p.target or ""
    # the contest pool (wound penalty included) with the strike's modifiers
    pool = (active_pool(combat, p.actor, target) - loser_margin(state, p.actor)
            + effect_mod(state.fighters[p.actor], "attack_dp") + (2 if p.all_out else 0))
    roll = roll_pool(combat.dice, pool, st.enc.options, key_es(combat, p.actor, "str"), roller=p.actor,
                     purpose=f"a strike on {target} ({counted(pool, 'die', 'dice')})")
    combat.emit("roll", f"{p.actor} strikes {target}: {pool} dice {fmt(roll.dice)} -> {roll.t}", actor=p.actor,
                rule=rule, pool=pool, defence=0, dice=[list(b) for b in roll.dice], r=roll.r, es=roll.es, t=roll.t,
                n=roll.t)
    after_roll(combat, p)
    if roll.t >= 1:
        combat.emit("hit", f"{p.actor} hits {target} ({roll.t})", actor=p.actor, rule=rule, target=target, n=roll.t)
        apply_damage(combat, target, 0, roll.t, rule, p.actor)
    else:
        combat.emit("miss", f"{p.actor} misses {target}", actor=p.actor, rule=rule, target=target)


def escape(combat: ReiCombat, cid: str, holder: str, mode: str) -> None:
    """REI-7.10, 7.13: the escaper rolls first; a win ends a hold or turns a pin into a hold."""
    state = combat.state
    g = grapple_between(state, cid, holder)
    assert g is not None
    pool, key = resist_pool(combat, cid, mode, holder)
    e = roll_named(combat, cid, pool, key, f"escape ({mode})", "REI-7.10")
    h = roll_named(combat, holder, active_pool(combat, holder, cid), "str", "holds on", "REI-7.10")
    if e.t <= h.t:
        combat.emit("contest_lost", f"{cid} fails to escape ({e.t} vs {h.t})", actor=cid, rule="REI-3.4")
        return
    if g.state == "pin":
        g.state, g.pin_margin = "hold", 0
        combat.emit("grapple_changed", f"{cid} breaks the pin; {holder} still holds it", actor=cid, rule="REI-7.13",
                    state="hold", margin=g.hold_margin)
    else:
        end_grapple(combat, g, "escaped")


def grapple_move(combat: ReiCombat, cid: str, dest: Cell) -> None:
    """REI-7.6: a STR contest, then drag the partner up to the margin in metres."""
    state = combat.state
    st = combat.tables
    g = next(x for x in state.grapples if cid in (x.holder, x.held))
    other = g.held if g.holder == cid else g.holder
    m = roll_named(combat, cid, rating(st, cid, "str") - wound_penalty(combat, cid), "str", "strength contest",
                   "REI-7.6")
    o = roll_named(combat, other, rating(st, other, "str") - wound_penalty(combat, other), "str",
                   "strength contest", "REI-7.6")
    margin = m.t - o.t
    if margin <= 0:
        combat.emit("contest_lost", f"{cid} cannot move {other} ({m.t} vs {o.t})", actor=cid, rule="REI-3.4")
        return
    budget = min(margin, st.speed[cid])
    path, _ = plan(combat, cid, dest, ignore=(other,))
    costs = step_cost(combat, cid, path)
    keep = [path[0]]
    spent = 0
    for c, k in zip(path[1:], costs):
        if spent + k > budget:
            break
        spent += k
        keep.append(c)
    if len(keep) > 1:
        walk(combat, cid, keep, Verb.GRAPPLE_MOVE, "REI-7.6", drag=other)
