"""Ratings, conditions, effects, grapple queries and the health track (REI-3.10, 3.11, section 8)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.reincarnator.data import Static, es
from trpg_arena.rules.reincarnator.state import Fighter, Grapple, ReiState
from trpg_arena.rules.reincarnator.verbs import Condition

if TYPE_CHECKING:
    from trpg_arena.rules.reincarnator.state import ReiCombat

INCAPACITATED = ("unconscious", "dying", "dead")


def rating(st: Static, cid: str, name: str) -> int:
    """An attribute, skill or specialty rating by name (0 if absent)."""
    sp = st.specs[cid]
    if name in ("str", "dex", "int", "com", "sta"):
        return int(getattr(sp.attributes, name))
    if name in ("martial", "athletics", "lore", "tools", "stealth", "insight"):
        return int(getattr(sp.skills, name))
    return sp.specialties.get(name, 0)


def effect_mod(f: Fighter, key: str) -> int:
    """Sum of a modifier over the combatant's effects."""
    return sum(e.modifiers.get(key, 0) for e in f.effects)


def key_es(combat: ReiCombat, cid: str, attr: str) -> int:
    """Extra successes of a roll keyed on `attr` (REI-3.3), with effect bonus ES."""
    st = combat.tables
    f = combat.state.fighters[cid]
    return es(rating(st, cid, attr), st.enc.options.extra_successes) + effect_mod(f, "bonus_es")


def wound_penalty(combat: ReiCombat, cid: str) -> int:
    """REI-3.11: -1 with exactly two empty health boxes, -2 with one."""
    if not combat.tables.enc.options.wound_penalties:
        return 0
    f = combat.state.fighters[cid]
    empty = combat.tables.max_health[cid] - f.lethal - f.bashing
    return 1 if empty == 2 else 2 if empty == 1 else 0


def base_initiative(combat: ReiCombat, cid: str) -> int:
    """Base initiative with effects (REI-2.3)."""
    return combat.tables.base_init[cid] + effect_mod(combat.state.fighters[cid], "base_initiative")


# --- grapples ---------------------------------------------------------------------------------------
def grapples_of(state: ReiState, cid: str) -> list[Grapple]:
    """Every grapple `cid` takes part in."""
    if not state.grapples:
        return []
    return [g for g in state.grapples if g.holder == cid or g.held == cid]


def in_grapple(state: ReiState, cid: str) -> bool:
    """Whether `cid` is holder or held of any grapple."""
    if not state.grapples:
        return False
    return any(g.holder == cid or g.held == cid for g in state.grapples)


def pinned(state: ReiState, cid: str) -> bool:
    """Held in a pin (`immobilized`, REI-7.11)."""
    if not state.grapples:
        return False
    return any(g.held == cid and g.state == "pin" for g in state.grapples)


def grapple_between(state: ReiState, a: str, b: str) -> Grapple | None:
    """The grapple linking `a` and `b`, either way round."""
    for g in state.grapples:
        if {g.holder, g.held} == {a, b}:
            return g
    return None


def loser_margin(state: ReiState, cid: str) -> int:
    """REI-7.7: the penalty of a held or pinned combatant."""
    return max([0, *(g.pin_margin if g.state == "pin" else g.hold_margin for g in state.grapples if g.held == cid)])


def grapple_group(state: ReiState, cid: str) -> list[str]:
    """Everyone linked to `cid` through grapples, `cid` included (REI-7.17)."""
    seen = {cid}
    todo = [cid]
    while todo:
        x = todo.pop()
        for g in state.grapples:
            for a, b in ((g.holder, g.held), (g.held, g.holder)):
                if a == x and b not in seen:
                    seen.add(b)
                    todo.append(b)
    return sorted(seen)


def shot_group(state: ReiState, target: str, shooter: str) -> list[str]:
    """The grapple group a shot at `target` goes into (REI-7.17): `grapple_group` less the shooter.

    Decision: a participant shooting into its own grapple is never a victim of its own shot.
    """
    return [c for c in grapple_group(state, target) if c != shooter]


def hands_used(combat: ReiCombat, cid: str) -> int:
    """Hands occupied by holds (REI-7.14)."""
    if not combat.state.grapples:
        return 0
    return sum(hands_for(combat, cid, g.held) for g in combat.state.grapples if g.holder == cid)


def hands_for(combat: ReiCombat, cid: str, target: str) -> int:
    """Hands a hold of `target` would occupy (REI-7.14)."""
    st = combat.tables
    return 2 if st.specs[target].size >= st.specs[cid].size - 2 else 1


def end_grapple(combat: ReiCombat, g: Grapple, reason: str) -> None:
    """Remove a grapple and say so."""
    state = combat.state
    if g in state.grapples:
        state.grapples.remove(g)
        combat.emit("grapple_ended", f"the grapple of {g.holder} on {g.held} ends ({reason})", actor=g.holder,
                    rule="REI-7.10", holder=g.holder, held=g.held, reason=reason)


def end_all_grapples(combat: ReiCombat, cid: str, reason: str) -> None:
    """End every grapple of `cid` (incapacitation, forced movement)."""
    for g in list(grapples_of(combat.state, cid)):
        end_grapple(combat, g, reason)


# --- conditions -------------------------------------------------------------------------------------
def remove_cover(combat: ReiCombat, cid: str, reason: str) -> None:
    """End `in_cover` (and crouching, which needs it) (REI-5.11, 6.2)."""
    f = combat.state.fighters[cid]
    if f.cover_source is not None:
        f.cover_source, f.cover_value = None, 0
        combat.emit("condition_removed", f"{cid} is no longer in cover ({reason})", actor=cid, rule="REI-5.11",
                    condition=Condition.IN_COVER, reason=reason)
    if f.crouching:
        f.crouching = False
        combat.emit("condition_removed", f"{cid} stops crouching ({reason})", actor=cid, rule="REI-6.2",
                    condition=Condition.CROUCHING, reason=reason)


def end_hidden(combat: ReiCombat, cid: str, reason: str) -> None:
    """End `hidden` (REI-6.4-6.6)."""
    f = combat.state.fighters[cid]
    if f.hidden:
        f.hidden = False
        combat.emit("condition_removed", f"{cid} is no longer hidden ({reason})", actor=cid, rule="REI-6.6",
                    condition=Condition.HIDDEN, reason=reason)


def reset_aim(combat: ReiCombat, cid: str, reason: str) -> None:
    """Aim back to 0 (REI-5.1)."""
    f = combat.state.fighters[cid]
    if f.aim_count or f.aim_target is not None:
        f.aim_count, f.aim_target = 0, None
        combat.emit("condition_removed", f"{cid}'s aim is lost ({reason})", actor=cid, rule="REI-5.1",
                    condition=Condition.AIM, reason=reason)


def check_cover_sources(combat: ReiCombat) -> None:
    """Cover ends when its source stops being adjacent or active (REI-5.11)."""
    state = combat.state
    for f in state.fighters.values():
        src = f.cover_source
        if src is None or f.cell is None or "," in src:  # objects ("x,y") never move
            continue
        o = state.fighters.get(src)
        if o is None or o.status != "active" or o.cell is None or max(
                abs(o.cell[0] - f.cell[0]), abs(o.cell[1] - f.cell[1])) != 1:
            remove_cover(combat, f.id, "source gone")


def end_effects(combat: ReiCombat, cid: str, durations: tuple[str, ...], reason: str) -> None:
    """End the effects of these durations borne by `cid` (REI-0.3)."""
    state = combat.state
    f = state.fighters[cid]
    keep = []
    for e in f.effects:
        if e.duration in durations:
            combat.emit("effect_ended", f"{e.name} on {cid} ends ({reason})", actor=cid, rule="REI-0.3",
                        effect=e.name, reason=reason)
            if e.modifiers.get("base_initiative"):
                state.reorder_pending = True
        else:
            keep.append(e)
    f.effects = keep


# --- health -----------------------------------------------------------------------------------------
def status_of(lethal: int, bashing: int, overkill: int, mx: int) -> str:
    """REI-3.10 status from the track."""
    if overkill >= 1:
        return "dead"
    if lethal + bashing < mx:
        return "active"
    if bashing > 0:
        return "unconscious"
    return "dying"


def apply_damage(combat: ReiCombat, cid: str, lethal: int, bashing: int, rule: str, source: str | None = None) -> None:
    """Apply damage point by point, lethal first (REI-3.10); vehicles take it on their structure."""
    state = combat.state
    st = combat.tables
    if lethal <= 0 and bashing <= 0:
        return
    if source is not None and source in state.fighters:
        state.fighters[source].damage_dealt += lethal + bashing
    if cid in state.vehicles:
        v = state.vehicles[cid]
        mx = st.vehicles[cid].structure
        for kind in ["l"] * lethal + ["b"] * bashing:
            if v.lethal + v.bashing < mx:
                if kind == "l":
                    v.lethal += 1
                else:
                    v.bashing += 1
            elif v.bashing > 0:
                v.bashing -= 1
                v.lethal += 1
        combat.emit("damage", f"{cid} takes {lethal} lethal and {bashing} bashing (structure {v.lethal + v.bashing}"
                    f"/{mx})", actor=cid, rule=rule, target=cid, lethal=lethal, bashing=bashing)
        if not v.wrecked and v.lethal + v.bashing >= mx:
            v.wrecked = True
            combat.emit("status_changed", f"{cid} is wrecked", actor=cid, rule="REI-3.10", status="wrecked")
        return
    f = state.fighters[cid]
    mx = st.max_health[cid]
    for kind in ["l"] * lethal + ["b"] * bashing:
        if f.lethal + f.bashing < mx:
            if kind == "l":
                f.lethal += 1
            else:
                f.bashing += 1
        elif f.bashing > 0:
            f.bashing -= 1
            f.lethal += 1
        else:
            f.overkill += 1
    combat.emit("damage", f"{cid} takes {lethal} lethal and {bashing} bashing (L {f.lethal}, B {f.bashing} of {mx})",
                actor=cid, rule=rule, target=cid, lethal=lethal, bashing=bashing, total_lethal=f.lethal,
                total_bashing=f.bashing)
    new = status_of(f.lethal, f.bashing, f.overkill, mx)
    if f.status in INCAPACITATED + ("active",) and new != f.status:
        was_active = f.status == "active"
        f.status = new
        combat.emit("status_changed", f"{cid} is {new}", actor=cid, rule="REI-3.10", status=new)
        if was_active:
            on_incapacitated(combat, cid)


def heal_bashing(combat: ReiCombat, cid: str, n: int) -> None:
    """Remove up to `n` bashing points (REI-3.10)."""
    f = combat.state.fighters[cid]
    healed = min(n, f.bashing)
    f.bashing -= healed
    combat.emit("healed", f"{cid} heals {healed} bashing (B {f.bashing})", actor=cid, rule="REI-3.10", amount=healed)


def on_incapacitated(combat: ReiCombat, cid: str) -> None:
    """REI-3.10: grapples, provided cover, hidden and aim end; a driven vehicle stops acting."""
    end_all_grapples(combat, cid, "incapacitated")
    f = combat.state.fighters[cid]
    f.hidden = False
    f.aim_count, f.aim_target = 0, None
    f.reflex = False
    check_cover_sources(combat)
