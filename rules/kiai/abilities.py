"""Techniques and spells (KIA-21 to KIA-23): declaration, area damage, status effects and resistance."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import shared_decision
from trpg_arena.rules.kiai.checks import check, has, succeeded
from trpg_arena.rules.kiai.conditions import add_condition
from trpg_arena.rules.kiai.context import Ctx
from trpg_arena.rules.kiai.damage import damage_roll, take_damage
from trpg_arena.rules.kiai.model import Ability
from trpg_arena.rules.kiai.state import CRITICAL, SUCCESS, Frame, Hex, KiaiState
from trpg_arena.rules.kiai.strike import can_react, dodge_check
from trpg_arena.rules.kiai.verbs import Condition, Verb

if TYPE_CHECKING:
    from trpg_arena.rules.kiai.state import KiaiCombat

CONDITION_OF = {"stun": Condition.STUNNED, "intimidate": Condition.INTIMIDATED, "illusion": Condition.DECEIVED}


def area_targets(ctx: Ctx, st: KiaiState, user: str, center: Hex, radius: int) -> list[str]:
    """KIA-21.3: everyone (any side) within `radius` of the centre, except the user and those out; by distance, seat."""
    distance = ctx.grid.distance
    found = sorted((d, ctx.seat[cid], cid) for cid, f in st.fighters.items()
                   if cid != user and not f.out and f.hex is not None and (d := distance(center, f.hex)) <= radius)
    return [cid for _, _, cid in found]


def start_ability(combat: KiaiCombat, ctx: Ctx, st: KiaiState, user: str, ab: Ability, target: str | None,
                  center: Hex | None) -> None:
    """Push the frames of a `use_ability` (kiai already paid, KIA-21.1)."""
    f = st.fighters[user]
    if ab.delivery == "area":
        origin = center or f.hex
        assert origin is not None  # the user acts, so it stands on the map
        targets = area_targets(ctx, st, user, origin, ab.level)
        who = ", ".join(targets) or "nobody"
        combat.emit("area", f"{ab.name or ab.id} centred on {list(center or ())} affects {who}",
                    actor=user, rule="KIA-21.3", center=list(center or ()), targets=targets)
        kind = "area" if ab.effect == "damage" else "status"
        st.stack.append(Frame(kind, "hit" if kind == "area" else "cast", user, ability=ab.id, targets=targets,
                              center=center, skind="ability"))
        return
    assert target is not None
    if ab.effect == "damage":  # KIA-21.5: touch / ranged damage abilities are one ability strike
        st.stack.append(Frame("strike", "hit", user, target, skind="ability", effect="damage", weapon=f.main,
                              ability=ab.id, hit_base="magic_attack" if ab.kind == "spell" else "hit"))
        return
    needs_hit = ab.delivery in ("melee", "touch")  # KIA-22.1, KIA-23.1
    st.stack.append(Frame("status", "start" if needs_hit else "cast", user, target, ability=ab.id, targets=[target],
                          skind="ability"))


def run_area(combat: KiaiCombat, ctx: Ctx, st: KiaiState, fr: Frame) -> None:
    """KIA-21.3 damage areas: one hit check, one R3 dodge decision each, one damage roll, defense each."""
    F = st.fighters
    user = F[fr.attacker]
    ab = ctx.abilities[user.id][fr.ability]
    if fr.step == "hit":
        spec = ctx.spec[user.id]
        spell = ab.kind == "spell"
        mods = [("deceived", -ctx.opts.illusion_penalty)] if not spell and has(user, Condition.DECEIVED) else []
        g = check(combat, ctx, user, "magic attack" if spell else "hit", spec.magic_attack if spell else spec.hit, 1,
                  mods, "KIA-21.5")
        if not succeeded(g):
            combat.emit("strike_resolved", f"{user.id}'s {ab.id}: miss", actor=user.id, rule="KIA-21.3",
                        result="miss", strike_kind="ability")
            st.stack.pop()
            return
        fr.grade = g
        fr.step = "react"
        fr.index = 0
        fr.reaction = ""
    if fr.step == "react":
        while fr.index < len(fr.targets):
            t = F[fr.targets[fr.index]]
            if not fr.reaction:
                if can_react(t):
                    fr.reaction = "?"
                    st.decision = shared_decision(t.id, "R3", f"{user.id}'s {ab.id} catches {t.id}: react")
                    return
                fr.reaction = Verb.NO_REACTION
            grade = fr.grade
            landed = True
            if fr.reaction == Verb.DODGE:
                dg = dodge_check(combat, ctx, t, 0)
                if dg == CRITICAL or (dg == SUCCESS and grade != CRITICAL):
                    landed = False
                    combat.emit("strike_resolved", f"{user.id}'s {ab.id} -> {t.id}: "
                                f"{'complete_dodge' if dg == CRITICAL else 'dodged'}", actor=user.id,
                                rule="KIA-3.3" if dg == CRITICAL else "KIA-3.1", target=t.id,
                                result="complete_dodge" if dg == CRITICAL else "dodged", strike_kind="ability")
                elif dg == SUCCESS:
                    grade = SUCCESS  # KIA-3.2
            if landed:
                fr.hits.append((t.id, grade))
                combat.emit("strike_resolved", f"{user.id}'s {ab.id} -> {t.id}: lands", actor=user.id,
                            rule="KIA-21.3", target=t.id, result="lands", strike_kind="ability")
            fr.reaction = ""
            fr.index += 1
        fr.step = "damage"
    if fr.step == "damage":
        st.stack.pop()
        if not fr.hits:
            return
        spec = ctx.spec[user.id]
        base = spec.attack if ctx.opts.ability_damage_base == "attack_value" else 0
        dmg = damage_roll(combat, ctx, user.id, base, ab.level, "KIA-21.2")  # ONE roll for everyone
        for cid, grade in fr.hits:
            if st.outcome is not None:
                return
            take_damage(combat, ctx, st, cid, dmg, ("the critical",) if grade == CRITICAL else (), "KIA-21.3")


def duration(ctx: Ctx, ab: Ability) -> int:
    """KIA-23.3: N = the ability's level, or the fixed `status_duration`."""
    sd = ctx.opts.status_duration
    return ab.level if sd == "level" else int(sd)


def run_status(combat: KiaiCombat, ctx: Ctx, st: KiaiState, fr: Frame) -> None:
    """KIA-22 / KIA-23: optional hit first, caster check for spells, then each target resists."""
    F = st.fighters
    user = F[fr.attacker]
    ab = ctx.abilities[user.id][fr.ability]
    if fr.step == "start":
        fr.step = "after_hit"
        st.stack.append(Frame("strike", "hit", user.id, fr.target, skind="ability", effect="none", weapon=user.main,
                              ability=ab.id))
        return
    if fr.step == "after_hit":
        if st.last != "lands":
            missed = "the touch" if ab.delivery == "touch" else "the blow"  # KIA-23.1: melee or touch
            combat.emit("ability_failed", f"{user.id}'s {ab.id} fails ({missed} missed)", actor=user.id,
                        rule="KIA-22.1" if ab.kind == "spell" else "KIA-23.1", ability=ab.id)
            st.stack.pop()
            return
        fr.step = "cast"
    st.stack.pop()
    caster_grade = 0
    if ab.kind == "spell":  # KIA-22.2
        spec = ctx.spec[user.id]
        caster_grade = check(combat, ctx, user, "spell", spec.magic_attack, 1, [], "KIA-22.2")
        if not succeeded(caster_grade):
            combat.emit("ability_failed", f"{user.id}'s {ab.id} has no effect", actor=user.id, rule="KIA-22.2",
                        ability=ab.id)
            return
    ctype = CONDITION_OF[ab.effect]
    n = duration(ctx, ab)
    for cid in fr.targets:
        t = F[cid]
        if t.out:
            continue
        tspec = ctx.spec[cid]
        if ab.kind == "spell":
            g = check(combat, ctx, t, "magic defense", tspec.magic_defense, 1, [], "KIA-22.2")
            resisted = g == CRITICAL or (g == SUCCESS and caster_grade != CRITICAL)
        else:  # KIA-23.2
            base = tspec.intelligence * 2 if ab.effect == "illusion" else tspec.resistance * 2
            g = check(combat, ctx, t, "resist", base, 1, [], "KIA-23.2")
            resisted = succeeded(g)
        if resisted:
            combat.emit("resisted", f"{cid} resists {ab.id}", actor=cid, rule="KIA-22.2" if ab.kind == "spell"
                        else "KIA-23.2", ability=ab.id)
            continue
        add_condition(combat, t, ctype, source=user.id if ctype == Condition.INTIMIDATED else "", n=n, rule="KIA-23.3")
