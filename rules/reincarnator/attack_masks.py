"""Masks of the attack verbs (group 4, REI-5.4, REI-4.13): per-target facts computed once per decision."""


from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.values import Action
from trpg_arena.rules.reincarnator.attack import throw_crushes, throw_range
from trpg_arena.rules.reincarnator.conditions import (
    grapple_between,
    hands_for,
    hands_used,
)
from trpg_arena.rules.reincarnator.interned import act
from trpg_arena.rules.reincarnator.model import ItemSpec
from trpg_arena.rules.reincarnator.movement import board, doors_now, reach_mask
from trpg_arena.rules.reincarnator.state import Cell, Fighter
from trpg_arena.rules.reincarnator.verbs import Verb

if TYPE_CHECKING:
    from trpg_arena.rules.reincarnator.state import ReiCombat

from trpg_arena.rules.reincarnator.masks import (
    heavy,
    held,
    into_variants,
    liftable,
    melee_weapons,
    movement_ok,
    offsets,
    opt,
    payable,
    targetable,
)

_act = act  # the shared action objects (see `interned.py`)


_PLAIN: tuple[tuple[str, ...], ...] = ((),)  # `into_variants` of a target outside any grapple


# the members the functions below compare, bound once as module names: an enum member is a class attribute
# lookup (slow on Python 3.11) and these run for every action
(ACRO_CHARGE, ACRO_DRIVE, ACRO_FIRE, BULL_RUSH, CAST, CHARGE, DRIVE, DRIVE_FAST, GRAPPLE, MELEE_ATTACK,
 RANGED_ATTACK, THROW, VEHICLE_ATTACK, VEHICLE_CRUSH) = (
    Verb.ACRO_CHARGE, Verb.ACRO_DRIVE, Verb.ACRO_FIRE, Verb.BULL_RUSH, Verb.CAST, Verb.CHARGE, Verb.DRIVE,
    Verb.DRIVE_FAST, Verb.GRAPPLE, Verb.MELEE_ATTACK, Verb.RANGED_ATTACK, Verb.THROW, Verb.VEHICLE_ATTACK,
    Verb.VEHICLE_CRUSH)


def target_info(combat: ReiCombat, cid: str) -> list[tuple[str, Cell, int, bool, bool, tuple[tuple[str, ...], ...]]]:
    """Per possible target: (id, cell, distance, line of sight, melee-targetable, into-grapple variants).

    The targets are those `targetable` by a ranged attack (section 7, REI-3.10, REI-6.6), checked inline: the
    combatants in roster order, then the vehicles of another side that are not wrecked (REI-4.12). The roster holds
    combatants only (an encounter's ids are unique: no vehicle shares a combatant's).
    """
    memo = combat.scratch
    if memo is not None:
        hit = memo.get(("targets", cid))
        if hit is not None:
            return hit
    state = combat.state
    st = combat.tables
    fighters = state.fighters
    vehicles = state.vehicles
    f = fighters[cid]
    me = f.cell
    assert me is not None
    mx, my = me
    side = f.side
    hidden_ok = st.enc.options.hidden_targetable
    grappling = bool(state.grapples)
    doors = doors_now(combat)
    field = board(combat)
    between, blockers = field.grid.between, field.sight_blockers | doors  # `Board.los`, inline
    out = []
    for t in st.roster:  # `cid` itself is on its own side
        tf = fighters[t]
        tc = tf.cell
        if tf.status != "active" or tf.side == side or tc is None or (tf.hidden and not hidden_ok):
            continue
        dx, dy = tc[0] - mx, tc[1] - my
        out.append((t, tc, max(dx if dx > 0 else -dx, dy if dy > 0 else -dy), not between(me, tc) & blockers,
                    tf.in_vehicle is None,  # occupants: ranged attacks and blasts only
                    into_variants(state, t, cid) if grappling else _PLAIN))
    for t, v in vehicles.items():
        if not v.wrecked and v.side is not None and v.side != side:
            tc = v.cell
            out.append((t, tc, max(abs(mx - tc[0]), abs(my - tc[1])), field.los(me, tc, doors), True,
                        into_variants(state, t, cid)))
    if memo is not None:
        memo[("targets", cid)] = out
    return out


def attacks(combat: ReiCombat, cid: str, f: Fighter, out: list[Action], surprise: bool) -> None:  # noqa: C901
    """The standard-action attack verbs (REI-2.17, group 4)."""
    state = combat.state
    st = combat.tables
    if not payable(combat, f).standard:
        return
    me_cell = f.cell
    assert me_cell is not None
    hold_items = held(state, cid, combat.scratch)
    tinfo = target_info(combat, cid)
    in_veh = f.in_vehicle is not None
    # melee_attack
    weapons = [] if in_veh else [(st.name(w, cid), st.known_weapon(cid, w).reach) for w in melee_weapons(combat, cid)]
    if weapons and tinfo:
        for name, reach in weapons:
            for t, _tc, dist, los, melee_ok, _v in tinfo:
                if melee_ok and dist <= reach and los:
                    out.append(_act(MELEE_ATTACK, t, None, name))  # REI-4.2, 4.4
                    out.append(_act(MELEE_ATTACK, t, None, (name, "all_out")))  # REI-5.3
    # ranged_attack
    for k in hold_items:
        item = st.items[k]
        it = state.items[k]
        unchambered = item.ammo is not None and item.ammo.reload_kind == "bolt_action" and not it.chambered
        if not item.is_ranged or it.loaded < 1 or unchambered:
            continue
        name = st.name(k, cid)
        if item.ammo is not None and item.ammo.shell is not None:
            out.extend(blast_actions(combat, RANGED_ATTACK, name, me_cell, item.range_m or 1, blast_radius(item)))
            continue  # REI-8.1
        rng = item.range_m or 1
        out.extend(_act(RANGED_ATTACK, t, None, opt(name, *v)) for t, _tc, dist, los, _m, variants in tinfo
                   if dist <= rng and los for v in variants)  # REI-4.5, 7.17
    # throw
    for k in hold_items:
        item = st.items[k]
        facts = st.memo.get(("throw", cid, k))
        if facts is None:
            facts = st.memo[("throw", cid, k)] = _throw_facts(combat, cid, k)
        if facts is _NOT_LIFTABLE:
            continue
        crush, ranges = facts
        fast_ok = not crush and not surprise and payable(combat, f).standard_swift
        name = st.name(k, cid)
        for a, rng in ranges:
            if item.blast:
                out.extend(blast_actions(combat, THROW, (name, a), me_cell, rng, blast_radius(item)))  # REI-8.1
                continue
            for t, _tc, dist, los, _m, variants in tinfo:
                if dist > rng or not los:
                    continue
                for v in variants:
                    out.append(_act(THROW, t, None, (name, a, *v)))  # REI-4.6, 4.7
                    if fast_ok:
                        out.append(_act(THROW, t, None, (name, a, "fast", *v)))  # REI-4.10
    # cast
    for sid, sp in st.spells[cid].items():
        out.extend(_act(CAST, t, None, opt(sid, *v)) for t, _tc, dist, los, _m, variants in tinfo
                   if dist <= sp.range_m and los for v in variants)  # REI-4.15
    # vehicle_attack
    if in_veh:
        veh = state.vehicles[f.in_vehicle or ""]
        if veh.driver == cid and not veh.wrecked:
            for k, vid in st.vweapon_owner.items():
                if vid != veh.id or state.items[k].loaded < 1:
                    continue
                rng = st.items[k].range_m or 1
                out.extend(_act(VEHICLE_ATTACK, t, None, opt(k, *va)) for t, _tc, dist, los, _m, variants in tinfo
                           if t != veh.id and dist <= rng and los for va in variants)  # REI-4.12
        return
    tinfo_melee = [x for x in tinfo if x[4]]
    if not tinfo_melee:
        return  # bull_rush and grapple need a melee target
    # bull_rush
    for name, reach in weapons:
        for t, _tc, dist, los, _m, _v in tinfo_melee:
            if t in state.fighters and dist <= reach and los:
                out.append(_act(BULL_RUSH, t, None, name))  # REI-7.2
                out.append(_act(BULL_RUSH, t, None, (name, "all_out")))
    # grapple
    size = st.specs[cid].size
    big = [k for k in hold_items if st.items[k].size > size - 3]
    softs = [k for k in hold_items if st.items[k].soft]
    free_g = st.specs[cid].hands - hands_used(combat, cid)
    for t, _tc, dist, los, _m, _v in tinfo_melee:
        if t not in state.fighters or dist != 1 or not los or st.specs[t].has("immune_immobilize"):
            continue
        g = grapple_between(state, cid, t)
        if g is not None and g.holder == cid:
            continue
        if free_g < hands_for(combat, cid, t):
            continue
        if not big:
            out.append(_act(GRAPPLE, t, None, None))  # REI-7.3, 7.4
            out.append(_act(GRAPPLE, t, None, "all_out"))
        for k in softs:
            if all(b == k for b in big):
                out.append(_act(GRAPPLE, t, None, (st.name(k, cid),)))  # REI-7.15
                out.append(_act(GRAPPLE, t, None, (st.name(k, cid), "all_out")))


_NOT_LIFTABLE: tuple[bool, tuple[tuple[str, int], ...]] = (False, ())  # compared by identity; no ranges either


def _throw_facts(combat: ReiCombat, cid: str, k: str) -> tuple[bool, tuple[tuple[str, int], ...]]:
    """What throwing item `k` means for `cid`, fixed by the encounter: (crushes, ((attribute, range m), ...)).

    `_NOT_LIFTABLE` if it cannot be thrown (REI-4.6 heavy items with Strength only, REI-4.7 range, REI-4.8
    liftable, REI-4.9 crushing).
    """
    item = combat.tables.items[k]
    if not liftable(combat, cid, item):
        return _NOT_LIFTABLE
    attrs = ("str",) if heavy(combat, cid, item) else ("dex", "str")
    return throw_crushes(combat, cid, item), tuple((a, throw_range(combat, cid, a)) for a in attrs)


def acro_fire_actions(combat: ReiCombat, cid: str, f: Fighter, out: list[Action]) -> None:
    """REI-2.16: load, shoot and reload a musket or launcher with one acrobatic action."""
    state = combat.state
    st = combat.tables
    if not payable(combat, f).acrobatic or f.in_vehicle is not None or f.surprise_turn:
        return
    assert f.cell is not None
    for k in held(state, cid, combat.scratch):
        w = st.items[k]
        if w.ammo is None or w.ammo.reload_kind not in ("musket", "launcher"):
            continue
        it = state.items[k]
        if it.loaded < 1 and it.spares < 1:
            continue
        if w.ammo.shell is not None:
            out.extend(blast_actions(combat, ACRO_FIRE, st.name(k, cid), f.cell, w.range_m or 1, blast_radius(w)))
            continue
        # the targets a ranged attack may name, within the weapon's range (`in_reach`) and in sight: `target_info`
        shot = st.weapon(cid, k)
        assert shot is not None
        rng = shot.range_m or 1
        name = st.name(k, cid)
        for t, _tc, dist, los, _m, variants in target_info(combat, cid):
            if dist <= rng and los:
                for v in variants:
                    out.append(_act(ACRO_FIRE, t, None, opt(name, *v)))


def blast_actions(combat: ReiCombat, verb: str, option: Any, origin: Cell, rng: int,
                  radius: int) -> tuple[Action, ...]:
    """The shared ``Action(verb, dest=cell, option)`` of every `blast_cells` cell, row by row (the board keeps them)."""
    return board(combat).dest_actions(verb, blast_cells(combat, origin, rng, radius), option)


def blast_cells(combat: ReiCombat, origin: Cell, rng: int, radius: int = 0) -> int:
    """Target cells of an explosive, as a mask: enterable, in range and sight, and within `radius` of an enemy.

    The enemy is an active combatant or a vehicle of another side. Decision (mask size): a blast aimed where it
    cannot catch any enemy is not offered.
    """
    state = combat.state
    field = board(combat)
    me = state.actor
    side = state.fighters[me].side if me in state.fighters else None
    near = 0
    for f in state.fighters.values():
        if f.status == "active" and f.side != side and f.cell is not None:
            near |= field.grid.disc(f.cell, radius)
    for v in state.vehicles.values():
        if v.side is not None and v.side != side and not v.wrecked:
            near |= field.grid.disc(v.cell, radius)
    near &= field.grid.disc(origin, rng) & ~field.solid_mask
    return field.sight(origin, near, doors_now(combat))


def blast_radius(item: ItemSpec) -> int:
    """Largest radius of an explosive item, cluster or launcher shell."""
    if item.ammo is not None and item.ammo.shell is not None:
        return item.ammo.shell.radius_m
    if item.explosive is not None:
        return item.explosive.radius_m
    return max((e.radius_m for e in item.components), default=0)


def charges(combat: ReiCombat, cid: str, f: Fighter, out: list[Action]) -> None:
    """REI-5.4: charge/acro_charge with the end cell as an offset from the target."""
    state = combat.state
    st = combat.tables
    if not movement_ok(combat, f):
        return
    speed = st.speed[cid]
    pays = payable(combat, f)
    kinds = [(verb, limit) for verb, limit, paid in ((CHARGE, 2 * speed, pays.standard_move_x),
                                                     (ACRO_CHARGE, 3 * speed, pays.standard_acrobatic_x)) if paid]
    if not kinds:
        return
    assert f.cell is not None
    field = board(combat)
    doors = doors_now(combat)
    weapons = melee_weapons(combat, cid)
    reaches = [(st.known_weapon(cid, w).reach, st.name(w, cid)) for w in weapons]
    fighters = state.fighters
    side = f.side
    spots = []  # (target, its cell, weapon reach and name, the cells within that reach of the target)
    for t in st.roster:  # combatants only, `cid` on its own side
        tf = fighters[t]
        if tf.hidden or tf.status != "active" or tf.side == side or tf.cell is None or tf.in_vehicle is not None:
            continue  # `targetable` by a melee attack, inline (section 7)
        tc = tf.cell
        assert tc is not None
        for reach, name in reaches:
            spots.append((t, tc, reach, name, field.grid.disc(tc, reach)))
    for verb, limit in kinds:
        ok = reach_mask(combat, cid, limit)
        for t, tc, reach, name, near in spots:
            cand = near & ok  # end cells within reach, row by row = offset order
            if not cand:
                continue
            cand &= field.los_to(tc, reach, doors)
            out.extend(field.charge_ends(verb, t, name, tc, reach, cand))


def vehicle_moves(combat: ReiCombat, cid: str, f: Fighter, out: list[Action]) -> None:
    """REI-2.15, 2.16, 4.13: drive, drive_fast, acro_drive and vehicle_crush."""
    state = combat.state
    st = combat.tables
    if f.in_vehicle is None or f.aimed:
        return
    v = state.vehicles[f.in_vehicle]
    if v.driver != cid or v.wrecked:
        return
    vs = st.vehicles[v.id]
    field = board(combat)
    mult = st.enc.options.vehicle_accel_multiplier
    fast = mult * vs.speed_m
    pays = payable(combat, f)
    for verb, limit, paid in ((DRIVE, vs.speed_m, pays.move), (DRIVE_FAST, fast, pays.move_swift),
                              (ACRO_DRIVE, fast, pays.acrobatic)):
        if paid:
            out.extend(field.dest_actions(verb, reach_mask(combat, cid, limit, start=v.cell, vehicle=True)))
    speeds = [(name, limit) for name, limit, paid in (("normal", vs.speed_m, pays.standard_move_x),
                                                      ("fast", fast, pays.standard_move_swift_x),
                                                      ("acro", fast, pays.standard_acrobatic_x)) if paid]
    if not speeds:
        return
    masks = [(name, reach_mask(combat, cid, lim, start=v.cell, vehicle=True)) for name, lim in speeds]
    any_end = 0
    for _name, m in masks:
        any_end |= m
    for t in st.roster:
        tf = state.fighters[t]
        if not targetable(combat, cid, t, False) or vs.size < st.specs[t].size + 2:
            continue
        tc = tf.cell
        assert tc is not None
        if not field.grid.disc(tc, 1) & any_end:
            continue  # no end cell next to this target
        for o in offsets(1):
            b = field.bit.get((tc[0] + o[0], tc[1] + o[1]))
            if b is None:
                continue
            for name, m in masks:
                if m & b:
                    out.append(_act(VEHICLE_CRUSH, t, o, name))  # REI-4.13
