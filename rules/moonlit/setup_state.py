"""The initial state of a combat from its encounter and optional ``start`` section (no dice)."""

from __future__ import annotations

from trpg_arena.rules.core.encounter import overlay
from trpg_arena.rules.core.errors import EncounterError
from trpg_arena.rules.moonlit.data import CONDITIONS, ITEMS, SKILLS
from trpg_arena.rules.moonlit.model import MoonlitEncounter
from trpg_arena.rules.moonlit.state import Fighter, LastingEffect, MoonState, PendingAttack
from trpg_arena.rules.moonlit.tables import Table

STEP_OF_START = {
    "round_start": ("setup", "round_start"),
    "escape": ("setup", "escape"),
    "action_points": ("setup", "action_points"),
    "purge": ("setup", "purge_start"),
    "setup_skills": ("setup", "setup_skills_start"),
    "main": ("main", "decide"),
    "end": ("end", "end"),
    "end_skills": ("end", "end_skills_start"),
}


def fresh(t: Table, cid: str) -> Fighter:
    """A combatant as its stat block describes it (summons and arrivals start absent)."""
    s = t.stats[cid]
    return Fighter(id=cid, state="absent" if (s.is_summon or cid in t.arrivals) else "not_acted", zone=None,
                   hp=s.max_hp, max_hp=s.max_hp, tp=s.max_tp, emotion=s.emotion, items=dict(s.items))


def new_state(enc: MoonlitEncounter, t: Table) -> MoonState:
    """Build the state; the combat begins at round 1's setup (or deployment), or where ``start`` says."""
    st = MoonState()
    for c in enc.combatants:
        f = fresh(t, c.id)
        f.zone = c.zone if c.id not in t.arrivals else None
        overlay(f, c, "hp", "tp")
        overlay(f, c.conditions, *CONDITIONS)
        st.fighters[c.id] = f
        if c.id not in t.arrivals:
            st.order.append(c.id)
    for cid in t.ids:
        if cid not in st.fighters:
            st.fighters[cid] = fresh(t, cid)
    if enc.start is None:
        if enc.options.moon_deploy == "choose":
            st.phase = "deploy"
            st.queue = [i for i in st.order]
            st.qpos = 0
            st.step = "deploy"
        else:
            st.step = "round_start"
        return st
    s = enc.start
    st.round = s.round - 1 if s.step == "round_start" else s.round
    st.phase, st.step = STEP_OF_START[s.step]
    st.elapsed = s.elapsed_seconds
    st.ap_rolled = s.step not in ("round_start", "escape", "action_points")
    late = s.step in ("end", "end_skills")
    for cid, (rnd, zone) in t.arrivals.items():
        if rnd < s.round or (rnd == s.round and s.step != "round_start"):
            st.fighters[cid].state = "not_acted"
            st.fighters[cid].zone = zone
            st.order.append(cid)
    for sm in s.summons:
        sid = f"{sm.summoner}.{sm.template}"
        g = st.fighters[sid]
        g.state = sm.state
        g.zone = sm.zone or st.fighters[sm.summoner].zone
        g.ap = sm.ap
        g.summon_skill = sm.skill
        overlay(g, sm, "hp")
        st.order.append(sid)
    for cid in st.order:
        f = st.fighters[cid]
        if f.state == "not_acted":
            f.state = "incapacitated" if f.hp == 0 else "acted" if late else "not_acted"
    for cid, sc in s.combatants.items():
        f = st.fighters[cid]
        where = f"start.combatants.{cid}"
        overlay(f, sc, "max_hp", "hp")
        if f.hp > f.max_hp:
            raise EncounterError(f"hp {f.hp} exceeds the maximum {f.max_hp}", path=where + ".hp", source=enc.source)
        overlay(f, sc, "tp", "emotion", "zone", "ap", "ap_roll")
        if sc.conditions is not None:
            overlay(f, sc.conditions, *CONDITIONS)
        f.mark_ambush = "ambush" in sc.markers
        f.mark_escape = "failed_escape" in sc.markers
        if sc.items is not None:
            f.items = dict(sc.items)
        f.rebirth_used = sc.rebirth_used
        for sk, u in sc.usage.items():
            if u.round:
                f.used_round[sk] = u.round
            if u.combat:
                f.used_combat[sk] = u.combat
        for e in sc.effects:
            src = SKILLS.get(e) or ITEMS.get(e)
            eff = src.effect if src is not None else None
            if eff is not None:
                f.effects.append(LastingEffect(e, eff.kind, eff.value, eff.duration))
        if sc.state is not None:
            f.state = sc.state
        elif f.hp == 0 and f.state in ("not_acted", "acted", "standby"):
            f.state = "incapacitated"
        if sc.pending is not None:
            p = sc.pending
            if SKILLS[p.skill].category != "attack":
                raise EncounterError(f"'{p.skill}' is not an attack-type skill", path=where + ".pending.skill",
                                     source=enc.source)
            f.pending = PendingAttack(p.skill, list(p.offense), p.limit_break, list(p.targets), p.zone)
        if f.state == "standby" and f.pending is None:
            raise EncounterError("a standby combatant needs a pending attack", path=where + ".pending",
                                 source=enc.source)
        if f.state in ("not_acted", "standby", "acted", "incapacitated", "dead") and f.zone is None:
            raise EncounterError("a combatant in play needs a zone", path=where + ".zone", source=enc.source)
    st.downed = sum(1 for f in st.fighters.values() if f.state == "incapacitated")
    return st
