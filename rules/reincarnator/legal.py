"""The action mask (section 7): every legal action at the open decision point, in a fixed verb order.

Encodings: movement verbs carry an absolute ``dest`` cell; ``charge``/``acro_charge``/``vehicle_crush``
carry ``dest`` as the offset (dx, dy) of the end cell from the target's cell (the end cell must put
the target within reach), which keeps the action space small. ``option`` holds the weapon/item id,
optionally with flags in a tuple: ``("sword", "all_out")``, ``("pistol", "careful")``,
``("tknife", "dex", "fast")``. Decisions that trim the mask (documented in the report): single-target
attacks, aims and charges target enemies only; ``acro_move`` is offered only beyond the plain move
limit and ``climb_jump`` only to cells a plain move cannot reach; a fast throw at a cell is not offered
(high speed has no effect on an undefended throw); explosives are offered only at cells whose blast
radius covers an enemy. Items are named by their own id by the combatant that started with them, and by
their unique id (``owner.id`` when ids repeat) by anyone else (`Static.name`).

Attack verbs are built in ``attack_masks.py``, shared helpers live in ``masks.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.battlefield import chebyshev as cheb
from trpg_arena.rules.core.values import Action
from trpg_arena.rules.reincarnator.board import DIRS
from trpg_arena.rules.reincarnator.conditions import (
    grapple_between,
    grapples_of,
    in_grapple,
    rating,
)
from trpg_arena.rules.reincarnator.interned import act
from trpg_arena.rules.reincarnator.movement import board, doors_now, occupied_mask, reach_mask
from trpg_arena.rules.reincarnator.verbs import Verb

if TYPE_CHECKING:
    from trpg_arena.rules.core.values import Decision
    from trpg_arena.rules.reincarnator.state import ReiCombat
from trpg_arena.rules.reincarnator.attack_masks import acro_fire_actions, attacks, charges, vehicle_moves
from trpg_arena.rules.reincarnator.masks import (
    HEAVY_RELOAD,
    SWIFT_RELOAD,
    aim_target_ok,
    can_aim,
    carried,
    free_hands,
    gear,
    grapple_weapons,
    held,
    liftable,
    movement_ok,
    offsets,
    payable,
    pinner_of,
)

__all__ = ["aim_target_ok", "held", "legal_actions", "offsets", "pinner_of"]

# argument-less actions (shared objects, see `interned.py`)
_ACRO_PARRY = act(Verb.ACRO_PARRY)
_CROUCH = act(Verb.CROUCH)
_END_TURN = act(Verb.END_TURN)
_FULL_DEFENSE = act(Verb.FULL_DEFENSE)
_GO_PRONE = act(Verb.GO_PRONE)
_LEAVE_BATTLEFIELD = act(Verb.LEAVE_BATTLEFIELD)
_PARRY = act(Verb.PARRY)
_PASS = act(Verb.PASS)
_STAND_FROM_CROUCH = act(Verb.STAND_FROM_CROUCH)
_STAND_FROM_PRONE = act(Verb.STAND_FROM_PRONE)
_RESIST_BREAK = act(Verb.GRAPPLE_RESIST, option="break")
_RESIST_ESCAPE = act(Verb.GRAPPLE_RESIST, option="escape")


# the members the functions below compare, bound once as module names: an enum member is a class attribute
# lookup (slow on Python 3.11) and these run for every action
(ACRO_MOVE, ACRO_PARRY, AIM, CLIMB_JUMP, CLOSE_DOOR, CONSUME, CRAWL, CROUCH, CYCLE_BOLT, DELAY, DRAW, DROP_ITEM,
 ENTER_VEHICLE, ESCAPE_GRAPPLE, EXIT_VEHICLE, FULL_DEFENSE, GO_PRONE, GRAPPLE_MOVE, GRAPPLE_STRIKE, MOVE, OPEN_DOOR,
 PARRY, PICK_UP, PIN, PIN_STRIKE, REFLEX_STEP, RELEASE_GRAPPLE, RELOAD, RELOAD_HEAVY, RETRIEVE, RETRIEVE_STOWED,
 SHEATHE, STAND_FROM_CROUCH, STAND_FROM_PRONE, STEALTH_WALK, TAKE_COVER) = (
    Verb.ACRO_MOVE, Verb.ACRO_PARRY, Verb.AIM, Verb.CLIMB_JUMP, Verb.CLOSE_DOOR, Verb.CONSUME, Verb.CRAWL,
    Verb.CROUCH, Verb.CYCLE_BOLT, Verb.DELAY, Verb.DRAW, Verb.DROP_ITEM, Verb.ENTER_VEHICLE, Verb.ESCAPE_GRAPPLE,
    Verb.EXIT_VEHICLE, Verb.FULL_DEFENSE, Verb.GO_PRONE, Verb.GRAPPLE_MOVE, Verb.GRAPPLE_STRIKE, Verb.MOVE,
    Verb.OPEN_DOOR, Verb.PARRY, Verb.PICK_UP, Verb.PIN, Verb.PIN_STRIKE, Verb.REFLEX_STEP, Verb.RELEASE_GRAPPLE,
    Verb.RELOAD, Verb.RELOAD_HEAVY, Verb.RETRIEVE, Verb.RETRIEVE_STOWED, Verb.SHEATHE, Verb.STAND_FROM_CROUCH,
    Verb.STAND_FROM_PRONE, Verb.STEALTH_WALK, Verb.TAKE_COVER)


def legal_actions(combat: ReiCombat) -> list[Action]:
    """The legal set at the open decision point (helpers memoise shared pieces in `Combat.scratch`)."""
    state = combat.state
    d = state.decision
    assert d is not None
    if d.step == "attack_declared":
        return reflex_actions(combat, d.actor)
    if d.step == "grapple_resist":
        return [_RESIST_BREAK, _RESIST_ESCAPE]
    ahead = combat.ahead
    if ahead is not None and ahead[0] is _KEPT and ahead[1] is d and combat.scratch is not None:
        combat.scratch.update(ahead[2])  # the pieces the mover's last action left true (`keep_pieces`)
    return turn_actions(combat, d.actor)


# --- pieces kept within a turn -------------------------------------------------------------------------
# A turn's legal sets follow one another with one action of the mover between them. An action that moves nobody and
# changes no status, hiding, grapple, vehicle or door leaves what the last legal set worked out of the places true
# (the reach searches and bodies, the closed doors, the targets and their lines of sight); one that also moves no
# item leaves the mover's gear and free hands true. `apply` takes them from the kernel's `Combat.worked_out` (the
# combat's latest legal set) and hands them on through `Combat.ahead`, which the kernel drops after the next legal set
# and whenever the state is changed from outside, restored or cloned.
_KEPT = object()  # the first item of a `Combat.ahead` holding kept pieces: (_KEPT, decision, pieces)
_PLACES = frozenset({"doors", "bodies", "reach", "targets"})  # the kinds of `Combat.scratch` keys read off places
_PLACES_AND_GEAR = _PLACES | {"gear", "hands"}
PIECES_KEPT: dict[str, frozenset[str]] = {
    **dict.fromkeys((AIM, CYCLE_BOLT, RELOAD, RELOAD_HEAVY, PARRY, ACRO_PARRY, TAKE_COVER, GO_PRONE, CROUCH,
                     STAND_FROM_PRONE, STAND_FROM_CROUCH, FULL_DEFENSE), _PLACES_AND_GEAR),
    **dict.fromkeys((DRAW, RETRIEVE, RETRIEVE_STOWED, SHEATHE, DROP_ITEM, PICK_UP), _PLACES)}


def keep_pieces(combat: ReiCombat, d: Decision, verb: str) -> None:
    """Hand the next legal set of the mover's turn (decision `d`, open again after `verb`) the pieces `verb` left true.

    Only when the last legal set worked out was this very state's at `d` (`PIECES_KEPT` says which pieces).
    """
    kinds = PIECES_KEPT.get(verb)
    last = combat.worked_out
    if kinds is None or last is None or last[0] is not combat.state or last[1] is not d:
        return
    combat.ahead = (_KEPT, d, {k: v for k, v in last[2].items() if (k if type(k) is str else k[0]) in kinds})


def reflex_actions(combat: ReiCombat, cid: str) -> list[Action]:
    """REI-5.7: pass, or step within the reflex distance."""
    out = [_PASS]
    dist = combat.tables.reflex_step[cid]
    out.extend(board(combat).dest_actions(REFLEX_STEP, reach_mask(combat, cid, dist)))
    return out


def turn_actions(combat: ReiCombat, cid: str) -> list[Action]:  # noqa: C901 - the catalogue of section 7
    """Every legal verb of the actor's turn, in catalogue order."""
    state = combat.state
    st = combat.tables
    f = state.fighters[cid]
    out: list[Action] = [_END_TURN]
    if f.surprise_turn:
        attacks(combat, cid, f, out, surprise=True)
        return out
    doors = doors_now(combat)
    field = board(combat)
    assert f.cell is not None
    hold_items = held(state, cid, combat.scratch)
    # --- free ----------------------------------------------------------------------------------------
    if not f.acted and not f.suspended:
        if cid in state.order:  # REI-2.4: until after an active combatant later in the order
            later = state.order[state.order.index(cid) + 1:]
            out.extend(act(DELAY, target=x) for x in later if state.fighters[x].status == "active")
    out.extend(act(DROP_ITEM, option=st.name(k, cid)) for k in hold_items)  # REI-2.11
    if RELEASE_GRAPPLE not in f.free_used:  # REI-7.10
        out.extend(act(RELEASE_GRAPPLE, target=g.held) for g in state.grapples if g.holder == cid)
    sl = f.slots
    if not (sl.get("trick", 0) > 0 or sl.get("swift", 0) > 0 or sl.get("move", 0) > 0 or sl.get("acrobatic", 0) > 0
            or sl.get("standard", 0) > 0):
        return out  # no slot left: every verb below needs one (REI-2.10)
    pays = payable(combat, f)
    fh = free_hands(combat, cid)
    reachable = carried(state, cid, "reachable", combat.scratch)
    # --- trick ---------------------------------------------------------------------------------------
    if pays.trick:
        if not f.aimed and not f.moved and can_aim(combat, cid, hold_items):
            # REI-5.1, 5.2: an active, non-hidden enemy within visibility and in sight (`aim_target_ok`, inline)
            vis = field.visibility
            me = f.cell
            for t in st.roster:
                tf = state.fighters[t]
                tc = tf.cell
                if t == cid or tf.status != "active" or tf.side == f.side or tf.hidden or tc is None:
                    continue
                if (vis is None or max(abs(me[0] - tc[0]), abs(me[1] - tc[1])) <= vis) and field.los(me, tc, doors):
                    out.append(act(AIM, target=t))
        for k in hold_items:
            w = st.items[k]
            it = state.items[k]
            if w.ammo is not None and w.ammo.reload_kind == "bolt_action" and not it.chambered and it.loaded >= 1:
                out.append(act(CYCLE_BOLT, option=st.name(k, cid)))  # REI-2.12
        out.extend(act(CONSUME, option=st.name(k, cid)) for k in hold_items + reachable
                   if st.items[k].kind == "consumable" and st.items[k].size <= 1)
        for k in reachable:
            w = st.items[k]
            if w.size <= 1 and not w.drawable and fh >= w.hands and w.kind != "consumable":
                out.append(act(RETRIEVE, option=st.name(k, cid)))
    # --- swift ---------------------------------------------------------------------------------------
    if pays.swift:
        for k in hold_items:
            w = st.items[k]
            it = state.items[k]
            if w.ammo is not None and w.ammo.reload_kind in SWIFT_RELOAD and it.spares >= 1 \
                    and it.loaded < w.ammo.capacity:
                out.append(act(RELOAD, option=st.name(k, cid)))  # REI-2.13
        for k in reachable:
            w = st.items[k]
            if w.drawable and fh >= w.hands:
                out.append(act(DRAW, option=st.name(k, cid)))
        if f.crouching:
            out.append(_STAND_FROM_CROUCH)  # REI-6.3
    # --- move tier -----------------------------------------------------------------------------------
    speed = st.speed[cid]
    mv_ok = movement_ok(combat, f)
    pin_held = pinner_of(state, cid)
    can_move_slot = pays.move
    if can_move_slot:
        if mv_ok:
            move_mask = reach_mask(combat, cid, speed)
            out.extend(field.dest_actions(MOVE, move_mask))  # REI-2.15
            if field.has_climb and field.grid.disc(f.cell, speed) & field.climb_mask:
                out.extend(field.dest_actions(CLIMB_JUMP, reach_mask(combat, cid, speed, climb=True) & ~move_mask))
            if f.hidden:
                out.extend(field.dest_actions(STEALTH_WALK, reach_mask(combat, cid, speed // 2)))  # REI-6.4
        elif pin_held is not None and not f.aimed and f.in_vehicle is None and not f.prone and not f.crouching:
            # REI-7.12
            out.extend(field.dest_actions(MOVE, reach_mask(combat, cid, speed // 2, ignore=(pin_held,))))
        if f.prone and not f.aimed and not in_grapple(state, cid) and f.in_vehicle is None:
            out.extend(act(CRAWL, dest=c) for c in field.grid.cells_of(reach_mask(combat, cid, 1))
                       if field.terrain[c] == "open")  # REI-6.1
        gs = grapples_of(state, cid)
        if len(gs) == 1 and gs[0].state == "hold" and not f.aimed:
            other = gs[0].held if gs[0].holder == cid else gs[0].holder
            out.extend(field.dest_actions(GRAPPLE_MOVE, reach_mask(combat, cid, speed, ignore=(other,))))
        for k in hold_items:
            w = st.items[k]
            it = state.items[k]
            if w.ammo is not None and w.ammo.reload_kind in HEAVY_RELOAD and it.spares >= 1 \
                    and it.loaded < w.ammo.capacity:
                out.append(act(RELOAD_HEAVY, option=st.name(k, cid)))
        if f.in_vehicle is None:
            fx, fy = f.cell
            for c in field.door_cells:
                if max(abs(c[0] - fx), abs(c[1] - fy)) == 1:
                    if doors & field.bit[c]:
                        out.append(act(OPEN_DOOR, dest=c))
                    elif not any(o.cell == c for o in state.fighters.values() if o.status != "fled"):
                        out.append(act(CLOSE_DOOR, dest=c))
        if not f.parried:
            out.append(_PARRY)  # REI-5.9
        if f.in_vehicle is None:
            out.extend(act(TAKE_COVER, dest=c) for c, _obj in field.objects_near(f.cell)
                       if f.cover_source != f"{c[0]},{c[1]}")  # REI-5.11
            for o in st.roster:
                of = state.fighters[o]
                if o == cid or of.cell is None or of.status != "active" or f.cover_source == o:
                    continue
                if max(abs(of.cell[0] - fx), abs(of.cell[1] - fy)) != 1 or of.in_vehicle is not None:
                    continue
                if of.side == f.side:
                    out.append(act(TAKE_COVER, target=o))
                else:
                    gp = grapple_between(state, cid, o)
                    pins = gp is not None and gp.holder == cid and gp.state == "pin"
                    if pins and gp is not None and gp.pin_margin > rating(st, o, "str"):
                        out.append(act(TAKE_COVER, target=o))  # REI-7.12
            if not f.prone:
                out.append(_GO_PRONE)  # REI-6.1
            if f.cover_source is not None and not f.prone and not f.crouching:
                out.append(_CROUCH)  # REI-6.2
            if f.prone:
                out.append(_STAND_FROM_PRONE)  # REI-6.3
            fx, fy = f.cell
            for k, ic in gear(state, cid, combat.scratch)[1]:
                if abs(ic[0] - fx) <= 1 and abs(ic[1] - fy) <= 1:
                    w = st.items[k]
                    if liftable(combat, cid, w) and fh >= w.hands and k not in st.vweapon_owner:
                        out.append(act(PICK_UP, option=st.name(k, cid)))
            out.extend(act(SHEATHE, option=st.name(k, cid)) for k in hold_items if st.items[k].drawable)
        vehicle_moves(combat, cid, f, out)
        if mv_ok:
            out.extend(act(ENTER_VEHICLE, target=vid) for vid, v in state.vehicles.items()
                       if v.driver is None and not v.wrecked and cheb(v.cell, f.cell) == 1
                       and v.side in (None, f.side))
        if f.in_vehicle is not None and not f.aimed:
            vc = state.vehicles[f.in_vehicle].cell
            occ = occupied_mask(combat, cid)
            for dx, dy in DIRS:
                c = (vc[0] + dx, vc[1] + dy)
                if c in field.terrain and c not in field.solid and not (doors | occ) & field.bit[c] \
                        and field.terrain[c] not in ("gap", "climbable"):
                    out.append(act(EXIT_VEHICLE, dest=c))
        if mv_ok and f.cell in field.exits:
            out.append(_LEAVE_BATTLEFIELD)  # REI-0.2
    # --- acrobatic -----------------------------------------------------------------------------------
    if pays.acrobatic:
        limit = speed * 3 // 2
        if mv_ok:
            out.extend(field.dest_actions(ACRO_MOVE, reach_mask(combat, cid, limit, lo=speed)))  # REI-2.16
        elif pin_held is not None and not f.aimed and not f.prone and not f.crouching and f.in_vehicle is None:
            out.extend(field.dest_actions(ACRO_MOVE, reach_mask(combat, cid, limit // 2, lo=speed // 2,
                                                                  ignore=(pin_held,))))
        if not f.parried:
            out.append(_ACRO_PARRY)  # REI-5.10
    # --- standard ------------------------------------------------------------------------------------
    attacks(combat, cid, f, out, surprise=False)
    acro_fire_actions(combat, cid, f, out)
    if pays.standard:
        for g in state.grapples:
            if g.holder == cid and g.state == "hold" and not combat.tables.specs[g.held].has("immune_immobilize"):
                out.append(act(PIN, target=g.held))  # REI-7.11
            if g.holder == cid and g.state == "pin":
                for wid in grapple_weapons(combat, cid, g.with_):
                    out.append(act(PIN_STRIKE, target=g.held, option=st.name(wid, cid)))  # REI-7.16
                    out.append(act(PIN_STRIKE, target=g.held, option=(st.name(wid, cid), "all_out")))
            if g.held == cid:
                out.append(act(ESCAPE_GRAPPLE, target=g.holder, option="break"))  # REI-7.10
                out.append(act(ESCAPE_GRAPPLE, target=g.holder, option="escape"))
        out.append(_FULL_DEFENSE)  # REI-5.8
        out.extend(act(RETRIEVE_STOWED, option=st.name(k, cid)) for k in carried(state, cid, "stowed", combat.scratch)
                   if fh >= st.items[k].hands)  # REI-2.17
    # --- full-round ----------------------------------------------------------------------------------
    charges(combat, cid, f, out)
    if pays.standard_move_x:
        for g in grapples_of(state, cid):
            other = g.held if g.holder == cid else g.holder
            for wid in grapple_weapons(combat, cid, g.with_ if g.holder == cid else None):
                out.append(act(GRAPPLE_STRIKE, target=other, option=st.name(wid, cid)))  # REI-7.9
    return out
