"""The attack procedure (REI-3.5-3.9, group 4, REI-5.1-5.7): pools, defences, windows, damage."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import remember, shared_decision
from trpg_arena.rules.core.wording import counted
from trpg_arena.rules.reincarnator.attack_math import (  # noqa: F401 - re-exported for the other modules
    RANGED_VERBS,
    attack_class,
    attack_pool,
    cell_of,
    cover_defence,
    defences,
    dodge_defence,
    grapple_spec,
    high_speed,
    in_reach,
    off_guard,
    penetration,
    source_cell,
    throw_crushes,
    throw_range,
    weapon_range,
)
from trpg_arena.rules.reincarnator.conditions import (
    apply_damage,
    in_grapple,
    key_es,
    rating,
    reset_aim,
    shot_group,
    wound_penalty,
)
from trpg_arena.rules.reincarnator.data import es
from trpg_arena.rules.reincarnator.movement import knockback
from trpg_arena.rules.reincarnator.pools import roll_pool
from trpg_arena.rules.reincarnator.state import Pending
from trpg_arena.rules.reincarnator.verbs import Verb

if TYPE_CHECKING:
    from trpg_arena.rules.reincarnator.state import ReiCombat


# --- procedure ----------------------------------------------------------------------------------------
PHRASES: dict[str, str] = {
    Verb.MELEE_ATTACK: "attacks", Verb.RANGED_ATTACK: "shoots at", Verb.THROW: "throws at", Verb.CAST: "casts at",
    Verb.VEHICLE_ATTACK: "fires at", Verb.BULL_RUSH: "bull-rushes", Verb.GRAPPLE: "grapples", Verb.CHARGE: "charges",
    Verb.ACRO_CHARGE: "charges acrobatically at", Verb.VEHICLE_CRUSH: "rams", Verb.ACRO_FIRE: "fires at"}
# verb sets tested per action, built once (an enum member is a slow class attribute on Python 3.11)
RUSHES = frozenset((Verb.CHARGE, Verb.ACRO_CHARGE, Verb.VEHICLE_CRUSH))  # an attack at the end of a move
VEHICLE_VERBS = frozenset((Verb.VEHICLE_ATTACK, Verb.VEHICLE_CRUSH))
# ... and the members an attack's resolution compares, bound once as module names for the same reason
BULL_RUSH, CAST, GRAPPLE, THROW, VEHICLE_CRUSH = Verb.BULL_RUSH, Verb.CAST, Verb.GRAPPLE, Verb.THROW, Verb.VEHICLE_CRUSH
_NAMED: dict[tuple[tuple[str, int], ...], str] = {}  # `named` by the parts' items
NAMED_KEPT = 10_000


def named(parts: dict[str, int]) -> str:
    """``(str 3 + martial 3 + charge 2 - wound 1)``: what a pool or a defence is made of, zeros left out.

    Every attack roll names its pool's and its defence's parts, and a fighter's attacks repeat the same few: the
    sentence is kept by the parts.
    """
    key = tuple(parts.items())
    known = _NAMED.get(key)
    if known is None:
        known = remember(_NAMED, key, _named(parts), NAMED_KEPT)
    return known


def _named(parts: dict[str, int]) -> str:
    shown = [(k.removeprefix("mod_").replace("_", " "), v) for k, v in parts.items() if v]
    if not shown:
        return ""
    text = " ".join(f"{'-' if v < 0 else '+'} {k} {abs(v)}" for k, v in shown).removeprefix("+ ")
    return f" ({text})"


def declare(combat: ReiCombat, p: Pending) -> None:
    """Step 1-2 of REI-3.8: declaration, then the target's reaction window or resolution."""
    state = combat.state
    tgt = p.target if p.target is not None else f"{p.cell[0]},{p.cell[1]}" if p.cell else "?"
    shown = combat.tables.name(p.weapon, p.actor) if p.weapon else None
    combat.emit("attack_declared", f"{p.actor} {PHRASES.get(p.verb, p.verb)} {tgt}"
                + (f" with {shown}" if shown else ""), actor=p.actor, rule="REI-3.8", verb=p.verb,
                target=p.target, cell=list(p.cell) if p.cell else None, weapon=p.weapon)
    if p.target is not None and p.target in state.fighters:
        p.origin = state.fighters[p.target].cell
    if window_opens(combat, p):
        p.step = "window"
        state.pending.append(p)
        combat.emit("reaction_window", f"{p.target} may react to the attack", actor=p.target, rule="REI-5.7",
                    window="attack_declared")
        state.decision = shared_decision(p.target or "", "attack_declared", f"{p.actor} attacks you: step away or pass")
        return
    resolve(combat, p)


def window_opens(combat: ReiCombat, p: Pending) -> bool:
    """REI-5.7 / REI-2.14: the target has a reflex step and its reflex action."""
    state = combat.state
    t = p.target
    if t is None or t not in state.fighters or p.cell is not None:
        return False
    f = state.fighters[t]
    return (f.status == "active" and f.reflex and combat.tables.reflex_step[t] > 0 and not in_grapple(state, t)
            and f.in_vehicle is None)


def after_window(combat: ReiCombat, p: Pending) -> None:
    """Resume an attack after its reaction window was answered."""
    resolve(combat, p)


def resolve(combat: ReiCombat, p: Pending) -> None:
    """Steps 3-9 of REI-3.8."""
    from trpg_arena.rules.reincarnator import explosives, grapple

    state = combat.state
    st = combat.tables
    if p.verb in RUSHES:
        t = state.fighters[p.target or ""]
        if t.status != "active" or not in_reach(combat, p, p.target or ""):
            combat.emit("attack_cancelled", f"{p.actor}'s {p.verb.replace('_', ' ')} attack is cancelled",
                        actor=p.actor, rule="REI-5.6", verb=p.verb)  # REI-5.6
            return
    target = p.target
    if target is not None and target in state.fighters:
        if not in_reach(combat, p, target) and p.origin is not None and state.fighters[target].cell != p.origin:
            p.out_of_range = True  # REI-5.7: stepped out of range, the attack still resolves
    if p.into == "random" and target is not None:
        group = shot_group(state, target, p.actor)  # the shooter is never its own victim (REI-7.17 decision)
        order = [c for c in st.roster if c in group]
        faces = sum(st.specs[c].size for c in order)
        face = combat.dice.roll(faces, roller=p.actor, purpose="which fighter in the grapple the attack hits")
        acc = 0
        for c in order:
            acc += st.specs[c].size
            if face <= acc:
                target = c
                break
        combat.emit("random_victim", f"the shot into the grapple goes at {target} (d{faces} = {face})",
                    actor=p.actor, rule="REI-7.17", face=face, sides=faces, victim=target)
        p.target = target
    if p.cell is not None and p.target is None:
        explosives.deliver(combat, p)
        return
    assert target is not None
    pool, key, parts = attack_pool(combat, p, target)
    d, bd_es, dparts = defences(combat, p, target)
    if p.verb in VEHICLE_VERBS:
        bonus = es(rating(st, p.actor, key), st.enc.options.extra_successes)  # REI-4.12: no effect bonus
    else:
        bonus = key_es(combat, p.actor, key)
    rolled = counted(pool - d, "die", "dice")
    roll = roll_pool(combat.dice, pool - d, st.enc.options, bonus, roller=p.actor,
                     purpose=f"{p.verb.replace('_', ' ')} on {target} ({pool} - {d} defence = {rolled})")
    n = max(0, roll.t - bd_es)
    combat.emit("roll", f"{p.actor} rolls {pool}{named(parts)} - {d} defence{named(dparts)} = {rolled}: "
                f"{fmt(roll.dice)} -> {counted(roll.r, 'success', 'successes')}"
                f"{f' {sign_of(roll.es)} {abs(roll.es)} extra' if roll.es else ''}"
                f"{f' - {bd_es} on base defence' if bd_es and roll.t else ''}"
                f" = {n}", actor=p.actor, rule="REI-3.8", pool=pool, defence=d, dice=[list(b) for b in roll.dice],
                r=roll.r, es=roll.es, t=roll.t, n=n, parts=parts, defence_parts=dparts, chance=roll.chance)
    after_roll(combat, p)
    if p.verb == GRAPPLE:
        grapple.after_contact(combat, p, n)
        return
    if p.verb == BULL_RUSH:
        # REI-7.2: the attack becomes a push; no damage, the reflex save is the only defence; the push is the
        # attacker's total t (REI-3.4), with or without `bull_rush_defenses_apply`
        combat.emit("bull_rush", f"{p.actor} rams {target} ({roll.t})", actor=p.actor, rule="REI-7.2", target=target,
                    n=roll.t)
        reflex_knockback(combat, p, target, roll.t, "REI-7.2")
        return
    if n < 1:
        combat.emit("miss", f"{p.actor} misses {target}", actor=p.actor, rule="REI-3.8", target=target)
        if p.verb == THROW:
            land_thrown(combat, p, target)
        return
    combat.emit("hit", f"{p.actor} hits {target} ({n})", actor=p.actor, rule="REI-3.8", target=target, n=n)
    if p.verb == THROW:
        land_thrown(combat, p, target)
    on_hit(combat, p, target, n)


def after_roll(combat: ReiCombat, p: Pending) -> None:
    """REI-3.8 step 9: all-out and charge defence loss, aim reset, hidden first attack."""
    state = combat.state
    f = state.fighters[p.actor]
    if p.all_out:
        f.bd_loss += 2  # REI-5.3
    if p.bonus:
        f.bd_loss += p.bonus  # REI-5.5
    reset_aim(combat, p.actor, "attacked")
    if f.hidden:
        f.hidden_attacked = True


def on_hit(combat: ReiCombat, p: Pending, target: str, n: int) -> None:
    """Damage and mode effects of a hit (REI-3.9, 4.3, 4.14)."""
    st = combat.tables
    crush = p.verb == VEHICLE_CRUSH or (
        p.verb == THROW and throw_crushes(combat, p.actor, st.items[p.weapon or ""]))
    dtype: str
    if p.verb == CAST:
        dtype = st.spells[p.actor][p.weapon or ""].damage_type
        extra = 0
    else:
        w = st.weapon(p.actor, p.weapon or "") if p.weapon else None
        dtype = "bashing" if crush or w is None else w.dtype
        extra = 0
        if w is not None and w.kind == "natural":
            dtype = "lethal" if w.lethal else "bashing"  # REI-4.3
            extra = w.damage if w.lethal else 0
        if p.verb == THROW and w is not None and w.kind not in ("thrown", "object"):
            dtype = "bashing"  # improvised (REI-4.6)
    if dtype == "lethal":
        apply_damage(combat, target, n, extra, "REI-3.9", p.actor)
    else:
        apply_damage(combat, target, 0, n, "REI-3.9", p.actor)
    if crush and target in combat.state.fighters:
        reflex_knockback(combat, p, target, n, "REI-4.14")


def reflex_knockback(combat: ReiCombat, p: Pending, target: str, attack_succ: int, rule: str) -> None:
    """The reflex save contest and knockback (REI-4.14, 7.2, 3.4)."""
    st = combat.tables
    state = combat.state
    if state.fighters[target].cell is not None:
        pool = (rating(st, target, "dex") + rating(st, target, "athletics") + rating(st, target, "reflex")
                - wound_penalty(combat, target))
        roll = roll_pool(combat.dice, pool, st.enc.options, key_es(combat, target, "dex"), roller=target,
                         purpose=f"a reflex save ({counted(pool, 'die', 'dice')})")
        combat.emit("roll", f"{target} reflex save: {pool} dice {fmt(roll.dice)} -> {roll.t}", actor=target,
                    rule=rule, pool=pool, defence=0, dice=[list(b) for b in roll.dice], r=roll.r, es=roll.es,
                    t=roll.t, n=roll.t, save=True)
        dist = attack_succ - roll.t
        if dist > 0 and state.fighters[target].cell is not None:
            knockback(combat, cell_of(combat, p.actor), target, dist, rule)


def land_thrown(combat: ReiCombat, p: Pending, target: str) -> None:
    """REI-4.6: the thrown item lies in the target's cell."""
    it = combat.state.items[p.weapon or ""]
    it.loc, it.holder, it.cell = "ground", None, cell_of(combat, target)
    combat.emit("item_moved", f"{p.weapon} lands at {it.cell[0]},{it.cell[1]}", actor=p.actor, rule="REI-4.6",
                item=p.weapon, cell=list(it.cell))


def sign_of(v: int) -> str:
    """``+`` or ``-`` before a number written as its absolute value."""
    return "-" if v < 0 else "+"


def fmt(batches: tuple[tuple[int, ...], ...]) -> str:
    """Dice faces as text, batches joined by '+'."""
    return " + ".join("[" + ",".join(map(str, b)) + "]" for b in batches)


def hidden_in_path_cancel(combat: ReiCombat, p: Pending) -> None:
    """REI-5.6 helper: a bumped charge (or crush, REI-4.13) cancels its attack step."""
    what = "crush" if p.verb == VEHICLE_CRUSH else "charge"
    combat.emit("attack_cancelled", f"{p.actor}'s {what} is stopped; the attack is cancelled", actor=p.actor,
                rule="REI-5.6", verb=p.verb)


__all__ = ["after_roll", "after_window", "declare", "fmt", "land_thrown", "on_hit", "reflex_knockback", "resolve"]
