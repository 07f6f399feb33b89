"""The decision phase (MOON-5) and the main-phase decision (MOON-6): move, delay, pass, coup de grace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import Action, shared_actions, shared_decision
from trpg_arena.rules.moonlit import attack
from trpg_arena.rules.moonlit.data import ZONE_INDEX, ZONES
from trpg_arena.rules.moonlit.fighters import ABLE, check_end, priority_key, set_state
from trpg_arena.rules.moonlit.skills import apply_item, apply_skill, item_actions, reaches, skill_actions, usable
from trpg_arena.rules.moonlit.state import Fighter, MoonState
from trpg_arena.rules.moonlit.tables import Table
from trpg_arena.rules.moonlit.verbs import Verb

if TYPE_CHECKING:
    from trpg_arena.rules.moonlit.state import MoonCombat

act = shared_actions()  # the one shared `Action` of its fields: a main decision's delays and attacks are built once
PASS = Action(Verb.PASS)
_DELAY_LIST: list[Action] = [act(Verb.DELAY, None, None, v) for v in range(1, 121)]
_MOVES = {z: Action(Verb.MOVE, None, z) for z in ZONES}


def decide(c: MoonCombat) -> bool:
    """MOON-5.1-5.3: pick the next actor by AP (ties: pc, effective Action, roster order); none -> end phase."""
    st = c.state
    t = c.tables
    # `first_by_priority` written out: the next actor is looked for at every turn
    best: Fighter | None = None
    best_key = None
    fs = st.fighters
    for n, i in enumerate(st.order):
        f = fs[i]
        if f.state != "not_acted" and f.state != "standby":
            continue
        k = priority_key(f, t.stats[i], n)
        if best_key is None or k < best_key:
            best, best_key = f, k
    if best is None:
        st.step = "end"  # MOON-5.3
        return False
    st.actor = best.id
    if best.state == "standby":
        attack.continue_standby(c, best)  # MOON-6.1 / 8.6
        return False
    st.step = "main"
    st.decision = shared_decision(best.id, "main", f"main action (AP {best.ap})")
    return True


def can_leave(st: MoonState, t: Table, f: Fighter, zone: str) -> tuple[bool, int, int]:
    """MOON-3.3: may f leave `zone`? (F > O or O = 0; always with ``moon_blocking: off``). Returns (ok, F, O)."""
    if t.opts.moon_blocking == "off":
        return True, 0, 0
    side = t.stats[f.id].side
    fs = st.fighters
    # one entry per able combatant in the zone: whether it is on f's side
    present = [t.stats[i].side == side for i in st.order if fs[i].zone == zone and fs[i].state in ABLE]
    friends = sum(present)
    opp = len(present) - friends
    return (opp == 0 or friends > opp), friends, opp


def main_legal(c: MoonCombat) -> list[Action]:
    """The main-phase decision point (section 7)."""
    st = c.state
    t = c.tables
    f = st.fighters[str(st.actor)]
    s = t.stats[f.id]
    out = [PASS]
    top = min(f.ap - 1, t.delay_bound)
    if top > 0:  # MOON-6.3
        out.extend(_DELAY_LIST[:top] if top <= len(_DELAY_LIST)
                   else [act(Verb.DELAY, None, None, v) for v in range(1, top + 1)])
    if not f.paralysis and f.zone is not None and can_leave(st, t, f, f.zone)[0]:  # MOON-6.6 / 13.3
        out.extend(_MOVES[z] for z in ZONES if z != f.zone)
    atk = s.cat("attack")
    if atk:  # MOON-8.2: usable, affordable, with a legal target (one pass over the opponents)
        side = s.side
        fs = st.fighters
        stats = t.stats
        opp_zones = {fs[i].zone for i in st.order if fs[i].state in ABLE and stats[i].side != side}
        here = f.zone in opp_zones
        far = "same_zone" == t.opts.moon_mental_range
        if opp_zones:  # a skill that reaches only its own zone needs an opponent there
            out.extend(act(Verb.ATTACK, None, None, sk.id) for sk in atk if sk.tp <= f.tp and usable(f, sk)
                       and (here or not (sk.type == "melee" or (far and sk.type == "mental"))))
    if s.cat("normal"):
        out.extend(skill_actions(c, f, "normal"))
    if f.items:
        out.extend(item_actions(c, f))
    if st.downed:
        out.extend(coup_targets(st, t, f))
    return out


def coup_targets(st: MoonState, t: Table, f: Fighter) -> list[Action]:
    """MOON-6.10: incapacitated opposing combatants in f's zone or within reach of a usable attack-type skill."""
    side = t.stats[f.id].side
    skills = [sk for sk in t.stats[f.id].cat("attack") if usable(f, sk) and sk.tp <= f.tp]
    out = []
    for i in st.order:
        g = st.fighters[i]
        if g.state != "incapacitated" or t.stats[i].side == side:
            continue
        if g.zone == f.zone or any(reaches(t, sk, f.zone, g.zone) for sk in skills):
            out.append(Action(Verb.COUP_DE_GRACE, i))
    return out


def main_apply(c: MoonCombat, a: Action) -> None:
    """Apply the actor's main-phase choice (MOON-6.3-6.10, 6.14)."""
    st = c.state
    f = st.fighters[str(st.actor)]
    st.decision = None
    v = a.verb
    if v == Verb.PASS:
        set_state(c, f, "acted", "pass", "MOON-6.4")
        st.step = "decide"
        return
    if v == Verb.DELAY:
        old = f.ap
        f.ap = int(a.option)
        c.emit("ap_set", f"{f.id} delays: AP {old} -> {f.ap}", actor=f.id, rule="MOON-6.3", combatant=f.id, ap=f.ap,
               ap_roll=f.ap_roll, cause="delay")
        st.step = "decide"
        return
    if v == Verb.ATTACK:
        attack.begin(c, f, str(a.option))
        return
    if v == Verb.MOVE:
        move(c, st, c.tables, f, str(a.dest))
    elif v == Verb.USE_SKILL:
        apply_skill(c, f, a)
    elif v == Verb.USE_ITEM:
        apply_item(c, f, a)
    elif v == Verb.COUP_DE_GRACE:
        g = st.fighters[str(a.target)]
        c.emit("coup_de_grace", f"{f.id} finishes {g.id}", actor=f.id, rule="MOON-6.10", attacker=f.id, target=g.id)
        set_state(c, g, "dead", "coup de grace", "MOON-6.10")
    if f.state in ABLE:
        set_state(c, f, "acted", v, "MOON-6.14")
    st.step = "decide"
    check_end(c)


def move(c: MoonCombat, st: MoonState, t: Table, f: Fighter, dest: str) -> None:
    """MOON-3.2 / 3.3: step along the line; stop in the first zone the mover may not leave."""
    start = str(f.zone)
    i, j = ZONE_INDEX[start], ZONE_INDEX[dest]
    step = 1 if j > i else -1
    path = [start]
    cur = start
    while cur != dest:
        ok, fr, op = can_leave(st, t, f, cur)
        if not ok:
            c.emit("move_blocked", f"{f.id} is held in {cur} (F {fr} vs O {op})", actor=f.id, rule="MOON-3.3",
                   combatant=f.id, zone=cur, F=fr, O=op)
            break
        cur = ZONES[ZONE_INDEX[cur] + step]
        f.zone = cur
        path.append(cur)
    c.emit("moved", f"{f.id} moves {start} -> {cur}", actor=f.id, rule="MOON-3.2", combatant=f.id,
           **{"from": start}, to=cur, path=path)

