"""Reactions and the pre-damage window of the attack in ``state.atk``.

Dodge or counter (MOON-8.8, 8.9, 10.1, 10.4), hit and counter decisions (8.11, 10.5), cover offers (14.1) and
interrupt offers (15.5, 9.3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import Action
from trpg_arena.rules.moonlit.data import SKILLS
from trpg_arena.rules.moonlit.fighters import (
    ABLE,
    active_wins,
    check_mods,
    first_by_priority,
    hit_mods,
    roll_check,
)
from trpg_arena.rules.moonlit.skills import count_use, reaches, usable
from trpg_arena.rules.moonlit.state import AttackFrame, Check, Fighter, MoonState
from trpg_arena.rules.moonlit.tables import Table
from trpg_arena.rules.moonlit.verbs import Verb

if TYPE_CHECKING:
    from trpg_arena.rules.moonlit.state import MoonCombat


def counter_ok(st: MoonState, t: Table, tgt: Fighter, x: Fighter) -> bool:
    """MOON-10.1: standby, pending skill usable now (ignoring TP and uses), attacker a legal target for it."""
    if tgt.state != "standby" or tgt.pending is None:
        return False
    sk = SKILLS[tgt.pending.skill]
    if not usable(tgt, sk, ignore_uses=True):
        return False
    return t.stats[x.id].side != t.stats[tgt.id].side and reaches(t, sk, tgt.zone, x.zone)


def react(c: MoonCombat, st: MoonState, a: AttackFrame, x: Fighter, act: Action) -> None:
    """A target's reaction (MOON-8.8, 8.9, 10.1) and its check."""
    t = c.tables
    tgt = st.fighters[a.decl.targets[a.ti]]
    hit = a.hit
    assert hit is not None
    sk = SKILLS[a.decl.skill]
    a.ti += 1
    if act.verb == Verb.COUNTER:
        # MOON-10.1: the pending attack is spent on the counter; T is "countering" until MOON-10.12.
        tgt.countering = True
        a.reaction[tgt.id] = Verb.COUNTER
        a.countered.append(tgt.id)
        p = tgt.pending
        assert p is not None
        tsk = SKILLS[p.skill]
        a.checks[tgt.id] = roll_check(c, tgt.id, f"counter check ({tsk.id})", t.stats[tgt.id].stat(str(tsk.type)),
                                      hit_mods(t, tgt, tsk, p.offense), "MOON-10.4", str(tsk.type))
        return
    skill = None if act.option == "none" else SKILLS[str(act.option)]
    if skill is not None:
        tgt.tp -= skill.tp  # MOON-8.9
        count_use(tgt, skill.id)
        a.dodge_skill[tgt.id] = skill.id
        c.emit("skill_used", f"{tgt.id} uses {skill.id}", actor=tgt.id, rule="MOON-8.9", user=tgt.id, id=skill.id,
               target=tgt.id, costs={"tp": skill.tp})
        if skill.reduction_mod:
            a.reductions.setdefault(tgt.id, {})[skill.id] = skill.reduction_mod
    if hit.fumble:
        a.reaction[tgt.id] = "miss"
        return
    if skill is not None and skill.auto_dodge:
        a.reaction[tgt.id] = "auto"  # origin_stop: no dodge dice
        return
    a.reaction[tgt.id] = Verb.DODGE
    mods = list(check_mods(tgt, passive=True))
    if skill is not None and skill.dodge_mod:
        mods.append((skill.id, skill.dodge_mod))
    a.checks[tgt.id] = roll_check(c, tgt.id, "dodge check", t.stats[tgt.id].stat(str(sk.type)), mods, "MOON-8.8",
                                  str(sk.type))


def _rank(ch: Check) -> int:
    return 0 if ch.fumble else 2 if ch.crit else 1


def decide_hits(c: MoonCombat, st: MoonState, a: AttackFrame, x: Fighter) -> None:
    """MOON-8.11 hit decisions and MOON-10.5 counter decisions, in target order."""
    hit = a.hit
    assert hit is not None
    for tid in a.decl.targets:
        r = a.reaction.get(tid, "miss")
        if r == Verb.COUNTER:
            ch = a.checks[tid]
            rx, rt = _rank(hit), _rank(ch)
            if rx != rt:
                out = "attacker" if rx > rt else "counter"
            elif rx == 1 and hit.total != ch.total:
                out = "attacker" if hit.total > ch.total else "counter"
            else:
                out = "tie"
            c.emit("counter_decided", f"{tid}'s counter vs {x.id}: " + {"attacker": f"{x.id} wins",
                                                                        "counter": "counter succeeds",
                                                                        "tie": "tie"}[out],
                   actor=tid, rule="MOON-10.5", attacker=x.id, counterer=tid, outcome=out)
            if out == "attacker":
                a.hits.append(tid)  # MOON-10.6
            elif out == "counter":
                a.counters.append(tid)  # MOON-10.7
            continue
        is_hit = r == Verb.DODGE and active_wins(hit, a.checks[tid])
        c.emit("hit_decided", f"{x.id} {'hits' if is_hit else 'misses'} {tid}", actor=x.id, rule="MOON-8.11",
               attacker=x.id, target=tid, hit=is_hit)
        if is_hit:
            a.hits.append(tid)


def next_coverer(st: MoonState, t: Table, a: AttackFrame, x: Fighter, h: Fighter) -> Fighter | None:
    """MOON-14.1: the next eligible coverer of h not yet offered, in priority order."""
    side = t.stats[h.id].side
    taken = set(a.cover.values())
    return first_by_priority(st, t, lambda i, g: (
        g.state in ("not_acted", "standby") and i != h.id and i != x.id and g.zone == h.zone
        and t.stats[i].side == side and i not in a.decl.targets and i not in taken and i not in a.offered))


def receivers(a: AttackFrame) -> list[str]:
    """Damage receivers of the normal path (coverers in place of the covered), target order."""
    return [a.cover.get(h, h) for h in a.hits]


def interrupt_options(c: MoonCombat, g: Fighter) -> list[Action]:
    """MOON-15.5: interrupt skills g could use now, on receivers of this attack in g's zone."""
    st = c.state
    t = c.tables
    a = st.atk
    assert a is not None
    recv = [r for r in receivers(a) if st.fighters[r].zone == g.zone]
    return [Action(Verb.INTERRUPT, r, None, sk.id) for sk in (t.stats[g.id].cat("interrupt") if recv else ())
            if sk.window == "pre_damage" and usable(g, sk) and sk.tp <= g.tp for r in recv]


def next_interrupter(c: MoonCombat, st: MoonState, t: Table, a: AttackFrame) -> Fighter | None:
    """MOON-15.5: the next combatant (priority order) with an interrupt it could use now, not yet offered."""
    return first_by_priority(st, t, lambda i, g: g.state in ABLE and i not in a.offered
                             and bool(t.stats[i].cat("interrupt")) and bool(interrupt_options(c, g)))
