"""The action mask (section 7): every legal action at the open decision point, in a fixed verb order.

Encodings: movement verbs carry an absolute ``dest`` cell; ``charge``/``acro_charge``/``vehicle_crush``
carry ``dest`` as the offset (dx, dy) of the end cell from the target's cell (the end cell must put
the target within reach), which keeps the action space small. ``option`` holds the weapon/item id,
optionally with flags in a tuple: ``("sword", "all_out")``, ``("pistol", "careful")``,
``("tknife", "dex", "fast")``. Decisions that trim the mask (documented in the report): single-target
attacks, aims and charges target enemies only; ``acro_move`` is offered only beyond the plain move
limit and ``climb_jump`` only to cells a plain move cannot reach; a fast throw at a cell is not offered
(high speed has no effect on an undefended throw).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import Action
from trpg_arena.rules.reincarnator import movement
from trpg_arena.rules.reincarnator.attack import in_reach, throw_crushes, throw_range
from trpg_arena.rules.reincarnator.conditions import (
    grapple_between,
    grapples_of,
    hands_for,
    hands_used,
    in_grapple,
    rating,
    rs,
)
from trpg_arena.rules.reincarnator.data import static
from trpg_arena.rules.reincarnator.geometry import DIRS, cheb
from trpg_arena.rules.reincarnator.model import ItemSpec
from trpg_arena.rules.reincarnator.movement import bf, doors_now, occupied_for, reach_mask
from trpg_arena.rules.reincarnator.state import Cell, Fighter, Pending, ReiState
from trpg_arena.rules.reincarnator.turns import pay_plan

if TYPE_CHECKING:
    from trpg_arena.rules.core.combat import Combat

SWIFT_RELOAD = ("magazine", "lever", "speedloader", "shell", "bow", "crossbow", "bolt_action")
HEAVY_RELOAD = ("musket", "launcher", "revolver")
SURPRISE_VERBS = ("melee_attack", "ranged_attack", "throw", "cast", "vehicle_attack", "bull_rush", "grapple")
OFFSETS_CACHE: dict[int, list[Cell]] = {}


def offsets(reach: int) -> list[Cell]:
    """Offsets within Chebyshev `reach` of a cell, excluding (0, 0), in a fixed order."""
    hit = OFFSETS_CACHE.get(reach)
    if hit is None:
        hit = [(dx, dy) for dy in range(-reach, reach + 1) for dx in range(-reach, reach + 1) if (dx, dy) != (0, 0)]
        OFFSETS_CACHE[reach] = hit
    return hit


def held(state: ReiState, cid: str) -> list[str]:
    """Item ids held by `cid`."""
    memo = movement.MEMO
    if memo is not None:
        key = ("held", cid)
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = [k for k, it in state.items.items() if it.holder == cid and it.loc == "held"]
        return hit  # type: ignore[return-value]
    return [k for k, it in state.items.items() if it.holder == cid and it.loc == "held"]


def carried(state: ReiState, cid: str, loc: str) -> list[str]:
    """Item ids carried by `cid` at a location."""
    memo = movement.MEMO
    if memo is not None:
        key = ("mine", cid)
        mine = memo.get(key)
        if mine is None:
            mine = memo[key] = [(k, it.loc) for k, it in state.items.items() if it.holder == cid]
        return [k for k, lc in mine if lc == loc]  # type: ignore[attr-defined]
    return [k for k, it in state.items.items() if it.holder == cid and it.loc == loc]


def free_hands(combat: Combat, cid: str) -> int:
    """Hands not holding items or grapples (REI-7.14)."""
    memo = movement.MEMO
    if memo is not None:
        key = ("hands", cid)
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = _free_hands(combat, cid)
        return hit  # type: ignore[return-value]
    return _free_hands(combat, cid)


def _free_hands(combat: Combat, cid: str) -> int:
    state = rs(combat)
    st = static(combat)
    used = sum(st.items[k].hands for k in held(state, cid)) + hands_used(combat, cid)
    return st.specs[cid].hands - used


def liftable(combat: Combat, cid: str, item: ItemSpec) -> bool:
    """REI-4.8: size within thrower size - 3, or STR >= 2 per point over."""
    st = static(combat)
    s0 = st.specs[cid].size - 3
    return item.size <= s0 or rating(st, cid, "str") >= 2 * (item.size - s0)


def heavy(combat: Combat, cid: str, item: ItemSpec) -> bool:
    """REI-4.6: heavy items are thrown with Strength only."""
    return item.heavy or item.size > static(combat).specs[cid].size - 3


def can_pay(combat: Combat, f: Fighter, *parts: str, exact: bool = False) -> bool:
    """Whether the remaining slots pay this cost (REI-2.10)."""
    memo = movement.MEMO
    if memo is not None:
        key = ("pay", f.id, parts, exact)
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = pay_plan(combat, f.slots, parts, exact) is not None
        return hit  # type: ignore[return-value]
    return pay_plan(combat, f.slots, parts, exact) is not None


def targetable(combat: Combat, cid: str, tid: str, ranged: bool) -> bool:
    """A single-target attack may name `tid` (section 7, REI-3.10, REI-6.6)."""
    state = rs(combat)
    me = state.fighters[cid]
    if tid in state.vehicles:
        v = state.vehicles[tid]
        return not v.wrecked and v.side is not None and v.side != me.side
    t = state.fighters[tid]
    if t.status != "active" or t.side == me.side or t.cell is None:
        return False
    if t.hidden and not static(combat).enc.options.hidden_targetable:
        return False
    if t.in_vehicle is not None and not ranged:
        return False
    return True


def movement_ok(combat: Combat, f: Fighter) -> bool:
    """Ordinary movement verbs allowed (section 7)."""
    return not (f.aimed or f.prone or f.crouching or f.in_vehicle is not None or in_grapple(rs(combat), f.id))


def pinner_of(state: ReiState, cid: str) -> str | None:
    """The combatant `cid` pins, if it only pins (REI-7.12)."""
    gs = grapples_of(state, cid)
    if len(gs) == 1 and gs[0].holder == cid and gs[0].state == "pin":
        return gs[0].held
    return None


def legal_actions(combat: Combat) -> list[Action]:
    """The legal set at the open decision point (helpers memoise shared pieces for this one call)."""
    movement.MEMO = {}
    try:
        return _legal_actions(combat)
    finally:
        movement.MEMO = None


def _legal_actions(combat: Combat) -> list[Action]:
    state = rs(combat)
    d = state.decision
    assert d is not None
    if d.kind == "attack_declared":
        return reflex_actions(combat, d.actor)
    if d.kind == "grapple_resist":
        return [Action("grapple_resist", option="break"), Action("grapple_resist", option="escape")]
    return turn_actions(combat, d.actor)


def reflex_actions(combat: Combat, cid: str) -> list[Action]:
    """REI-5.7: pass, or step within the reflex distance."""
    out = [Action("pass")]
    dist = static(combat).reflex_step[cid]
    out.extend(bf(combat).dest_actions("reflex_step", reach_mask(combat, cid, dist)))
    return out


def turn_actions(combat: Combat, cid: str) -> list[Action]:  # noqa: C901 - the catalogue of section 7
    """Every legal verb of the actor's turn, in catalogue order."""
    state = rs(combat)
    st = static(combat)
    f = state.fighters[cid]
    out: list[Action] = [Action("end_turn")]
    if f.surprise_turn:
        attacks(combat, cid, f, out, surprise=True)
        return out
    doors = doors_now(state)
    field = bf(combat)
    assert f.cell is not None
    hold_items = held(state, cid)
    # --- free ----------------------------------------------------------------------------------------
    if not f.acted and not f.suspended:
        idx = state.order.index(cid) if cid in state.order else -1
        if 0 <= idx < len(state.order) - 1:
            for x in state.order[idx + 1:]:
                if state.fighters[x].status == "active":
                    out.append(Action("delay", target=x))  # REI-2.4
    for k in hold_items:
        out.append(Action("drop_item", option=st.name(k, cid)))  # REI-2.11
    if "release_grapple" not in f.free_used:
        for g in state.grapples:
            if g.holder == cid:
                out.append(Action("release_grapple", target=g.held))  # REI-7.10
    # --- trick ---------------------------------------------------------------------------------------
    if can_pay(combat, f, "trick"):
        if not f.aimed and not f.moved and can_aim(combat, cid, hold_items):
            for t in st.roster:
                if t != cid and aim_target_ok(combat, cid, t):
                    out.append(Action("aim", target=t))  # REI-5.1, 5.2
        for k in hold_items:
            w = st.items[k]
            it = state.items[k]
            if w.ammo is not None and w.ammo.reload_kind == "bolt_action" and not it.chambered and it.loaded >= 1:
                out.append(Action("cycle_bolt", option=st.name(k, cid)))  # REI-2.12
        for k in hold_items + carried(state, cid, "reachable"):
            if st.items[k].kind == "consumable" and st.items[k].size <= 1:
                out.append(Action("consume", option=st.name(k, cid)))
        fh = free_hands(combat, cid)
        for k in carried(state, cid, "reachable"):
            w = st.items[k]
            if w.size <= 1 and not w.drawable and fh >= w.hands and w.kind != "consumable":
                out.append(Action("retrieve", option=st.name(k, cid)))
    # --- swift ---------------------------------------------------------------------------------------
    if can_pay(combat, f, "swift"):
        for k in hold_items:
            w = st.items[k]
            it = state.items[k]
            if w.ammo is not None and w.ammo.reload_kind in SWIFT_RELOAD and it.spares >= 1 \
                    and it.loaded < w.ammo.capacity:
                out.append(Action("reload", option=st.name(k, cid)))  # REI-2.13
        fh = free_hands(combat, cid)
        for k in carried(state, cid, "reachable"):
            w = st.items[k]
            if w.drawable and fh >= w.hands:
                out.append(Action("draw", option=st.name(k, cid)))
        if f.crouching:
            out.append(Action("stand_from_crouch"))  # REI-6.3
    # --- move tier -----------------------------------------------------------------------------------
    speed = st.speed[cid]
    mv_ok = movement_ok(combat, f)
    pin_held = pinner_of(state, cid)
    can_move_slot = can_pay(combat, f, "move")
    if can_move_slot:
        if mv_ok:
            move_mask = reach_mask(combat, cid, speed)
            out.extend(field.dest_actions("move", move_mask))  # REI-2.15
            if field.has_climb and field.disc(f.cell, speed) & field.climb_mask:
                out.extend(field.dest_actions("climb_jump", reach_mask(combat, cid, speed, climb=True) & ~move_mask))
            if f.hidden:
                out.extend(field.dest_actions("stealth_walk", reach_mask(combat, cid, speed // 2)))  # REI-6.4
        elif pin_held is not None and not f.aimed and f.in_vehicle is None and not f.prone and not f.crouching:
            out.extend(field.dest_actions("move", reach_mask(combat, cid, speed // 2, ignore=(pin_held,))))  # REI-7.12
        if f.prone and not f.aimed and not in_grapple(state, cid) and f.in_vehicle is None:
            near = reach_mask(combat, cid, 1)
            for c in field.cells_of(near):
                if field.terrain[c] == "open":
                    out.append(Action("crawl", dest=c))  # REI-6.1
        gs = grapples_of(state, cid)
        if len(gs) == 1 and gs[0].state == "hold" and not f.aimed:
            other = gs[0].held if gs[0].holder == cid else gs[0].holder
            out.extend(field.dest_actions("grapple_move", reach_mask(combat, cid, speed, ignore=(other,))))
        for k in hold_items:
            w = st.items[k]
            it = state.items[k]
            if w.ammo is not None and w.ammo.reload_kind in HEAVY_RELOAD and it.spares >= 1 \
                    and it.loaded < w.ammo.capacity:
                out.append(Action("reload_heavy", option=st.name(k, cid)))
        if f.in_vehicle is None:
            for c in field.door_cells:
                if cheb(c, f.cell) == 1:
                    if c in doors:
                        out.append(Action("open_door", dest=c))
                    elif not any(o.cell == c for o in state.fighters.values() if o.status != "fled"):
                        out.append(Action("close_door", dest=c))
        if not f.parried:
            out.append(Action("parry"))  # REI-5.9
        if f.in_vehicle is None:
            for c, _obj in field.objects_near(f.cell):
                if f.cover_source != f"{c[0]},{c[1]}":
                    out.append(Action("take_cover", dest=c))  # REI-5.11
            for o in st.roster:
                of = state.fighters[o]
                if o == cid or of.cell is None or of.status != "active" or f.cover_source == o:
                    continue
                if cheb(of.cell, f.cell) != 1 or of.in_vehicle is not None:
                    continue
                if of.side == f.side:
                    out.append(Action("take_cover", target=o))
                else:
                    g = grapple_between(state, cid, o)
                    if g is not None and g.holder == cid and g.state == "pin" and g.pin_margin > rating(st, o, "str"):
                        out.append(Action("take_cover", target=o))  # REI-7.12
            if not f.prone:
                out.append(Action("go_prone"))  # REI-6.1
            if f.cover_source is not None and not f.prone and not f.crouching:
                out.append(Action("crouch"))  # REI-6.2
            if f.prone:
                out.append(Action("stand_from_prone"))  # REI-6.3
            fh = free_hands(combat, cid)
            for k, it in state.items.items():
                if it.loc == "ground" and it.cell is not None and cheb(it.cell, f.cell) <= 1:
                    w = st.items[k]
                    if liftable(combat, cid, w) and fh >= w.hands and k not in st.vweapon_owner:
                        out.append(Action("pick_up", option=st.name(k, cid)))
            for k in hold_items:
                if st.items[k].drawable:
                    out.append(Action("sheathe", option=st.name(k, cid)))
        vehicle_moves(combat, cid, f, out)
        if mv_ok:
            for vid, v in state.vehicles.items():
                if v.driver is None and not v.wrecked and cheb(v.cell, f.cell) == 1 and (
                        v.side is None or v.side == f.side):
                    out.append(Action("enter_vehicle", target=vid))
        if f.in_vehicle is not None and not f.aimed:
            vc = state.vehicles[f.in_vehicle].cell
            occ = occupied_for(combat, cid)
            for dx, dy in DIRS:
                c = (vc[0] + dx, vc[1] + dy)
                if c in field.terrain and c not in field.solid and c not in doors and c not in occ \
                        and field.terrain[c] not in ("gap", "climbable"):
                    out.append(Action("exit_vehicle", dest=c))
        if mv_ok and f.cell in field.exits:
            out.append(Action("leave_battlefield"))  # REI-0.2
    # --- acrobatic -----------------------------------------------------------------------------------
    if can_pay(combat, f, "acrobatic"):
        limit = speed * 3 // 2
        if mv_ok:
            out.extend(field.dest_actions("acro_move", reach_mask(combat, cid, limit, lo=speed)))  # REI-2.16
        elif pin_held is not None and not f.aimed and not f.prone and not f.crouching and f.in_vehicle is None:
            out.extend(field.dest_actions("acro_move", reach_mask(combat, cid, limit // 2, lo=speed // 2,
                                                                  ignore=(pin_held,))))
        if not f.parried:
            out.append(Action("acro_parry"))  # REI-5.10
    # --- standard ------------------------------------------------------------------------------------
    attacks(combat, cid, f, out, surprise=False)
    acro_fire_actions(combat, cid, f, out)
    if can_pay(combat, f, "standard"):
        for g in state.grapples:
            if g.holder == cid and g.state == "hold" and not static(combat).specs[g.held].has("immune_immobilize"):
                out.append(Action("pin", target=g.held))  # REI-7.11
            if g.holder == cid and g.state == "pin":
                for w in grapple_weapons(combat, cid, g.with_):
                    out.append(Action("pin_strike", target=g.held, option=st.name(w, cid)))  # REI-7.16
                    out.append(Action("pin_strike", target=g.held, option=(st.name(w, cid), "all_out")))
            if g.held == cid:
                out.append(Action("escape_grapple", target=g.holder, option="break"))  # REI-7.10
                out.append(Action("escape_grapple", target=g.holder, option="escape"))
        out.append(Action("full_defense"))  # REI-5.8
        fh = free_hands(combat, cid)
        for k in carried(state, cid, "stowed"):
            if fh >= st.items[k].hands:
                out.append(Action("retrieve_stowed", option=st.name(k, cid)))  # REI-2.17
    # --- full-round ----------------------------------------------------------------------------------
    charges(combat, cid, f, out)
    if can_pay(combat, f, "standard", "move", exact=True):
        for g in grapples_of(state, cid):
            other = g.held if g.holder == cid else g.holder
            for w in grapple_weapons(combat, cid, g.with_ if g.holder == cid else None):
                out.append(Action("grapple_strike", target=other, option=st.name(w, cid)))  # REI-7.9
    return out


def can_aim(combat: Combat, cid: str, hold_items: list[str]) -> bool:
    """REI-5.2: a loaded ranged weapon or a throwable item in hand."""
    state = rs(combat)
    st = static(combat)
    for k in hold_items:
        w = st.items[k]
        if w.is_ranged and state.items[k].loaded >= 1:
            return True
        if w.kind in ("thrown", "object"):
            return True
    return False


def aim_target_ok(combat: Combat, cid: str, t: str) -> bool:
    """REI-5.2: an active, non-hidden enemy in sight and visibility."""
    state = rs(combat)
    tf = state.fighters[t]
    me = state.fighters[cid]
    if tf.status != "active" or tf.side == me.side or tf.hidden or tf.cell is None or me.cell is None:
        return False
    vis = bf(combat).visibility
    if vis is not None and cheb(me.cell, tf.cell) > vis:
        return False
    return bf(combat).los(me.cell, tf.cell, doors_now(state))


def grapple_weapons(combat: Combat, cid: str, soft: str | None) -> list[str]:
    """REI-7.9: natural weapons, held melee weapons of size <= size - 3, the grapple's soft weapon."""
    state = rs(combat)
    st = static(combat)
    out = list(st.natural[cid])
    for k in held(state, cid):
        w = st.items[k]
        if w.kind == "melee" and (w.size <= st.specs[cid].size - 3 or k == soft):
            out.append(k)
    return out


def melee_weapons(combat: Combat, cid: str) -> list[str]:
    """Natural weapons and held melee weapons."""
    st = static(combat)
    return list(st.natural[cid]) + [k for k in held(rs(combat), cid) if st.items[k].kind == "melee"]


def into_variants(state: ReiState, target: str) -> tuple[tuple[str, ...], ...]:
    """REI-7.17: into-grapple options when the target is in a grapple."""
    return (("careful",), ("random",)) if in_grapple(state, target) else ((),)


def opt(*parts: str) -> str | tuple[str, ...]:
    """An option: a bare id or a tuple with flags."""
    return parts[0] if len(parts) == 1 else tuple(parts)


def target_info(combat: Combat, cid: str) -> list[tuple[str, Cell, int, bool, bool, tuple[tuple[str, ...], ...]]]:
    """Per possible target: (id, cell, distance, line of sight, melee-targetable, into-grapple variants)."""
    memo = movement.MEMO
    if memo is not None and ("targets", cid) in memo:
        return memo[("targets", cid)]  # type: ignore[return-value]
    state = rs(combat)
    st = static(combat)
    f = state.fighters[cid]
    me = f.cell
    assert me is not None
    doors = doors_now(state)
    field = bf(combat)
    out = []
    for t in [t for t in st.roster if t != cid] + list(state.vehicles):
        if not targetable(combat, cid, t, True):
            continue
        tc = state.vehicles[t].cell if t in state.vehicles else state.fighters[t].cell
        assert tc is not None
        out.append((t, tc, cheb(me, tc), field.los(me, tc, doors), targetable(combat, cid, t, False),
                    into_variants(state, t)))
    if memo is not None:
        memo[("targets", cid)] = out
    return out


def attacks(combat: Combat, cid: str, f: Fighter, out: list[Action], surprise: bool) -> None:  # noqa: C901
    """The standard-action attack verbs (REI-2.17, group 4)."""
    state = rs(combat)
    st = static(combat)
    if not can_pay(combat, f, "standard"):
        return
    me_cell = f.cell
    assert me_cell is not None
    hold_items = held(state, cid)
    tinfo = target_info(combat, cid)
    in_veh = f.in_vehicle is not None
    # melee_attack
    if not in_veh:
        for w in melee_weapons(combat, cid):
            reach = st.weapon(cid, w).reach  # type: ignore[union-attr]
            name = st.name(w, cid)
            for t, _tc, dist, los, melee_ok, _v in tinfo:
                if melee_ok and dist <= reach and los:
                    out.append(Action("melee_attack", target=t, option=name))  # REI-4.2, 4.4
                    out.append(Action("melee_attack", target=t, option=(name, "all_out")))  # REI-5.3
    # ranged_attack
    for k in hold_items:
        w = st.items[k]
        it = state.items[k]
        if not w.is_ranged or it.loaded < 1 or (w.ammo and w.ammo.reload_kind == "bolt_action" and not it.chambered):
            continue
        name = st.name(k, cid)
        if w.ammo is not None and w.ammo.shell is not None:
            for c in cells_in_range(combat, me_cell, w.range_m or 1, blast_radius(w)):
                out.append(Action("ranged_attack", dest=c, option=name))  # REI-8.1
            continue
        rng = w.range_m or 1
        for t, _tc, dist, los, _m, variants in tinfo:
            if dist <= rng and los:
                for v in variants:
                    out.append(Action("ranged_attack", target=t, option=opt(name, *v)))  # REI-4.5, 7.17
    # throw
    for k in hold_items:
        w = st.items[k]
        if not liftable(combat, cid, w):
            continue
        attrs = ("str",) if heavy(combat, cid, w) else ("dex", "str")
        crush = throw_crushes(combat, cid, w)
        fast_ok = not crush and not surprise and can_pay(combat, f, "standard", "swift")
        name = st.name(k, cid)
        for a in attrs:
            rng = throw_range(combat, cid, a)
            if w.blast:
                for c in cells_in_range(combat, me_cell, rng, blast_radius(w)):
                    out.append(Action("throw", dest=c, option=(name, a)))  # REI-8.1
                continue
            for t, _tc, dist, los, _m, variants in tinfo:
                if dist > rng or not los:
                    continue
                for v in variants:
                    out.append(Action("throw", target=t, option=(name, a, *v)))  # REI-4.6, 4.7
                    if fast_ok:
                        out.append(Action("throw", target=t, option=(name, a, "fast", *v)))  # REI-4.10
    # cast
    for sid, sp in st.spells[cid].items():
        for t, _tc, dist, los, _m, variants in tinfo:
            if dist <= sp.range_m and los:
                for v in variants:
                    out.append(Action("cast", target=t, option=opt(sid, *v)))  # REI-4.15
    # vehicle_attack
    if in_veh:
        v = state.vehicles[f.in_vehicle or ""]
        if v.driver == cid and not v.wrecked:
            for k, vid in st.vweapon_owner.items():
                if vid != v.id or state.items[k].loaded < 1:
                    continue
                rng = st.items[k].range_m or 1
                for t, _tc, dist, los, _m, variants in tinfo:
                    if t != v.id and dist <= rng and los:
                        for va in variants:
                            out.append(Action("vehicle_attack", target=t, option=opt(k, *va)))  # REI-4.12
        return
    tinfo_melee = [x for x in tinfo if x[4]]
    # bull_rush
    for w in melee_weapons(combat, cid):
        reach = st.weapon(cid, w).reach  # type: ignore[union-attr]
        name = st.name(w, cid)
        for t, _tc, dist, los, _m, _v in tinfo_melee:
            if t in state.fighters and dist <= reach and los:
                out.append(Action("bull_rush", target=t, option=name))  # REI-7.2
                out.append(Action("bull_rush", target=t, option=(name, "all_out")))
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
            out.append(Action("grapple", target=t))  # REI-7.3, 7.4
            out.append(Action("grapple", target=t, option="all_out"))
        for k in softs:
            if all(b == k for b in big):
                out.append(Action("grapple", target=t, option=(st.name(k, cid),)))  # REI-7.15
                out.append(Action("grapple", target=t, option=(st.name(k, cid), "all_out")))


def acro_fire_actions(combat: Combat, cid: str, f: Fighter, out: list[Action]) -> None:
    """REI-2.16: load, shoot and reload a musket or launcher with one acrobatic action."""
    state = rs(combat)
    st = static(combat)
    if not can_pay(combat, f, "acrobatic") or f.in_vehicle is not None or f.surprise_turn:
        return
    assert f.cell is not None
    targets = [t for t in st.roster if t != cid] + list(state.vehicles)
    for k in held(state, cid):
        w = st.items[k]
        it = state.items[k]
        if w.ammo is None or w.ammo.reload_kind not in ("musket", "launcher") or (it.loaded < 1 and it.spares < 1):
            continue
        if w.ammo.shell is not None:
            for c in cells_in_range(combat, f.cell, w.range_m or 1, blast_radius(w)):
                out.append(Action("acro_fire", dest=c, option=st.name(k, cid)))
            continue
        p = Pending("acro_fire", cid, weapon=k)
        for t in targets:
            if targetable(combat, cid, t, True) and in_reach(combat, p, t):
                for v in into_variants(state, t):
                    out.append(Action("acro_fire", target=t, option=opt(st.name(k, cid), *v)))


def cells_in_range(combat: Combat, origin: Cell, rng: int, radius: int = 0) -> list[Cell]:
    """Target cells of an explosive: enterable, within range and sight, and within `radius` of an active enemy.

    Decision (mask size): a blast aimed where it cannot catch any enemy is not offered.
    """
    state = rs(combat)
    field = bf(combat)
    doors = doors_now(state)
    me = state.actor
    side = state.fighters[me].side if me in state.fighters else None
    near = 0
    for f in state.fighters.values():
        if f.status == "active" and f.side != side and f.cell is not None:
            near |= field.disc(f.cell, radius)
    for v in state.vehicles.values():
        if v.side is not None and v.side != side and not v.wrecked:
            near |= field.disc(v.cell, radius)
    near &= field.disc(origin, rng) & ~field.solid_mask
    return [c for c in field.cells_of(near) if field.los(origin, c, doors)]


def blast_radius(item: ItemSpec) -> int:
    """Largest radius of an explosive item, cluster or launcher shell."""
    if item.ammo is not None and item.ammo.shell is not None:
        return item.ammo.shell.radius_m
    if item.explosive is not None:
        return item.explosive.radius_m
    return max((e.radius_m for e in item.components), default=0)


def charges(combat: Combat, cid: str, f: Fighter, out: list[Action]) -> None:
    """REI-5.4: charge/acro_charge with the end cell as an offset from the target."""
    state = rs(combat)
    st = static(combat)
    if not movement_ok(combat, f):
        return
    speed = st.speed[cid]
    kinds = []
    if can_pay(combat, f, "standard", "move", exact=True):
        kinds.append(("charge", 2 * speed))
    if can_pay(combat, f, "standard", "acrobatic", exact=True):
        kinds.append(("acro_charge", 3 * speed))
    if not kinds:
        return
    assert f.cell is not None
    field = bf(combat)
    doors = doors_now(state)
    weapons = melee_weapons(combat, cid)
    reaches = {w: st.weapon(cid, w).reach for w in weapons}  # type: ignore[union-attr]
    for verb, limit in kinds:
        ok = reach_mask(combat, cid, limit)
        for t in st.roster:
            tf = state.fighters[t]
            if t == cid or tf.hidden or not targetable(combat, cid, t, False):
                continue
            tc = tf.cell
            assert tc is not None
            for w in weapons:
                cand = field.disc(tc, reaches[w]) & ok  # end cells within reach, row by row = offset order
                if not cand:
                    continue
                name = st.name(w, cid)
                for c in field.cells_of(cand):
                    if field.los(c, tc, doors):
                        out.append(Action(verb, target=t, dest=(c[0] - tc[0], c[1] - tc[1]), option=name))


def vehicle_moves(combat: Combat, cid: str, f: Fighter, out: list[Action]) -> None:
    """REI-2.15, 2.16, 4.13: drive, drive_fast, acro_drive and vehicle_crush."""
    state = rs(combat)
    st = static(combat)
    if f.in_vehicle is None or f.aimed:
        return
    v = state.vehicles[f.in_vehicle]
    if v.driver != cid or v.wrecked:
        return
    vs = st.vehicles[v.id]
    field = bf(combat)
    mult = st.enc.options.vehicle_accel_multiplier
    fast = mult * vs.speed_m
    if can_pay(combat, f, "move"):
        out.extend(field.dest_actions("drive", reach_mask(combat, cid, vs.speed_m, start=v.cell, vehicle=True)))
    if can_pay(combat, f, "move", "swift"):
        out.extend(field.dest_actions("drive_fast", reach_mask(combat, cid, fast, start=v.cell, vehicle=True)))
    if can_pay(combat, f, "acrobatic"):
        out.extend(field.dest_actions("acro_drive", reach_mask(combat, cid, fast, start=v.cell, vehicle=True)))
    speeds = []
    if can_pay(combat, f, "standard", "move", exact=True):
        speeds.append(("normal", vs.speed_m))
    if can_pay(combat, f, "standard", "move", "swift", exact=True):
        speeds.append(("fast", fast))
    if can_pay(combat, f, "standard", "acrobatic", exact=True):
        speeds.append(("acro", fast))
    if not speeds:
        return
    masks = [(name, reach_mask(combat, cid, lim, start=v.cell, vehicle=True)) for name, lim in speeds]
    for t in st.roster:
        tf = state.fighters[t]
        if not targetable(combat, cid, t, False) or vs.size < st.specs[t].size + 2:
            continue
        tc = tf.cell
        assert tc is not None
        for o in offsets(1):
            b = field.bit.get((tc[0] + o[0], tc[1] + o[1]))
            if b is None:
                continue
            for name, m in masks:
                if m & b:
                    out.append(Action("vehicle_crush", target=t, dest=o, option=name))  # REI-4.13
