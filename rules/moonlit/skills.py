"""Skill usability (MOON-15.3), reach (MOON-3.4/3.5, 14.9), and non-attack skills and items (6.8, 6.9, 15.7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import Action
from trpg_arena.rules.moonlit.data import ITEMS, SKILLS, Skill
from trpg_arena.rules.moonlit.fighters import (
    ABLE,
    GONE,
    add_effect,
    conditions_of,
    heal,
    remove_condition,
    roll_ap,
    roll_dice,
    set_state,
    vanish,
)
from trpg_arena.rules.moonlit.state import Fighter, MoonState
from trpg_arena.rules.moonlit.tables import Table
from trpg_arena.rules.moonlit.verbs import SkillChoice, Verb

if TYPE_CHECKING:
    from trpg_arena.rules.moonlit.state import MoonCombat


def usable(f: Fighter, sk: Skill, ignore_uses: bool = False) -> bool:
    """MOON-15.3: able, not forbidden by trance (13.5) or baptism (13.6), within `uses`, interrupts not in standby."""
    if f.state not in ABLE:
        return False
    if f.trance and sk.category != "normal":
        return False
    if f.baptism and sk.negated_by_baptism:
        return False
    if sk.category == "interrupt" and f.state == "standby":
        return False  # MOON-9.3
    if not ignore_uses:
        if sk.per_round and f.used_round.get(sk.id, 0) >= sk.per_round:
            return False
        if sk.per_combat and f.used_combat.get(sk.id, 0) >= sk.per_combat:
            return False
    return True


def count_use(f: Fighter, sid: str) -> None:
    """Increment usage counters (MOON-15.2)."""
    f.used_round[sid] = f.used_round.get(sid, 0) + 1
    f.used_combat[sid] = f.used_combat.get(sid, 0) + 1


def reaches(t: Table, sk: Skill, frm: str | None, to: str | None) -> bool:
    """Whether an attack-type skill used from zone `frm` reaches zone `to` (MOON-3.4, 3.5, 14.9)."""
    if frm is None or to is None:
        return False
    if sk.type == "melee":
        return frm == to
    if sk.type == "mental" and t.opts.moon_mental_range == "same_zone":
        return frm == to
    return True


def opposing_able(st: MoonState, t: Table, side: str) -> list[Fighter]:
    """Able combatants opposing `side`, roster order."""
    fs = st.fighters
    stats = t.stats
    return [fs[i] for i in st.order if fs[i].state in ABLE and stats[i].side != side]


def _ally_ok(g: Fighter, sk: Skill) -> bool:
    """An ally a skill may target: an able one, or an incapacitated one for healing only (MOON-2.5, 11.3)."""
    return g.state in ABLE or (g.state == "incapacitated" and sk.heal is not None)


def skill_actions(c: MoonCombat, f: Fighter, category: str) -> list[Action]:
    """Every legal `use_skill` of one category (setup, end or normal) for combatant f (MOON-4.8, 6.8, 7.3)."""
    st = c.state
    t = c.tables
    s = t.stats[f.id]
    out: list[Action] = []
    used_phase = st.phase_used
    for sk in s.cat(category):
        if not usable(f, sk) or sk.tp > f.tp:
            continue
        if category != "normal" and f"{f.id}:{sk.id}" in used_phase:
            continue
        if sk.summon:
            out.extend(Action(Verb.USE_SKILL, None, None, SkillChoice(sk.id, tpl)) for tpl in sk.summon)
            continue
        side = s.side
        if sk.target == "self":
            if sk.heal is None or f.hp < f.max_hp:
                out.append(Action(Verb.USE_SKILL, f.id, None, sk.id))
            continue
        fs = st.fighters
        for gid in st.order:
            g = fs[gid]
            if t.stats[gid].side != side or not _ally_ok(g, sk):
                continue
            if sk.target != "ally_any" and g.zone != f.zone:
                continue
            if sk.remove_condition:
                out.extend(Action(Verb.USE_SKILL, gid, None, SkillChoice(sk.id, cond)) for cond in conditions_of(g))
            elif sk.heal is not None:
                if g.hp < g.max_hp:
                    out.append(Action(Verb.USE_SKILL, gid, None, sk.id))
            else:
                out.append(Action(Verb.USE_SKILL, gid, None, sk.id))
    return out


def apply_skill(c: MoonCombat, f: Fighter, a: Action) -> None:
    """Resolve a setup, end or normal skill at once (MOON-4.8, 6.8, 7.3, 15.2, 15.4, 15.7)."""
    st = c.state
    # the legal set's own option (`Combat.act`): a skill id, or the skill and what it summons or removes
    sid, extra = (a.option.skill, a.option.choice) if isinstance(a.option, SkillChoice) else (a.option, None)
    sk = SKILLS[sid]
    f.tp -= sk.tp
    count_use(f, sid)
    if sk.category != "normal":
        st.phase_used.append(f"{f.id}:{sid}")
    on = (f" on {a.target}" if a.target else "") + (f" ({extra})" if extra else "")
    c.emit("skill_used", f"{f.id} uses {sid}{on}",
           actor=f.id, rule="MOON-15.2", user=f.id, id=sid, target=a.target, option=extra, costs={"tp": sk.tp})
    g = st.fighters[a.target] if a.target is not None else f
    if sk.ap_mod:
        g.ap += sk.ap_mod
        c.emit("ap_set", f"{g.id}: AP +{sk.ap_mod} -> {g.ap}", actor=g.id, rule="MOON-4.8", combatant=g.id, ap=g.ap,
               ap_roll=g.ap_roll, cause=sid)
    if sk.effect is not None:
        add_effect(c, g, sid, sk.effect.kind, sk.effect.value, sk.effect.duration)  # MOON-14.2
    if sk.heal is not None:
        dice = roll_dice(c, sk.heal.count, f.id, f"{sid} heal", "MOON-11.5")
        heal(c, g, sum(dice) + sk.heal.flat, sid, sk.heal.flat)
    if sk.remove_condition and extra is not None:
        remove_condition(c, g, str(extra), sid)
    if sk.summon and extra is not None:
        summon(c, f, sid, str(extra))


def summon(c: MoonCombat, f: Fighter, sid: str, template: str) -> None:
    """MOON-15.7 / 14.3: the new summon replaces any present summon of the same skill."""
    st = c.state
    t = c.tables
    for old in t.summons_of.get(f.id, ()):
        g = st.fighters[old]
        if g.state != "absent" and g.summon_skill == sid:
            vanish(c, g, "replaced")
    nid = f"{f.id}.{template}"
    s = t.stats[nid]
    g = st.fighters[nid]
    g.zone = f.zone
    g.hp = g.max_hp = s.max_hp
    g.tp = s.max_tp
    g.emotion = 0
    g.ap = g.ap_roll = 0
    g.poison = 0
    g.paralysis = g.bind = g.trance = g.baptism = False
    g.mark_ambush = g.mark_escape = False
    g.pending = None
    g.effects = []
    g.used_round = {}
    g.used_combat = {}
    g.summon_skill = sid
    if nid in st.order:
        st.order.remove(nid)
    st.order.append(nid)
    c.emit("summoned", f"{f.id} summons {nid} in {f.zone}", actor=f.id, rule="MOON-15.7", summon=nid, summoner=f.id)
    if st.phase == "setup":
        g.state = "absent"
        set_state(c, g, "not_acted", "summoned", "MOON-15.7")
        if st.ap_rolled:
            roll_ap(c, g, "summoned")
    else:
        # a fresh summon takes no turn (MOON-15.7), but entering `acted` in the main loop is ten seconds (MOON-6.2)
        g.state = "absent"
        set_state(c, g, "acted", "summoned", "MOON-15.7")


def item_actions(c: MoonCombat, f: Fighter) -> list[Action]:
    """Every legal `use_item` (MOON-6.9, section 4.5): targets are allies in the user's zone."""
    st = c.state
    t = c.tables
    out: list[Action] = []
    side = t.stats[f.id].side
    fs = st.fighters
    for iid in t.items_known:
        if f.items.get(iid, 0) < 1:
            continue
        it = ITEMS[iid]
        for gid in st.order:
            g = fs[gid]
            if g.zone != f.zone or t.stats[gid].side != side or g.state in GONE:
                continue
            if it.target == "wounded" and g.hp >= g.max_hp:
                continue
            if it.target == "condition" and not (g.poison if it.remove == "poison" else getattr(g, str(it.remove))):
                continue
            out.append(Action(Verb.USE_ITEM, gid, None, iid))
    return out


def apply_item(c: MoonCombat, f: Fighter, a: Action) -> None:
    """Use one item (MOON-6.9, 15.9, 14.4)."""
    st = c.state
    iid = str(a.option)
    it = ITEMS[iid]
    g = st.fighters[str(a.target)]
    f.items[iid] = f.items.get(iid, 0) - 1
    c.emit("item_used", f"{f.id} uses {iid} on {g.id}", actor=f.id, rule="MOON-15.9", user=f.id, id=iid,
           target=g.id, costs={"item": 1})
    if it.heal is not None:
        dice = roll_dice(c, it.heal.count, f.id, f"{iid} heal", "MOON-11.5")
        heal(c, g, sum(dice) + it.heal.flat, iid, it.heal.flat)
    if it.remove is not None:
        remove_condition(c, g, it.remove, iid)
    if it.effect is not None:
        add_effect(c, g, iid, it.effect.kind, it.effect.value, it.effect.duration)  # MOON-14.4
