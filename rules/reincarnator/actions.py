"""Applying a chosen action (section 7): pay its cost (REI-2.10), then run its procedure."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.values import Action
from trpg_arena.rules.reincarnator import attack, grapple
from trpg_arena.rules.reincarnator.conditions import (
    check_cover_sources,
    end_all_grapples,
    end_effects,
    end_grapple,
    grapple_between,
    heal_bashing,
    rating,
    remove_cover,
    reset_aim,
)
from trpg_arena.rules.reincarnator.legal import aim_target_ok, held, keep_pieces, pinner_of
from trpg_arena.rules.reincarnator.movement import bump, path_cost, plan, stop_short, walk
from trpg_arena.rules.reincarnator.state import Cell, EffectState, Fighter, Pending
from trpg_arena.rules.reincarnator.turns import advance, begin_entry, end_turn, pay
from trpg_arena.rules.reincarnator.verbs import Condition, ThrowOption, Verb, all_out, into_of

if TYPE_CHECKING:
    from trpg_arena.rules.reincarnator.state import ReiCombat

MOVE_TIER = (Verb.MOVE, Verb.CLIMB_JUMP, Verb.CRAWL, Verb.STEALTH_WALK, Verb.GRAPPLE_MOVE, Verb.RELOAD_HEAVY,
             Verb.OPEN_DOOR, Verb.CLOSE_DOOR, Verb.PARRY, Verb.TAKE_COVER, Verb.GO_PRONE, Verb.CROUCH,
             Verb.STAND_FROM_PRONE, Verb.PICK_UP, Verb.SHEATHE, Verb.DRIVE, Verb.ENTER_VEHICLE, Verb.EXIT_VEHICLE,
             Verb.LEAVE_BATTLEFIELD)
COSTS: dict[str, tuple[str, ...]] = {
    **{v: ("move",) for v in MOVE_TIER},
    **{v: ("trick",) for v in (Verb.AIM, Verb.CYCLE_BOLT, Verb.CONSUME, Verb.RETRIEVE)},
    **{v: ("swift",) for v in (Verb.RELOAD, Verb.DRAW, Verb.STAND_FROM_CROUCH)},
    **{v: ("acrobatic",) for v in (Verb.ACRO_MOVE, Verb.ACRO_PARRY, Verb.ACRO_DRIVE, Verb.ACRO_FIRE)},
    **{v: ("standard",) for v in (Verb.MELEE_ATTACK, Verb.RANGED_ATTACK, Verb.CAST, Verb.VEHICLE_ATTACK, Verb.BULL_RUSH,
                                  Verb.GRAPPLE, Verb.PIN, Verb.PIN_STRIKE, Verb.ESCAPE_GRAPPLE, Verb.FULL_DEFENSE,
                                  Verb.RETRIEVE_STOWED, Verb.THROW)},
    Verb.DRIVE_FAST: ("move", "swift"),
}
EXACT: dict[str, tuple[str, ...]] = {Verb.CHARGE: ("standard", "move"), Verb.ACRO_CHARGE: ("standard", "acrobatic"),
                                     Verb.GRAPPLE_STRIKE: ("standard", "move")}
CRUSH = {"normal": ("standard", "move"), "fast": ("standard", "move", "swift"), "acro": ("standard", "acrobatic")}

# verbs that only set a combatant's own flags: the flags, then the event that says so (kind, words, rule, condition)
POSTURES: dict[str, tuple[tuple[tuple[str, bool], ...], str, str, str, Condition]] = {
    Verb.GO_PRONE: ((("prone", True), ("crouching", False)), "condition_added", "goes prone", "REI-6.1",
                    Condition.PRONE),
    Verb.CROUCH: ((("crouching", True),), "condition_added", "crouches behind cover", "REI-6.2", Condition.CROUCHING),
    Verb.STAND_FROM_PRONE: ((("prone", False),), "condition_removed", "stands up", "REI-6.3", Condition.PRONE),
    Verb.STAND_FROM_CROUCH: ((("crouching", False),), "condition_removed", "stands up from the crouch", "REI-6.3",
                             Condition.CROUCHING),
    Verb.FULL_DEFENSE: ((("full_defense", True),), "condition_added", "defends with everything", "REI-5.8",
                        Condition.FULL_DEFENSE),
}

FLAGS = frozenset({"all_out", "careful", "random", "fast", "dex", "str", "break", "escape", "normal", "acro"})
# verb sets tested per action, built once (an enum member is a slow class attribute on Python 3.11)
TO_HAND = frozenset((Verb.RETRIEVE, Verb.DRAW, Verb.RETRIEVE_STOWED, Verb.PICK_UP))  # an item taken in hand
RELOADS = frozenset((Verb.RELOAD, Verb.RELOAD_HEAVY))
WALKS = frozenset((Verb.MOVE, Verb.CLIMB_JUMP, Verb.STEALTH_WALK, Verb.ACRO_MOVE))  # a planned path walked
DOORS = frozenset((Verb.OPEN_DOOR, Verb.CLOSE_DOOR))
PARRIES = frozenset((Verb.PARRY, Verb.ACRO_PARRY))
DRIVES = frozenset((Verb.DRIVE, Verb.DRIVE_FAST, Verb.ACRO_DRIVE))
CLOSE_ATTACKS = frozenset((Verb.MELEE_ATTACK, Verb.BULL_RUSH, Verb.GRAPPLE))
FAR_ATTACKS = frozenset((Verb.RANGED_ATTACK, Verb.ACRO_FIRE, Verb.VEHICLE_ATTACK, Verb.CAST))
RUSHES = frozenset((Verb.CHARGE, Verb.ACRO_CHARGE, Verb.VEHICLE_CRUSH))  # an attack at the end of a move


# the members the functions below compare, bound once as module names: an enum member is a class attribute
# lookup (slow on Python 3.11) and these run for every action
(ACRO_FIRE, ACRO_MOVE, ACRO_PARRY, AIM, CAST, CLIMB_JUMP, CONSUME, CRAWL, CYCLE_BOLT, DELAY, DROP_ITEM, END_TURN,
 ENTER_VEHICLE, ESCAPE_GRAPPLE, EXIT_VEHICLE, GRAPPLE, GRAPPLE_MOVE, GRAPPLE_STRIKE, LEAVE_BATTLEFIELD, OPEN_DOOR,
 PASS, PIN, PIN_STRIKE, REFLEX_STEP, RELEASE_GRAPPLE, SHEATHE, STEALTH_WALK, TAKE_COVER, THROW, VEHICLE_CRUSH) = (
    Verb.ACRO_FIRE, Verb.ACRO_MOVE, Verb.ACRO_PARRY, Verb.AIM, Verb.CAST, Verb.CLIMB_JUMP, Verb.CONSUME, Verb.CRAWL,
    Verb.CYCLE_BOLT, Verb.DELAY, Verb.DROP_ITEM, Verb.END_TURN, Verb.ENTER_VEHICLE, Verb.ESCAPE_GRAPPLE,
    Verb.EXIT_VEHICLE, Verb.GRAPPLE, Verb.GRAPPLE_MOVE, Verb.GRAPPLE_STRIKE, Verb.LEAVE_BATTLEFIELD, Verb.OPEN_DOOR,
    Verb.PASS, Verb.PIN, Verb.PIN_STRIKE, Verb.REFLEX_STEP, Verb.RELEASE_GRAPPLE, Verb.SHEATHE, Verb.STEALTH_WALK,
    Verb.TAKE_COVER, Verb.THROW, Verb.VEHICLE_CRUSH)


def opts(a: Action) -> tuple[Any, ...]:
    """The option as a tuple."""
    if a.option is None:
        return ()
    return a.option if isinstance(a.option, tuple) else (a.option,)


def uid(combat: ReiCombat, cid: str, name: Any) -> Any:
    """The item id behind the name `cid` uses in actions (its own gear first, then items on the ground)."""
    if not isinstance(name, str) or name in FLAGS:
        return name
    st = combat.tables
    if name in st.natural[cid]:
        return name
    state = combat.state
    # the items `cid` names so, from the static tables (a state's items are items of the encounter): with one,
    # the walks below come down to its holder and place
    named: dict[str, tuple[str, ...]] | None = st.memo.get(("item names", cid))
    if named is None:
        lists: dict[str, list[str]] = {}
        for k in st.items:
            lists.setdefault(st.name(k, cid), []).append(k)
        named = st.memo[("item names", cid)] = {n: tuple(ks) for n, ks in lists.items()}
    ks = named.get(name, ())
    if len(ks) < 2:
        it = state.items.get(ks[0]) if ks else None
        return ks[0] if it is not None and (it.holder == cid or it.loc == "ground") else name
    for k, it in state.items.items():
        if it.holder == cid and st.name(k, cid) == name:
            return k
    for k, it in state.items.items():
        if it.loc == "ground" and st.name(k, cid) == name:
            return k
    return name


def item_ids(combat: ReiCombat, cid: str, option: Any) -> tuple[Any, ...]:
    """`uid` of every part of an action's option (`opts`), read off a plan kept per combatant and option.

    What a part can name is fixed by the encounter: a flag, a natural weapon or a name of no item stays as it is; a
    name of one item is that item while `cid` carries it or it lies on the ground, else the name (what `uid` comes
    down to); a name of several items is walked by `uid`. The policy asks this for every attack it weighs.
    """
    st = combat.tables
    plans: dict[Any, tuple[tuple[Any, Any], ...]] | None = st.memo.get(("item id plans", cid))
    if plans is None:
        plans = st.memo[("item id plans", cid)] = {}
    plan = plans.get(option)
    if plan is None:
        plan = plans[option] = tuple(_id_plan(combat, cid, x) for x in (
            () if option is None else option if isinstance(option, tuple) else (option,)))
    items = combat.state.items
    out = []
    for name, k in plan:
        if k is None:
            out.append(name)
        elif k is _SEVERAL:
            out.append(uid(combat, cid, name))
        else:
            it = items.get(k)
            out.append(k if it is not None and (it.holder == cid or it.loc == "ground") else name)
    return tuple(out)


_SEVERAL = object()  # an `item_ids` plan's mark of a name that several items answer to


def _id_plan(combat: ReiCombat, cid: str, name: Any) -> tuple[Any, Any]:
    """(name, what `uid` reads for it): None (the name itself), the one item it names, or `_SEVERAL`."""
    if not isinstance(name, str) or name in FLAGS or name in combat.tables.natural[cid]:
        return name, None
    uid(combat, cid, name)  # lays out the combatant's table of item names
    ks = combat.tables.memo[("item names", cid)].get(name, ())
    if not ks:
        return name, None
    return name, (ks[0] if len(ks) == 1 else _SEVERAL)


def apply(combat: ReiCombat, a: Action) -> None:
    """Apply a legal action, then advance to the next decision point."""
    state = combat.state
    d = state.decision
    assert d is not None
    state.decision = None
    if d.step == "attack_declared":
        p = state.pending.pop()
        if a.verb == REFLEX_STEP:
            f = state.fighters[d.actor]
            f.reflex = False  # REI-2.14: used
            combat.emit("reaction_chosen", f"{d.actor} steps away", actor=d.actor, rule="REI-5.7",
                        verb=REFLEX_STEP)
            path, _ = plan(combat, d.actor, a.dest)
            walk(combat, d.actor, path, REFLEX_STEP, "REI-5.7")
        else:
            combat.emit("reaction_chosen", f"{d.actor} passes", actor=d.actor, rule="REI-5.7", verb=PASS)
        attack.after_window(combat, p)
    elif d.step == "grapple_resist":
        p = state.pending.pop()
        p.mode = str(a.option)
        grapple.contest(combat, p)
    else:
        turn_verb(combat, d.actor, a)
    check_cover_sources(combat)
    for f in state.fighters.values():  # REI-5.1: aim lapses when its target stops being a legal aim target
        if f.aim_target is not None and (f.status != "active" or not aim_target_ok(combat, f.id, f.aim_target)):
            reset_aim(combat, f.id, "target lost")
    advance(combat)
    if state.decision is d and d.step == "turn":  # the mover's turn goes on
        keep_pieces(combat, d, a.verb)


def turn_verb(combat: ReiCombat, cid: str, a: Action) -> None:  # noqa: C901 - one branch per verb of section 7
    """Pay for and perform one verb of the actor's own turn."""
    state = combat.state
    f = state.fighters[cid]
    v = a.verb
    o = item_ids(combat, cid, a.option)
    if v == END_TURN:
        end_turn(combat)
        return
    if v == DELAY:
        delay(combat, cid, a.target or "")
        return
    f.acted = True
    if v in EXACT:
        pay(combat, cid, EXACT[v], exact=True)
    elif v == VEHICLE_CRUSH:
        pay(combat, cid, CRUSH[str(a.option)], exact=True)
    elif v == THROW and a.option.fast:  # a `ThrowOption`, the legal set's own (`Combat.act`)
        pay(combat, cid, ("standard", "swift"))
    elif v in COSTS:
        pay(combat, cid, COSTS[v])
    if v == DROP_ITEM:
        it = state.items[o[0]]
        it.loc, it.holder, it.cell = "ground", None, cell_now(combat, f)
        combat.emit("item_moved", f"{cid} drops {o[0]}", actor=cid, rule="REI-2.11", item=o[0], to="ground")
    elif v == RELEASE_GRAPPLE:
        f.free_used.append(RELEASE_GRAPPLE)  # REI-2.11 once per turn
        g = grapple_between(state, cid, a.target or "")
        assert g is not None
        end_grapple(combat, g, "released")
    elif v == AIM:
        t = a.target
        if f.aim_target == t and f.aim_count >= 1:
            f.aim_count = min(3, f.aim_count + 1)  # REI-5.1
        else:
            f.aim_target, f.aim_count = t, 1
        f.aimed = True
        combat.emit("aim", f"{cid} aims at {t} (+{f.aim_count})", actor=cid, rule="REI-5.1", target=t,
                    count=f.aim_count)
    elif v == CYCLE_BOLT:
        state.items[o[0]].chambered = True
        combat.emit("reload", f"{cid} cycles the bolt of {o[0]}", actor=cid, rule="REI-2.12", item=o[0])
    elif v == CONSUME:
        consume(combat, cid, o[0])
    elif v in TO_HAND:
        it = state.items[o[0]]
        it.loc, it.holder, it.cell = "held", cid, None
        combat.emit("item_moved", f"{cid} takes {o[0]} in hand", actor=cid, rule="REI-2.13", item=o[0], to="held")
    elif v == SHEATHE:
        state.items[o[0]].loc = "reachable"
        combat.emit("item_moved", f"{cid} puts away {o[0]}", actor=cid, rule="REI-2.15", item=o[0], to="reachable")
    elif v in RELOADS:
        reload(combat, cid, o[0])
    elif v in POSTURES:
        flags, kind, words, rule, condition = POSTURES[v]
        for name, on in flags:
            setattr(f, name, on)
        combat.emit(kind, f"{cid} {words}", actor=cid, rule=rule, condition=condition)
    elif v in WALKS:
        drag = pinner_of(state, cid)
        path, _ = plan(combat, cid, a.dest, climb=v == CLIMB_JUMP, ignore=(drag,) if drag else ())
        walk(combat, cid, path, v, "REI-6.4" if v == STEALTH_WALK else "REI-2.16" if v == ACRO_MOVE
             else "REI-2.15", keep_hidden=v == STEALTH_WALK, drag=drag)
    elif v == CRAWL:
        assert f.cell is not None
        walk(combat, cid, [f.cell, a.dest], CRAWL, "REI-6.1")
    elif v == GRAPPLE_MOVE:
        grapple.grapple_move(combat, cid, a.dest)
    elif v in DOORS:
        state.doors[f"{a.dest[0]},{a.dest[1]}"] = "open" if v == OPEN_DOOR else "closed"
        combat.emit("door", f"{cid} {v.split('_')[0]}s the door at {a.dest[0]},{a.dest[1]}", actor=cid,
                    rule="REI-2.15", cell=list(a.dest), state="open" if v == OPEN_DOOR else "closed")
    elif v in PARRIES:
        parry(combat, cid, acro=v == ACRO_PARRY)
    elif v == TAKE_COVER:
        take_cover(combat, cid, a)
    elif v in DRIVES:
        drive(combat, cid, a.dest, v)
    elif v == ENTER_VEHICLE:
        veh = state.vehicles[a.target or ""]
        remove_cover(combat, cid, "entered a vehicle")
        f.in_vehicle, f.cell, veh.driver, veh.side = veh.id, veh.cell, cid, f.side
        f.prone = f.crouching = False
        combat.emit("vehicle", f"{cid} takes the wheel of {veh.id}", actor=cid, rule="REI-2.15", vehicle=veh.id)
    elif v == EXIT_VEHICLE:
        veh = state.vehicles[f.in_vehicle or ""]
        veh.driver, veh.side = None, None
        f.in_vehicle, f.cell = None, a.dest
        combat.emit("vehicle", f"{cid} leaves {veh.id}", actor=cid, rule="REI-2.15", vehicle=veh.id)
    elif v == LEAVE_BATTLEFIELD:
        leave(combat, cid)
    elif v == ESCAPE_GRAPPLE:
        grapple.escape(combat, cid, a.target or "", str(a.option))
    elif v == PIN:
        grapple.open_resist(combat, Pending(PIN, cid, target=a.target))
    elif v == GRAPPLE_STRIKE:
        grapple.open_resist(combat, Pending(GRAPPLE_STRIKE, cid, target=a.target, weapon=o[0]))
    elif v == PIN_STRIKE:
        grapple.strike(combat, Pending(PIN_STRIKE, cid, target=a.target, weapon=o[0], all_out=all_out(a.option)),
                       "REI-7.16")
    else:
        start_attack(combat, cid, a, o)


def cell_now(combat: ReiCombat, f: Fighter) -> Cell | None:
    """A combatant's cell, or its vehicle's."""
    if f.in_vehicle is not None:
        return combat.state.vehicles[f.in_vehicle].cell
    return f.cell


def delay(combat: ReiCombat, cid: str, after: str) -> None:
    """REI-2.4: suspend the turn and re-enter the order right after `after`."""
    state = combat.state
    f = state.fighters[cid]
    state.order.remove(cid)
    state.order.insert(state.order.index(after) + 1, cid)
    f.suspended = True
    f.acted = True  # a resumed turn offers no delay
    combat.emit("delay", f"{cid} delays until after {after}", actor=cid, rule="REI-2.4", after=after,
                order=list(state.order))
    begin_entry(combat)


def consume(combat: ReiCombat, cid: str, k: str) -> None:
    """REI-2.12: apply a consumable's effect and use it up."""
    state = combat.state
    w = combat.tables.items[k]
    state.items[k].loc, state.items[k].holder = "gone", None
    combat.emit("consume", f"{cid} consumes {k}", actor=cid, rule="REI-2.12", item=k)
    eff = w.effect
    if eff is None:
        return
    if eff.heal_bashing:
        heal_bashing(combat, cid, eff.heal_bashing)
    mods = {m: getattr(eff, m) for m in ("attack_dp", "base_defense", "dodge_defense", "base_initiative", "bonus_es")
            if getattr(eff, m)}
    if mods:
        state.fighters[cid].effects.append(EffectState(w.name or k, eff.duration, mods))
        combat.emit("effect_started", f"{w.name or k} takes effect on {cid}", actor=cid, rule="REI-0.3",
                    effect=w.name or k, modifiers=mods)
        if "base_initiative" in mods:
            state.reorder_pending = True  # REI-2.3


def reload(combat: ReiCombat, cid: str, k: str) -> None:
    """REI-2.13, 2.15 reload kinds."""
    state = combat.state
    w = combat.tables.items[k]
    it = state.items[k]
    assert w.ammo is not None
    kind = w.ammo.reload_kind
    if kind == "shell":
        it.loaded = min(w.ammo.capacity, it.loaded + 1)
    elif kind in ("bow", "crossbow"):
        it.loaded = 1
    else:
        it.loaded = w.ammo.capacity
    it.spares -= 1
    combat.emit("reload", f"{cid} reloads {k} ({it.loaded} loaded, {it.spares} spare)", actor=cid, rule="REI-2.13",
                item=k, loaded=it.loaded, spares=it.spares)


def parry(combat: ReiCombat, cid: str, acro: bool) -> None:
    """REI-5.9, 5.10: parry defence from martial + the first held melee weapon's specialty."""
    state = combat.state
    st = combat.tables
    f = state.fighters[cid]
    spec = "brawl"
    for k in held(state, cid, combat.scratch):
        if st.items[k].kind == "melee":
            spec = st.items[k].specialty or "brawl"
            break
    f.parry_value = (rating(st, cid, "martial") + rating(st, cid, spec)) // 2
    f.parried = True
    if acro:
        f.acro_dodge = rating(st, cid, "martial") // 2
    combat.emit("condition_added", f"{cid} parries (defence {f.parry_value}" + (
        f", dodge +{f.acro_dodge})" if acro else ")"), actor=cid, rule="REI-5.10" if acro else "REI-5.9",
        condition=Condition.PARRYING, value=f.parry_value)


def take_cover(combat: ReiCombat, cid: str, a: Action) -> None:
    """REI-5.11: cover from an object, an ally or a pinned opponent."""
    state = combat.state
    st = combat.tables
    f = state.fighters[cid]
    if a.dest is not None:
        obj = combat.battlefield.graph.nodes[a.dest]["object"]
        value, src = int(obj["cover"]), f"{a.dest[0]},{a.dest[1]}"
    else:
        value, src = max(1, min(5, st.specs[a.target or ""].size - 2)), a.target or ""
    f.cover_value, f.cover_source = value, src
    combat.emit("condition_added", f"{cid} takes cover behind {src} ({value})", actor=cid, rule="REI-5.11",
                condition=Condition.IN_COVER, value=value, source=src)


# the rule a vehicle's movement cites; the other drives are REI-2.15 move actions
DRIVE_RULES: dict[str, str] = {Verb.ACRO_DRIVE: "REI-2.16", VEHICLE_CRUSH: "REI-4.13"}


def drive(combat: ReiCombat, cid: str, dest: Cell, verb: str) -> bool:
    """REI-2.15: the driver moves its vehicle; False if a hidden enemy stopped it short of `dest`.

    A vehicle stops before a hidden enemy's cell like a walker (section 5: `stop_short`, `bump`).
    """
    state = combat.state
    f = state.fighters[cid]
    veh = state.vehicles[f.in_vehicle or ""]
    path, _ = plan(combat, cid, dest, start=veh.cell, vehicle=True)
    taken, blocker = stop_short(combat, cid, path)
    if blocker is not None:
        bump(combat, cid, blocker)
    if len(taken) > 1:
        end = taken[-1]
        cost = path_cost(combat, taken, "walk")  # vehicles pay the plain walking costs (REI-6.7)
        veh.cell = end
        f.cell = end
        f.moved = True
        combat.emit("movement", f"{cid} drives {veh.id} to {end[0]},{end[1]} ({cost} m)", actor=cid,
                    rule=DRIVE_RULES.get(verb, "REI-2.15"), verb=verb, path=[list(c) for c in taken], cost=cost)
    return blocker is None


def leave(combat: ReiCombat, cid: str) -> None:
    """REI-0.2 (c): leaving the location is a scene change for the leaver."""
    f = combat.state.fighters[cid]
    end_all_grapples(combat, cid, "left")
    f.status = "fled"
    combat.emit("status_changed", f"{cid} leaves the battlefield", actor=cid, rule="REI-2.15", status="fled")
    combat.emit("scene_change", f"{cid} leaves the location: scene change", actor=cid, rule="REI-0.2",
                reason="left_location", combatants=[cid])
    end_effects(combat, cid, ("scene",), "scene_change")
    f.cell = None
    check_cover_sources(combat)
    end_turn(combat)


def start_attack(combat: ReiCombat, cid: str, a: Action, o: tuple[Any, ...]) -> None:  # noqa: C901
    """Declare one attack verb: spend ammunition, move for charges and crushes (REI-3.8 step 1)."""
    state = combat.state
    st = combat.tables
    f = state.fighters[cid]
    v = a.verb
    p = Pending(v, cid, target=a.target, weapon=o[0] if o else None)
    if v in CLOSE_ATTACKS:
        p.all_out = all_out(a.option)  # typed options: the legal set's own action (`Combat.act`)
        if v == GRAPPLE:
            p.weapon = o[0] if o and o[0] != "all_out" else None
    elif v in FAR_ATTACKS:
        p.into = into_of(a.option)
        if a.dest is not None:
            p.cell, p.target = a.dest, None
        if v != CAST:
            spend_ammo(combat, cid, p, v == ACRO_FIRE)
    elif v == THROW:
        throw: ThrowOption = a.option
        p.attr, p.fast, p.into = throw.attr, throw.fast, throw.into
        if a.dest is not None:
            p.cell, p.target = a.dest, None
    elif v in RUSHES:
        t = state.fighters[a.target or ""]
        assert t.cell is not None
        dest = (t.cell[0] + a.dest[0], t.cell[1] + a.dest[1])
        if v == VEHICLE_CRUSH:
            p.weapon = None
            if not drive(combat, cid, dest, VEHICLE_CRUSH):
                attack.hidden_in_path_cancel(combat, p)  # REI-4.13: stopped short, cancelled as a charge (REI-5.6)
                return
        else:
            avail = max(0, st.specs[cid].base_defense - f.bd_loss)
            path, _ = plan(combat, cid, dest)
            entered = walk(combat, cid, path, v, "REI-5.4")
            if f.cell != dest:
                attack.hidden_in_path_cancel(combat, p)  # REI-5.6
                return
            p.bonus = min(entered, avail)  # REI-5.5
    attack.declare(combat, p)


def spend_ammo(combat: ReiCombat, cid: str, p: Pending, acro: bool) -> None:
    """Fire one round (REI-4.5), a burst (REI-8.4) or load-fire-reload (REI-2.16)."""
    state = combat.state
    w = combat.tables.items[p.weapon or ""]
    it = state.items[p.weapon or ""]
    assert w.ammo is not None
    if acro and it.loaded < 1:
        it.spares -= 1
        it.loaded = w.ammo.capacity
        combat.emit("reload", f"{cid} loads {p.weapon}", actor=cid, rule="REI-2.16", item=p.weapon,
                    loaded=it.loaded, spares=it.spares)
    shots = min(w.burst, it.loaded) if w.ammo.shell is not None else 1
    it.loaded -= shots
    if w.ammo.reload_kind == "bolt_action":
        it.chambered = False
    if acro and it.spares >= 1 and it.loaded < w.ammo.capacity:
        it.spares -= 1
        it.loaded = w.ammo.capacity
        combat.emit("reload", f"{cid} reloads {p.weapon}", actor=cid, rule="REI-2.16", item=p.weapon,
                    loaded=it.loaded, spares=it.spares)
