"""Setup phase (MOON-4), end phase (MOON-7) and deployment (MOON-3.1): the per-round steps around the main loop.

Per-combatant steps (escape, purge, setup skills, end skills, deploy) walk a queue fixed at the start of the
step (setup order, MOON-4.8); a combatant revived during the step gets a turn only if its place is still ahead
(MOON-11.4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import Action, Termination, shared_decision
from trpg_arena.rules.moonlit.fighters import (
    ABLE,
    active_wins,
    beats_target,
    check_end,
    check_mods,
    conditions_of,
    finish,
    lose_hp,
    remove_condition,
    roll_ap,
    roll_check,
    roll_dice,
    set_state,
    setup_key,
    vanish_summons_of,
)
from trpg_arena.rules.moonlit.model import MoonlitEncounter
from trpg_arena.rules.moonlit.skills import apply_skill, opposing_able, skill_actions
from trpg_arena.rules.moonlit.state import Fighter, MoonState
from trpg_arena.rules.moonlit.tables import Table
from trpg_arena.rules.moonlit.verbs import Condition, Verb

if TYPE_CHECKING:
    from trpg_arena.rules.moonlit.state import MoonCombat

DONE = Action(Verb.DONE)
ESCAPE = Action(Verb.ESCAPE)
STAY = Action(Verb.STAY)
DEPLOY = (Action(Verb.DEPLOY, None, None, "front"), Action(Verb.DEPLOY, None, None, "rear"))
PURGE = {cond: Action(Verb.PURGE, None, None, cond) for cond in Condition}


def setup_queue(st: MoonState, t: Table, by_ap: bool = False) -> list[str]:
    """Every combatant in setup order (MOON-4.8); eligibility is checked when its turn comes."""
    idx = {cid: n for n, cid in enumerate(st.order)}
    return sorted(st.order, key=lambda i: setup_key(st.fighters[i], t.stats[i], idx[i], by_ap))


# --- round start, entry, action points ------------------------------------------------------------
def round_start(c: MoonCombat) -> bool:
    """MOON-4.1: next round; able combatants become not_acted; AP cleared; per-round uses reset; round-1 ambush."""
    st = c.state
    st.round += 1
    st.phase = "setup"
    st.ap_rolled = False
    st.phase_used = []
    c.emit("round_start", f"round {st.round}", rule="MOON-4.1", round=st.round)
    c.emit("phase_start", "setup phase", rule="MOON-1.1", phase="setup")
    enc = c.encounter
    assert isinstance(enc, MoonlitEncounter)
    amb = set(enc.ambushed) if st.round == 1 else set()
    for i in st.order:
        f = st.fighters[i]
        f.used_round = {}
        if f.state in ABLE:
            f.ap = 0
            f.ap_roll = 0
            set_state(c, f, "not_acted", "round start", "MOON-4.1")
            if i in amb:
                f.mark_ambush = True  # MOON-14.6
                set_state(c, f, "acted", "ambushed", "MOON-14.6")
    st.step = "entry"
    return False


def entry(c: MoonCombat) -> bool:
    """MOON-4.2: scheduled arrivals enter and join the roster."""
    st = c.state
    t = c.tables
    for cid, (rnd, zone) in t.arrivals.items():
        f = st.fighters[cid]
        if rnd == st.round and f.state == "absent":
            f.zone = zone
            if cid in st.order:
                st.order.remove(cid)
            st.order.append(cid)
            set_state(c, f, "not_acted", "arrives", "MOON-4.2")
            c.emit("entered", f"{cid} enters {zone}", actor=cid, rule="MOON-4.2", combatant=cid, zone=zone)
    st.step = "escape"
    return False


def start_queue(c: MoonCombat, step: str) -> None:
    """Begin a per-combatant step in setup order (MOON-1.1), the same for 4.3, 4.7, 4.8 and 7.3.

    Under ``moon_setup_order_key: action_points`` AP is its first key, except for escape, which comes
    before AP exist this round (MOON-4.8).
    """
    st = c.state
    by_ap = step != "escape_q" and c.tables.opts.moon_setup_order_key == "action_points"
    st.queue = setup_queue(st, c.tables, by_ap)
    st.qpos = 0
    st.step = step


def escape_start(c: MoonCombat) -> bool:
    """MOON-4.3: escape decisions in setup order (by the Action stat) when the flag allows."""
    if c.tables.opts.moon_escape_enabled:
        start_queue(c, "escape_q")
    else:
        c.state.step = "action_points"
    return False


def escape_eligible(st: MoonState, t: Table, f: Fighter) -> bool:
    """MOON-4.3: able, not a summon, can_escape, and an able opposing combatant exists."""
    s = t.stats[f.id]
    if f.state not in ABLE or s.is_summon or not s.can_escape:
        return False
    side = s.side
    return any(st.fighters[i].state in ABLE and t.stats[i].side != side for i in st.order)


def resolve_escape(c: MoonCombat, f: Fighter) -> None:
    """MOON-4.3-4.5: escape check vs the best interceptor's check (ties to the interceptor)."""
    st = c.state
    t = c.tables
    opp = opposing_able(st, t, t.stats[f.id].side)
    here = [g for g in opp if g.zone == f.zone]
    pool = here or opp
    icp = pool[0]
    for g in pool[1:]:
        if t.stats[g.id].body > t.stats[icp.id].body:
            icp = g
    bonus = 0
    if here:  # MOON-4.4
        side = t.stats[f.id].side
        n_i = len(here)
        n_e = sum(1 for i in st.order if st.fighters[i].zone == f.zone and st.fighters[i].state in ABLE
                  and t.stats[i].side == side)
        bonus = max(0, n_i - n_e) if t.opts.moon_intercept_bonus == "excess" else max(0, n_i - 1)
    esc = roll_check(c, f.id, "escape check", t.stats[f.id].body, check_mods(f, False), "MOON-4.3", "body")
    mods = check_mods(icp, True)
    if bonus:
        mods = mods + [("interception bonus", bonus)]
    inter = roll_check(c, icp.id, "interception check", t.stats[icp.id].body, mods, "MOON-4.3", "body")
    ok = active_wins(esc, inter)
    c.emit("escape", f"{f.id} {'escapes' if ok else 'fails to escape'} ({icp.id} intercepts, +{bonus})", actor=f.id,
           rule="MOON-4.3", escaper=f.id, interceptor=icp.id, bonus=bonus, result="fled" if ok else "failed")
    if ok:
        set_state(c, f, "fled", "escaped", "MOON-4.3")
        f.zone = None
        f.pending = None
        vanish_summons_of(c, f.id)
    else:
        f.mark_escape = True  # MOON-4.5
        set_state(c, f, "acted", "failed escape", "MOON-4.5")


def action_points(c: MoonCombat) -> bool:
    """MOON-4.6: every able combatant rolls AP in roster order."""
    st = c.state
    for i in list(st.order):
        f = st.fighters[i]
        if f.state in ABLE:
            roll_ap(c, f, "round")
    st.ap_rolled = True
    start_queue(c, "purge")
    return False


# --- per-combatant queue steps --------------------------------------------------------------------------
def _purge_legal(c: MoonCombat, f: Fighter) -> list[Action]:
    if f.state not in ABLE or f.tp < 15:
        return []
    conds = conditions_of(f)
    return [PURGE[x] for x in conds] + [DONE] if conds else []


def _setup_legal(c: MoonCombat, f: Fighter) -> list[Action]:
    if not c.tables.stats[f.id].cat("setup"):
        return []
    acts = skill_actions(c, f, "setup")
    return acts + [DONE] if acts else []


def _end_legal(c: MoonCombat, f: Fighter) -> list[Action]:
    if not c.tables.stats[f.id].cat("end"):
        return []
    acts = skill_actions(c, f, "end")
    return acts + [DONE] if acts else []


def _deploy_legal(c: MoonCombat, f: Fighter) -> list[Action]:
    return list(DEPLOY)


def _escape_legal(c: MoonCombat, f: Fighter) -> list[Action]:
    st = c.state
    return [ESCAPE, STAY] if escape_eligible(st, c.tables, f) else []


_QUEUE_PROMPTS = {
    "deploy": "deploy in your side's front or rear row", "escape": "try to escape, or stay?",
    "purge": "pay 15 TP to shake off a condition (2D6 vs 7)?", "setup_skill": "use a setup-phase skill?",
    "end_skill": "use an end-phase skill?",
}

QUEUE_STEPS = {
    "deploy": ("deploy", _deploy_legal, "round_start"),
    "escape_q": ("escape", _escape_legal, "action_points"),
    "purge": ("purge", _purge_legal, "setup_skills_start"),
    "setup_skills": ("setup_skill", _setup_legal, "setup_done"),
    "end_skills": ("end_skill", _end_legal, "round_end"),
}


def queue_legal(c: MoonCombat) -> list[Action]:
    """Legal actions at a per-combatant step."""
    st = c.state
    f = st.fighters[st.queue[st.qpos]]
    return QUEUE_STEPS[st.step][1](c, f)


def queue_run(c: MoonCombat) -> bool:
    """Walk the queue to the next combatant with a decision, or finish the step."""
    st = c.state
    kind, legal, nxt = QUEUE_STEPS[st.step]
    while st.qpos < len(st.queue):
        f = st.fighters[st.queue[st.qpos]]
        if legal(c, f):
            st.decision = shared_decision(f.id, kind, _QUEUE_PROMPTS[kind])
            return True
        st.qpos += 1
    st.step = nxt
    return False


def queue_apply(c: MoonCombat, a: Action) -> None:
    """Apply a per-combatant step decision; `done` (and one-shot choices) move to the next combatant."""
    st = c.state
    f = st.fighters[st.queue[st.qpos]]
    st.decision = None
    v = a.verb
    if v == Verb.DONE:
        st.qpos += 1
    elif v == Verb.DEPLOY:
        f.zone = f"{c.tables.stats[f.id].side}_{a.option}"  # MOON-3.1
        c.emit("moved", f"{f.id} deploys in {f.zone}", actor=f.id, rule="MOON-3.1", combatant=f.id, **{"from": None},
               to=f.zone, path=[f.zone])
        st.qpos += 1
    elif v == Verb.STAY:
        st.qpos += 1
    elif v == Verb.ESCAPE:
        st.qpos += 1
        resolve_escape(c, f)
        check_end(c)
    elif v == Verb.PURGE:
        purge(c, f, str(a.option))
    elif v == Verb.USE_SKILL:
        apply_skill(c, f, a)
        if st.step == "end_skills":
            check_end(c)


def purge(c: MoonCombat, f: Fighter, cond: str) -> None:
    """MOON-4.7: pay 15 TP, removal check (2D6 + modifiers) against 7; success removes the named condition."""
    f.tp -= 15
    ch = roll_check(c, f.id, f"removal check ({cond})", 0, check_mods(f, False), "MOON-4.7")
    if beats_target(ch, 7):
        remove_condition(c, f, cond, "removal check")
    else:
        c.emit("purge_failed", f"{f.id} fails to shake off {cond}", actor=f.id, rule="MOON-4.7", combatant=f.id,
               condition=cond)


def setup_skills_start(c: MoonCombat) -> bool:
    """MOON-4.8: setup skills in setup order (by Action, or by AP with the flag)."""
    c.state.phase_used = []
    start_queue(c, "setup_skills")
    return False


def setup_done(c: MoonCombat) -> bool:
    """End of the setup phase: end-of-combat check, then the decision/main loop."""
    st = c.state
    if check_end(c):
        return False
    st.phase = "main"
    c.emit("phase_start", "main phase", rule="MOON-1.1", phase="main")
    st.step = "decide"
    return False


# --- end phase -----------------------------------------------------------------------------------------
def end_phase(c: MoonCombat) -> bool:
    """MOON-7.1 (poison, then hazards) and MOON-7.2 (expiry), then end-phase skills."""
    st = c.state
    t = c.tables
    st.phase = "end"
    st.actor = None
    c.emit("phase_start", "end phase", rule="MOON-1.1", phase="end")
    for i in list(st.order):  # MOON-13.2
        f = st.fighters[i]
        if f.poison and f.state in ("not_acted", "standby", "acted", "incapacitated"):
            loss = f.poison * max(1, f.max_hp // 10)
            if f.hp > 0:
                lose_hp(c, f, loss, "poison", actual=True)
    if t.hazards:  # MOON-14.7
        for i in list(st.order):
            f = st.fighters[i]
            for zone, n in t.hazards:
                if f.state in ABLE and f.zone == zone:
                    other_damage(c, f, n)
    if check_end(c):
        return False
    for i in st.order:  # MOON-7.2
        f = st.fighters[i]
        if f.effects:
            f.effects = [e for e in f.effects if e.duration != "round"]
        f.mark_ambush = False
        f.mark_escape = False
    st.phase_used = []
    start_queue(c, "end_skills")
    return False


def other_damage(c: MoonCombat, f: Fighter, n: int) -> None:
    """MOON-14.7: 1D6 + n; with ``moon_other_damage_defended`` a (Defense + armour) d6 roll is subtracted first."""
    t = c.tables
    dmg = sum(roll_dice(c, 1, f.id, "other damage", "MOON-14.7")) + n
    if t.opts.moon_other_damage_defended:
        s = t.stats[f.id]
        nd = s.defense + s.armour_dice
        red = sum(roll_dice(c, nd, f.id, "defense reduction", "MOON-14.7")) if nd > 0 else 0
        diff = dmg - red
        dmg = diff if diff >= t.opts.moon_damage_threshold else 0
    lose_hp(c, f, dmg, "other", actual=True)


def round_end(c: MoonCombat) -> bool:
    """MOON-7.5: end-of-combat check, then the round cap (draw) or the next round."""
    st = c.state
    if check_end(c):
        return False
    if st.round >= c.tables.opts.moon_round_cap:
        finish(c, None, Termination.ROUND_CAP)
        return False
    st.step = "round_start"
    return False
