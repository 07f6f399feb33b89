"""The attack procedure (MOON-8): declaration, standby step, hit check, reactions, hit decision, pre-damage window.

Damage and the counter exchange live in damage.py. The attack in progress is the `AttackFrame` in
``state.atk``; its ``stage`` says where it stands, so it snapshots and resumes at any decision point.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import Action, shared_decision
from trpg_arena.rules.moonlit import window
from trpg_arena.rules.moonlit.data import SKILLS, ZONE_INDEX, Skill
from trpg_arena.rules.moonlit.fighters import (
    ABLE,
    ap_drop,
    hit_mods,
    lose_hp,
    roll_check,
    set_state,
)
from trpg_arena.rules.moonlit.skills import count_use, opposing_able, reaches, usable
from trpg_arena.rules.moonlit.state import AttackFrame, Fighter, MoonState, PendingAttack
from trpg_arena.rules.moonlit.tables import Table
from trpg_arena.rules.moonlit.verbs import Verb

if TYPE_CHECKING:
    from trpg_arena.rules.moonlit.state import MoonCombat

NONE_OFFENSE = Action(Verb.OFFENSE, None, None, "none")
NONE_LIMIT = Action(Verb.LIMIT_BREAK, None, None, "none")
TARGET_DONE = Action(Verb.TARGET_DONE)
DODGE_NONE = Action(Verb.DODGE, None, None, "none")
COUNTER = Action(Verb.COUNTER)
COVER = Action(Verb.COVER)
DECLINE = Action(Verb.DECLINE)


# --- legality helpers -------------------------------------------------------------------------------
def legal_targets(st: MoonState, t: Table, f: Fighter, sk: Skill) -> list[Fighter]:
    """Able opposing combatants within the skill's reach (MOON-3.4-3.6, 8.4)."""
    side = t.stats[f.id].side
    return [g for g in opposing_able(st, t, side) if reaches(t, sk, f.zone, g.zone)]


def target_zones(st: MoonState, t: Table, f: Fighter, sk: Skill) -> list[str]:
    """Zones a zone attack may choose: within reach with at least one able opposing combatant (MOON-3.6)."""
    if sk.scope == "global":
        return []
    zones = {g.zone for g in legal_targets(st, t, f, sk) if g.zone is not None
             and (sk.scope == "zone_any" or g.zone == f.zone)}
    return sorted(zones, key=ZONE_INDEX.__getitem__)


def offense_ok(f: Fighter, atk: Skill, off: Skill, tp_so_far: int) -> bool:
    """MOON-8.3: usable, compatible, and the running TP total stays within TP."""
    if atk.type not in off.compat or (off.single_only and atk.scope != "single"):
        return False
    return usable(f, off) and tp_so_far + off.tp <= f.tp


def decl_tp(decl: PendingAttack) -> int:
    """TP of every skill declared so far."""
    return SKILLS[decl.skill].tp + sum(SKILLS[o].tp for o in decl.offense)


# --- declaration ---------------------------------------------------------------------------------------
def begin(c: MoonCombat, f: Fighter, skill: str) -> None:
    """Main action `attack`: open the declaration (MOON-6.7, 8.2)."""
    st = c.state
    st.atk = AttackFrame(attacker=f.id, decl=PendingAttack(skill=skill))
    st.step = "attack"


def legal(c: MoonCombat) -> list[Action]:
    """Legal actions at the open attack decision point."""
    st = c.state
    t = c.tables
    a = st.atk
    assert a is not None
    x = st.fighters[a.attacker]
    atk_sk = SKILLS[a.decl.skill]
    stage = a.stage
    if stage == "offense":
        so_far = atk_sk.tp
        return [NONE_OFFENSE] + [Action(Verb.OFFENSE, None, None, o.id) for o in t.stats[x.id].cat("offense")
                                 if offense_ok(x, atk_sk, o, so_far)]
    if stage == "limit":
        out = [NONE_LIMIT]
        if x.hp > 30:  # MOON-14.10
            so_far = decl_tp(a.decl)
            out += [Action(Verb.LIMIT_BREAK, None, None, o.id) for o in t.stats[x.id].cat("offense")
                    if o.id not in a.decl.offense and offense_ok(x, atk_sk, o, so_far)]
        return out
    if stage == "target":
        if atk_sk.scope == "single":
            out = [Action(Verb.TARGET, g.id) for g in legal_targets(st, t, x, atk_sk) if g.id not in a.decl.targets]
            if a.decl.targets:
                out.append(TARGET_DONE)
            return out
        return [Action(Verb.TARGET, z) for z in target_zones(st, t, x, atk_sk)]
    if stage == "react":
        tgt = st.fighters[a.decl.targets[a.ti]]
        hit = a.hit
        assert hit is not None
        if hit.fumble:
            return [DODGE_NONE, COUNTER]
        out = [DODGE_NONE] + [Action(Verb.DODGE, None, None, d.id) for d in t.stats[tgt.id].cat("defense")
                              if usable(tgt, d) and d.tp <= tgt.tp]
        if window.counter_ok(st, t, tgt, x):
            out.append(COUNTER)
        return out
    if stage == "cover":
        return [COVER, DECLINE]
    if stage == "interrupt":
        return window.interrupt_options(c, st.fighters[st.decision.actor]) + [DECLINE] if st.decision else [DECLINE]
    raise RuntimeError(f"no decision at attack stage {stage}")


def apply(c: MoonCombat, act: Action) -> None:
    """Apply an attack decision."""
    st = c.state
    a = st.atk
    assert a is not None
    x = st.fighters[a.attacker]
    atk_sk = SKILLS[a.decl.skill]
    stage = a.stage
    if stage == "offense":
        if act.option == "none":
            a.stage = "target"
        else:
            a.decl.offense.append(str(act.option))  # MOON-8.3
            a.stage = "limit"
    elif stage == "limit":
        if act.option != "none":
            a.decl.offense.append(str(act.option))  # MOON-14.10
            a.decl.limit_break = True
        a.stage = "target"
    elif stage == "target":
        if act.verb == Verb.TARGET_DONE:
            declare(c, st, a, x)
        elif atk_sk.scope == "single":
            a.decl.targets.append(str(act.target))
            extra = sum(SKILLS[o].extra_targets for o in a.decl.offense)
            if len(a.decl.targets) >= 1 + extra or not any(
                    g.id not in a.decl.targets for g in legal_targets(st, c.tables, x, atk_sk)):
                declare(c, st, a, x)
        else:
            a.decl.zone = str(act.target)
            declare(c, st, a, x)
    elif stage == "react":
        window.react(c, st, a, x, act)
    elif stage == "cover":
        tgt_id = a.hits[a.ti]
        d = st.decision
        assert d is not None
        g = st.fighters[d.actor]
        if act.verb == Verb.COVER:
            a.cover[tgt_id] = g.id
            c.emit("cover", f"{g.id} covers {tgt_id} (10 AP)", actor=g.id, rule="MOON-14.1", coverer=g.id,
                   covered=tgt_id, ap=10)
            ap_drop(c, g, 10, "cover")  # MOON-14.1 / 2.7
            a.ti += 1
            a.offered = []
        else:
            a.offered.append(g.id)
    elif stage == "interrupt":
        d = st.decision
        assert d is not None
        g = st.fighters[d.actor]
        a.offered.append(g.id)
        if act.verb == Verb.INTERRUPT:
            sk = SKILLS[str(act.option)]
            g.tp -= sk.tp
            count_use(g, sk.id)
            c.emit("skill_used", f"{g.id} uses {sk.id} on {act.target}", actor=g.id, rule="MOON-15.5", user=g.id,
                   id=sk.id, target=act.target, costs={"tp": sk.tp})
            # MOON-14.2: keyed by (skill, receiver); a second seal on the same receiver replaces the first.
            a.reductions.setdefault(str(act.target), {})[sk.id] = sk.reduction_mod
    st.decision = None


def declare(c: MoonCombat, st: MoonState, a: AttackFrame, x: Fighter) -> None:
    """MOON-8.4 costs, then the standby step (MOON-8.5)."""
    d = a.decl
    tp = decl_tp(d)
    x.tp -= tp
    for sid in [d.skill] + d.offense:
        count_use(x, sid)
    c.emit("attack_declared", f"{x.id} attacks with {'+'.join([d.skill] + d.offense)} -> "
           f"{', '.join(d.targets) or d.zone or 'everyone'}" + (" (limit break)" if d.limit_break else ""),
           actor=x.id, rule="MOON-8.4", attacker=x.id, skills=[d.skill] + d.offense,
           targets=list(d.targets) if d.targets else d.zone, limit_break=d.limit_break, tp=tp)
    if d.limit_break:
        lose_hp(c, x, 30, "limit_break", actual=False)  # MOON-14.10: not actual damage
    delay = sum(SKILLS[s].delay for s in [d.skill] + d.offense)
    if delay > 0:
        x.ap -= delay  # MOON-8.5
        x.pending = d
        set_state(c, x, "standby", "standby step", "MOON-8.5")
        c.emit("standby_entered", f"{x.id} charges (AP -{delay} -> {x.ap})", actor=x.id, rule="MOON-8.5",
               combatant=x.id, ap=x.ap, delay=delay)
        st.atk = None
        st.step = "decide"
        return
    a.stage = "hit"


def continue_standby(c: MoonCombat, x: Fighter) -> None:
    """MOON-8.6: a selected standby combatant resumes its pending attack at the hit check."""
    st = c.state
    d = x.pending
    x.pending = None
    st.step = "attack"
    if d is None:
        st.atk = AttackFrame(attacker=x.id, decl=PendingAttack(skill=""), stage="fizzle", continuation=True)
        return
    st.atk = AttackFrame(attacker=x.id, decl=d, stage="hit", continuation=True)


def current_targets(st: MoonState, t: Table, x: Fighter, d: PendingAttack) -> list[str]:
    """Targets at the hit check (MOON-3.6, 8.6): re-validated chosen targets, or the zone's / everyone now."""
    sk = SKILLS[d.skill]
    side = t.stats[x.id].side
    fs = st.fighters
    if sk.scope == "single":
        return [i for i in d.targets if fs[i].state in ABLE and t.stats[i].side != side
                and reaches(t, sk, x.zone, fs[i].zone)]
    out = []
    allies = t.opts.moon_zone_attack_hits_allies
    zone = d.zone if sk.scope == "zone_any" else x.zone
    for i in st.order:
        g = fs[i]
        if g.state not in ABLE or i == x.id:
            continue
        if sk.scope != "global":
            if g.zone != zone or not reaches(t, sk, x.zone, zone):
                continue
            if t.stats[i].side == side and not allies:
                continue
        elif t.stats[i].side == side:
            continue
        out.append(i)
    return out


def run(c: MoonCombat) -> bool:
    """Advance the attack until a decision point (True) or its end (False: back to the decision phase)."""
    from trpg_arena.rules.moonlit.damage import resolve_damage

    st = c.state
    t = c.tables
    a = st.atk
    assert a is not None
    x = st.fighters[a.attacker]
    while True:
        stage = a.stage
        if stage in ("offense", "limit", "target"):
            sk = SKILLS[a.decl.skill]
            if stage == "target" and sk.scope == "global":
                declare(c, st, a, x)
                if st.atk is None:
                    return False
                continue
            return _open(st, x.id, {"offense": "offense", "limit": "limit_break", "target": "target"}[stage])
        if stage == "fizzle":
            _fizzle(c, st, x)
            return False
        if stage == "hit":
            sk = SKILLS[a.decl.skill]
            if a.continuation and not usable(x, sk, ignore_uses=True):
                _fizzle(c, st, x)
                return False
            a.decl.targets = current_targets(st, t, x, a.decl)
            if not a.decl.targets:
                _fizzle(c, st, x)
                return False
            a.hit = roll_check(c, x.id, f"hit check ({sk.id})", t.stats[x.id].stat(str(sk.type)),
                               hit_mods(t, x, sk, a.decl.offense), "MOON-8.7", str(sk.type))
            a.stage = "react"
            a.ti = 0
            continue
        if stage == "react":
            hit = a.hit
            assert hit is not None
            while a.ti < len(a.decl.targets):
                tgt = st.fighters[a.decl.targets[a.ti]]
                if hit.fumble and not window.counter_ok(st, t, tgt, x):
                    a.reaction[tgt.id] = "miss"  # MOON-8.7: a fumble misses everyone, no decision
                    a.ti += 1
                    continue
                return _open(st, tgt.id, "reaction", counter=window.counter_ok(st, t, tgt, x))
            window.decide_hits(c, st, a, x)
            a.stage = "cover"
            a.ti = 0
            a.offered = []
            continue
        if stage == "cover":
            while a.ti < len(a.hits):
                h = st.fighters[a.hits[a.ti]]
                nxt = window.next_coverer(st, t, a, x, h)
                if nxt is None:
                    a.ti += 1
                    a.offered = []
                    continue
                return _open(st, nxt.id, "cover")
            a.stage = "interrupt"
            a.offered = []
            continue
        if stage == "interrupt":
            nxt = window.next_interrupter(c, st, t, a) if a.hits else None
            if nxt is not None:
                return _open(st, nxt.id, "interrupt")
            a.stage = "damage"
            continue
        if stage == "damage":
            resolve_damage(c, st, t, a, x)
            return False
        raise RuntimeError(f"unknown attack stage {stage}")


_PROMPTS = {
    "offense": "add an offense skill to {skill}?", "limit_break": "limit break (30 HP) for one more offense skill?",
    "target": "choose a target for {skill}", "reaction": "{attacker}'s {skill} rolled {hit}: {answers}?",
    "cover": "cover {hit_target} from {attacker}'s {skill} (10 AP)?", "interrupt": "interrupt before the damage?",
}


def _open(st: MoonState, actor: str, kind: str, counter: bool = False) -> bool:
    """Open a decision of the attack; a reaction's prompt offers `counter` only where it is legal (MOON-10.1)."""
    a = st.atk
    assert a is not None
    hit_target = a.hits[a.ti] if kind == "cover" and a.ti < len(a.hits) else ""
    prompt = _PROMPTS[kind].format(skill=a.decl.skill, attacker=a.attacker, hit=a.hit.total if a.hit else "",
                                   hit_target=hit_target, answers="dodge or counter" if counter else "dodge")
    st.decision = shared_decision(actor, kind, prompt)
    return True


def _fizzle(c: MoonCombat, st: MoonState, x: Fighter) -> None:
    c.emit("attack_fizzled", f"{x.id}'s charged attack fizzles", actor=x.id, rule="MOON-8.6", combatant=x.id)
    x.pending = None
    st.atk = None
    if x.state in ABLE:
        set_state(c, x, "acted", "attack fizzled", "MOON-8.6")
    st.step = "decide"


