"""Turn actions as frames: slots, embedded steps, long moves and every non-attack effect (INV-3 .. INV-12.3).

The frame at the bottom of the stack is always the turn actor's current action; reaction windows and attacks
stack above it. Its ``cancelled`` flag is set when an opportunity or pursuit hit ends the actor's round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.battlefield import chebyshev
from trpg_arena.rules.investigator.attacks import push_attack, take_bonus
from trpg_arena.rules.investigator.catalogue import Meta
from trpg_arena.rules.investigator.compiled import Setup
from trpg_arena.rules.investigator.damage import add_condition, interrupt_channel, remove_condition
from trpg_arena.rules.investigator.legal import (
    fighter,
    shot_band,
    std_available,
    step_target,
    wielded_item,
    wielded_t,
)
from trpg_arena.rules.investigator.moves import moves_of, occupancy
from trpg_arena.rules.investigator.paths import best_path
from trpg_arena.rules.investigator.rolls import REGULAR, check
from trpg_arena.rules.investigator.spells import cast_now, continue_now
from trpg_arena.rules.investigator.state import Fighter, Frame, InvState, Item
from trpg_arena.rules.investigator.verbs import Condition, Verb
from trpg_arena.rules.investigator.windows import push_window

if TYPE_CHECKING:
    from trpg_arena.rules.investigator.state import InvCombat

# verb sets read per action, as frozensets built once (an enum member is a slow class attribute on Python 3.11)
WINDOWED = frozenset((Verb.CAST, Verb.CONTINUE_CAST, Verb.SHOOT, Verb.FIRST_AID))  # INV-10.3
ATTACK_VERBS = frozenset((Verb.MELEE, Verb.SHOOT, Verb.THROW, Verb.PURSUE))
TO_A_CELL = frozenset((Verb.STEP, Verb.MOVE))
PREPARING = frozenset((Verb.PREPARE, Verb.SWITCH_WEAPON))  # the prepare slot (INV-3.1)
MOVING = frozenset((Verb.STEP, Verb.MOVE, Verb.STAND_UP))  # the move slot


# the members the functions below compare, bound once as module names: an enum member is a class attribute
# lookup (slow on Python 3.11) and these run for every action
(CAST, CONTINUE_CAST, FIRST_AID, FLEE, MELEE, MOVE, PASS_ITEM, PICK_UP, PREPARE, PURSUE, RELOAD, SHOOT, STAND_UP,
 STEP, SWITCH_WEAPON, THROW) = (
    Verb.CAST, Verb.CONTINUE_CAST, Verb.FIRST_AID, Verb.FLEE, Verb.MELEE, Verb.MOVE, Verb.PASS_ITEM, Verb.PICK_UP,
    Verb.PREPARE, Verb.PURSUE, Verb.RELOAD, Verb.SHOOT, Verb.STAND_UP, Verb.STEP, Verb.SWITCH_WEAPON, Verb.THROW)


def begin(st: InvState, f: Fighter, m: Meta) -> None:
    """Push the frame of a chosen turn action."""
    sdest = step_target(f.pos, m.dir) if m.when and f.pos is not None else None
    st.stack.append(Frame("action", "start", f.id, verb=m.verb, target=m.target, head=m.head, when=m.when,
                          sdest=sdest, dest=m.cell if m.verb in TO_A_CELL else None, shots=m.shots,
                          event=m.dir))


def _spend(setup: Setup, f: Fighter, verb: str, head: str) -> None:
    """Mark the slot an action uses (INV-3.1, INV-3.4)."""
    if verb in PREPARING:
        f.prepare_used = True
    elif verb in MOVING:
        f.move_used = True
    elif verb == CONTINUE_CAST or (verb == CAST and setup.spells[head].rounds > 1):
        f.move_used = True
        f.standard_used = setup.prof(f.id).actions
    else:
        f.standard_used += 1


def _move_to(combat: InvCombat, f: Fighter, dest: tuple[int, int], rule: str, cost: int = 0) -> None:
    src = f.pos
    f.pos = dest
    if not combat.recording:  # the sentences below are only built to be logged (headless envs record none)
        return
    # the text spells the squares as lists, "[x, y]", without building them
    text = (f"{f.id} moves [{src[0]}, {src[1]}] -> [{dest[0]}, {dest[1]}]" if src
            else f"{f.id} moves ? -> [{dest[0]}, {dest[1]}]")
    combat.emit("step", text, actor=f.id, rule=rule,
                src=src, dest=dest, cost=cost)


def run_action(combat: InvCombat, setup: Setup, st: InvState, fr: Frame) -> bool:
    """Advance the bottom action frame by one step; True when a decision was opened (never here directly)."""
    f = fighter(setup, st, fr.actor)
    v = fr.verb
    step = fr.step
    if step == "start":
        if combat.recording:
            combat.emit("action_declared", f"{f.id} declares {v}" + (f" on {fr.target}" if fr.target else "")
                        + (f" ({fr.head})" if fr.head else "") + (f", stepping {fr.when} to {list(fr.sdest)}"
                                                                   if fr.sdest else ""),
                        actor=f.id, rule="INV-3.3", verb=v, target=fr.target or None, option=fr.head or None)
        _spend(setup, f, v, fr.head)
        if v == STEP:  # INV-4.4: pursuit windows, then the step
            push_window(setup, st, "step", f.id, f.pos, fr.dest)
            fr.step = "do_step"
        elif v == MOVE:
            _start_move(combat, setup, st, f, fr)
        elif v in WINDOWED or v in ATTACK_VERBS:
            if fr.when == "before":
                push_window(setup, st, "step", f.id, f.pos, fr.sdest)
                fr.step = "pre_move"
            else:
                fr.step = "prewin"
        else:
            _simple(combat, setup, st, f, fr)
            fr.step = "finish"
        return False
    if step == "do_step":
        if not fr.cancelled and fr.dest is not None:
            f.steps_this_turn += 1
            _move_to(combat, f, fr.dest, "INV-4.4")
        fr.step = "finish"
    elif step == "pre_move":
        if fr.cancelled or fr.sdest is None:
            fr.step = "finish"
        else:
            f.steps_this_turn += 1
            _move_to(combat, f, fr.sdest, "INV-4.4")
            fr.step = "prewin"
    elif step == "prewin":
        if v in WINDOWED:  # INV-10.3
            push_window(setup, st, "action", f.id, f.pos, f.pos)
        fr.step = "main"
    elif step == "main":
        fr.step = "post"
        if fr.cancelled:
            fr.step = "finish"
        else:
            _main(combat, setup, st, f, fr)
    elif step == "post":
        fr.step = "finish"
        if fr.when == "after" and not fr.cancelled and not st.turn_ended:
            if _step_ok(setup, st, f, fr.sdest):
                push_window(setup, st, "step", f.id, f.pos, fr.sdest)
                fr.step = "post_move"
            else:
                combat.emit("step_skipped", f"{f.id} can no longer step to {fr.sdest}", actor=f.id, rule="INV-5.6")
    elif step == "post_move":
        if not fr.cancelled and fr.sdest is not None and f.able and f.pos is not None:
            f.steps_this_turn += 1
            _move_to(combat, f, fr.sdest, "INV-4.4")
        fr.step = "finish"
    elif step == "leave" or step == "go":
        _walk(combat, setup, st, f, fr)
    elif step == "mend":
        _move_end(combat, setup, st, f, fr)
    else:  # finish
        st.stack.pop()
        st.dirty = True
    return False


def _step_ok(setup: Setup, st: InvState, f: Fighter, dest: tuple[int, int] | None) -> bool:
    if dest is None or f.pos is None or f.prone or not f.able:
        return False
    if f.steps_this_turn >= setup.opt.max_steps_per_turn:
        return False
    bf = setup.bf
    return dest in bf.graph.adj[f.pos] and dest not in occupancy(st)


def _main(combat: InvCombat, setup: Setup, st: InvState, f: Fighter, fr: Frame) -> None:
    v = fr.verb
    if v == CAST:
        cast_now(combat, setup, st, f, fr.head, fr.target)
        return
    if v == CONTINUE_CAST:
        continue_now(combat, setup, st, f)
        return
    t = fighter(setup, st, fr.target)
    if t.pos is None or t.dead or t.fled or f.pos is None:
        combat.emit("target_lost", f"{f.id}'s {v} has lost its target {t.id}", actor=f.id, rule="INV-10.4")
        return
    if v in (MELEE, PURSUE):
        if chebyshev(f.pos, t.pos) != 1:
            combat.emit("target_lost", f"{t.id} is out of reach", actor=f.id, rule="INV-10.4")
            return
        push_attack(st, v, f.id, t.id, fr.head)
    elif v == THROW:
        push_attack(st, "throw", f.id, t.id)
    elif v == SHOOT:
        w = wielded_t(setup, f)
        it = wielded_item(f)
        if (it is None or it.jammed or it.loaded < 1 or shot_band(setup, w, chebyshev(f.pos, t.pos)) is None
                or setup.wall_between(f.pos, t.pos)):
            combat.emit("target_lost", f"{f.id} can no longer shoot {t.id}", actor=f.id, rule="INV-10.4")
            return
        push_attack(st, "shot", f.id, t.id, fr.head, fr.shots)
    elif v == FIRST_AID:
        _first_aid(combat, setup, st, f, t)


def _first_aid(combat: InvCombat, setup: Setup, st: InvState, f: Fighter, t: Fighter) -> None:
    """First aid (INV-8.12, INV-11.7)."""
    opt = setup.opt
    maxhp = setup.prof(t.id).max_hp
    if (not (t.untreated_wound and (t.hp < maxhp or t.dying or t.unconscious)) or f.pos is None or t.pos is None
            or chebyshev(f.pos, t.pos) > 1):
        combat.emit("target_lost", f"{t.id} no longer needs first aid", actor=f.id, rule="INV-10.4")
        return
    b = take_bonus(f, ("first_aid",))
    _, lvl = check(combat, f.id, "First Aid", setup.prof(f.id).skill("First Aid"), bonus_from=b,
                   rule="INV-8.12")
    if lvl < REGULAR:
        combat.emit("first_aid", f"{f.id}'s first aid on {t.id} fails", actor=f.id, rule="INV-8.12", success=False)
        return
    before, dying = t.hp, t.dying
    if dying:  # INV-11.7
        t.hp = 1 if opt.first_aid_dying_hp == "set_to_1" else t.hp + 1
        remove_condition(combat, t, Condition.DYING, "INV-11.7")
        t.dying_since = None
    else:
        t.hp = min(maxhp, t.hp + 1)
    t.untreated_wound = False
    combat.emit("first_aid", f"{f.id}'s first aid on {t.id} succeeds: hp {before} -> {t.hp}", actor=f.id,
                rule="INV-11.7" if dying else "INV-8.12", success=True, hp_before=before, hp_after=t.hp)
    if t.unconscious and t.hp >= 1 and opt.first_aid_wakes:
        remove_condition(combat, t, Condition.UNCONSCIOUS, "INV-8.12")
    elif dying and t.hp <= 0:  # INV-11.7 `plus_1`: stable at 0 or below, and out like anyone at 0 HP (INV-11.5)
        add_condition(combat, t, Condition.UNCONSCIOUS, "INV-11.7")
    st.dirty = True


def _simple(combat: InvCombat, setup: Setup, st: InvState, f: Fighter, fr: Frame) -> None:
    """Actions with no window and no defense: prepare, switch, stand up, reload, pass, pick up, flee."""
    v = fr.verb
    if v == PREPARE:  # INV-4.1
        tq = setup.techniques[fr.head]
        skill = wielded_t(setup, f).skill if tq.skill == "@wielded" else tq.skill
        _, lvl = check(combat, f.id, skill, setup.prof(f.id).skill(skill), rule="INV-4.1")
        if lvl >= REGULAR:
            f.bonus_to = list(tq.bonus_to)
            f.bonus_expires = tq.expires
            combat.emit("prepared", f"{f.id} readies {tq.name}: a bonus die on its next "
                                    f"{'/'.join(tq.bonus_to)} roll", actor=f.id, rule="INV-4.1", technique=tq.id)
    elif v == SWITCH_WEAPON:  # INV-4.2
        f.wielded = fr.head
        combat.emit("weapon_switched", f"{f.id} now wields {fr.head}", actor=f.id, rule="INV-4.2", weapon=fr.head)
    elif v == STAND_UP:  # INV-4.7
        remove_condition(combat, f, Condition.PRONE, "INV-4.7")
    elif v == RELOAD:  # INV-8.10
        it = wielded_item(f)
        assert it is not None
        w = setup.weapons[it.template]
        it.jammed = False
        if it.loaded < w.capacity and f.ammo.get(w.ammo_type, 0) >= 1:
            it.loaded = w.capacity
            f.ammo[w.ammo_type] -= 1
        combat.emit("reloaded", f"{f.id} reloads {w.name} ({it.loaded}/{w.capacity})", actor=f.id, rule="INV-8.10",
                    weapon=it.id, loaded=it.loaded)
    elif v == PASS_ITEM:
        _pass(combat, setup, st, f, fighter(setup, st, fr.target), fr.head)
    elif v == PICK_UP:
        _pick_up(combat, setup, st, f, fr.head, fr.event)
    elif v == FLEE:  # INV-12.3
        if f.channel_spell:
            interrupt_channel(combat, f, "fled")
        f.fled = True
        combat.emit("fled", f"{f.id} flees the battlefield from {list(f.pos or ())}", actor=f.id, rule="INV-12.3")
        f.pos = None
        st.turn_ended = True
        st.dirty = True


def _give(setup: Setup, r: Fighter, it: Item) -> None:
    """Carry an item; thrown units join a carried stack of the same template (INV-8.11)."""
    if setup.weapons[it.template].kind == "thrown":
        for w in r.weapons:
            if w.template == it.template:
                w.count += it.count
                return
    r.weapons.append(it)


def _pass(combat: InvCombat, setup: Setup, st: InvState, f: Fighter, r: Fighter, item: str) -> None:
    """Pass one item to an ally (INV-8.11)."""
    if item.startswith("ammo:"):
        k = item[5:]
        f.ammo[k] -= 1
        r.ammo[k] = r.ammo.get(k, 0) + 1
    elif item.startswith("material:"):
        k = item[9:]
        f.materials[k] -= 1
        r.materials[k] = r.materials.get(k, 0) + 1
    else:
        it = f.weapon(item)
        assert it is not None
        f.weapons.remove(it)
        if f.wielded == it.id:
            f.wielded = "unarmed"
        _give(setup, r, it)
    combat.emit("item_moved", f"{f.id} passes {item} to {r.id}", actor=f.id, rule="INV-8.11", item=item, to=r.id)


def _pick_up(combat: InvCombat, setup: Setup, st: InvState, f: Fighter, item: str, d: str) -> None:
    """Pick up an item from the own square or the nine-grid (INV-8.11)."""
    assert f.pos is not None
    sq = f.pos if d == "here" else step_target(f.pos, d)
    for g in st.ground:
        if g.pos == sq and g.item.id == item:
            st.ground.remove(g)
            it = g.item
            if it.kind == "ammo":
                f.ammo[it.template] = f.ammo.get(it.template, 0) + it.count
            elif it.kind == "material":
                f.materials[it.template] = f.materials.get(it.template, 0) + it.count
            else:
                _give(setup, f, it)
            combat.emit("item_moved", f"{f.id} picks up {item} from {list(sq)}", actor=f.id, rule="INV-8.11",
                        item=item, square=sq)
            return


# --- long move (INV-4.5, 4.6, 4.9, 10.2) -------------------------------------------------------------
def _start_move(combat: InvCombat, setup: Setup, st: InvState, f: Fighter, fr: Frame) -> None:
    assert f.pos is not None and fr.dest is not None
    f.moved_long = True
    side_of = setup.side_of
    side = side_of[f.id]
    pursuit = setup.opt.pursuit_mode == "reaction"
    reactors = []
    blocked = []
    for r in st.fighters:
        if r.pos is None or r.dead or r.fled or r.unconscious or r.dying or side_of[r.id] == side:
            continue
        blocked.append(r.pos)  # INV-4.5: a hostile able to act blocks its square
        if r.channel_spell:
            continue
        opp = not r.opportunity_used
        lv = opp or (pursuit and std_available(setup, r))
        if lv or opp:
            reactors.append((r.pos, lv, opp))
    path = best_path(setup, f.pos, fr.dest, setup.prof(f.id).mov, blocked, reactors)
    fr.src = f.pos  # the start: the square a stopped mover falls back to at worst (`_settle`)
    fr.path = path or []
    fr.index = 0
    if combat.recording:
        combat.emit("move_path", f"{f.id} moves {list(f.pos)} -> {list(fr.dest)} via "
                                 f"{' '.join([f'({x},{y})' for x, y in fr.path])}", actor=f.id, rule="INV-4.6",
                    path=fr.path, dest=fr.dest)
    fr.step = "leave"


def _walk(combat: InvCombat, setup: Setup, st: InvState, f: Fighter, fr: Frame) -> None:
    """The squares of a long move: for each, the ``leave`` windows, then the step and the ``enter`` windows.

    Runs square after square until a window is pushed (the frame resumes at its `step` afterwards) or the move
    ends (``mend``). Nobody else acts meanwhile, so the hostiles able to act are listed once: a window is pushed
    when one stands within a square of either end of the step (`push_window`'s test), and a step onto one is
    stopped.
    """
    stack = st.stack
    path = fr.path
    side_of = setup.side_of
    side = side_of[f.id]
    costs, index = setup.grid.cost, setup.grid.index  # entering costs: 2 on difficult squares
    g = setup.moves or moves_of(setup)
    bit, near_bits = g.bit, g.near
    hostiles = 0  # the squares of the hostiles able to act, as bits
    for o in st.fighters:
        if o.pos is not None and side_of[o.id] != side and not (o.dead or o.fled or o.unconscious or o.dying):
            hostiles |= bit[o.pos]
    # the leave test of the current step when it was made in this call: the enter test (same hostiles, same
    # two squares) then has the same answer, and the mover's state was checked just before
    near: bool | None = None
    while True:
        if fr.step == "leave":
            if fr.cancelled or fr.index >= len(path) or f.dead or f.fled or f.unconscious or f.dying:
                fr.step = "mend"
                return
            fr.step = "go"
            src, dst = f.pos, path[fr.index]
            near = src is not None and ((near_bits[src] | near_bits[dst]) & hostiles) != 0
            if near:
                stack.append(Frame("window", "open", f.id, event="leave", src=src, dest=dst))
                return
        # go
        elif fr.cancelled or f.dead or f.fled or f.unconscious or f.dying:
            fr.step = "mend"
            return
        b = path[fr.index]
        if bit[b] & hostiles:
            combat.emit("move_stopped", f"{f.id} is stopped before {list(b)}", actor=f.id, rule="INV-4.5")
            fr.step = "mend"
            return
        a = f.pos
        cost = costs[index[b]]
        fr.spent += cost
        _move_to(combat, f, b, "INV-4.5", cost)
        fr.index += 1
        fr.step = "leave"
        if near is None:
            near = a is not None and ((near_bits[a] | near_bits[b]) & hostiles) != 0
        if near:
            stack.append(Frame("window", "open", f.id, event="enter", src=a, dest=b))
            return


def _settle(combat: InvCombat, st: InvState, f: Fighter, fr: Frame) -> None:
    """Put a mover stopped on a held square on the last square of its path it may end on (INV-4.5, section 5).

    A move may pass an ally's or an unconscious combatant's square but never end on one, so a hit (or a hostile
    in the way) that stops the mover there leaves it on the square before, its start at worst.
    """
    here = f.pos
    if here is None or not f.present:
        return

    def held(sq: tuple[int, int]) -> bool:
        return any(o is not f and o.pos == sq and o.present for o in st.fighters)

    if not held(here):
        return
    reached = [fr.src, *fr.path[:fr.index]] if fr.src is not None else fr.path[:fr.index]
    back = next((sq for sq in reversed(reached) if not held(sq)), fr.src)
    if back is None or back == here:
        return
    f.pos = back
    combat.emit("move_stopped", f"{f.id} may not end its move on {list(here)}, held by another combatant, "
                                f"and stops on {list(back)}", actor=f.id, rule="INV-4.5", src=here, dest=back)


def settle_unfinished_move(combat: InvCombat, setup: Setup, st: InvState) -> None:
    """A combat that ends in a long move's reaction window stops the mover there too (INV-4.5, INV-12.2)."""
    for fr in st.stack:
        if fr.kind == "action" and fr.verb == MOVE and fr.step in ("leave", "go", "mend"):
            _settle(combat, st, fighter(setup, st, fr.actor), fr)


def _move_end(combat: InvCombat, setup: Setup, st: InvState, f: Fighter, fr: Frame) -> None:
    _settle(combat, st, f, fr)
    f.move_spent += fr.spent
    prof = setup.prof(f.id)
    mode = setup.opt.full_mov_restriction
    applies = mode == "all" or (mode == "multi_action_only" and prof.actions >= 2)
    if applies and fr.spent == prof.mov:  # INV-4.9
        if setup.opt.full_mov_scope == "rest_of_round":
            add_condition(combat, f, Condition.FULL_MOV_LOCKOUT, "INV-4.9")
        else:
            f.lockout_next_round = True
            combat.emit("lockout_pending", f"{f.id} will have no standard action next round", actor=f.id,
                        rule="INV-4.9")
    st.stack.pop()
    st.dirty = True
