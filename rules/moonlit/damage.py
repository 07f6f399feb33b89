"""Damage (MOON-8.12-8.17), the counter exchange (MOON-10.7-10.12) and the end of an attack (MOON-8.1 steps 7-11)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.moonlit.data import SKILLS
from trpg_arena.rules.moonlit.fighters import (
    ABLE,
    GONE,
    add_condition,
    cap_damage,
    check_end,
    lose_hp,
    roll_dice,
    set_state,
    vanish_summons_of,
)
from trpg_arena.rules.moonlit.state import AttackFrame, Fighter, MoonState, PendingAttack
from trpg_arena.rules.moonlit.tables import Table

if TYPE_CHECKING:
    from trpg_arena.rules.moonlit.state import MoonCombat


def _damage_dice(c: MoonCombat, t: Table, who: Fighter, d: PendingAttack) -> int:
    """MOON-8.12: attack-type dice + flat, offense dice + flats (declaration order), weapon flat of the same type."""
    sk = SKILLS[d.skill]
    total = 0
    if sk.damage is not None:
        total += sum(roll_dice(c, sk.damage.count, who.id, f"damage ({sk.id})", "MOON-8.12")) + sk.damage.flat
    for o in d.offense:
        dm = SKILLS[o].damage
        if dm is not None:
            if dm.count:
                total += sum(roll_dice(c, dm.count, who.id, f"damage ({o})", "MOON-8.12"))
            total += dm.flat
    w = t.stats[who.id].weapon
    if w is not None and w.type == sk.type:
        total += w.damage_flat  # MOON-15.8
    return total


def _reduction(c: MoonCombat, t: Table, r: Fighter, element: str | None, flat: int) -> int:
    """MOON-8.14 / 8.15: (Defense + armour) d6, or attribute points against an element; plus flat reductions."""
    s = t.stats[r.id]
    if element is not None:
        return s.attributes.get(element, 0) + flat
    n = s.defense + s.armour_dice
    if n <= 0:
        return flat
    return sum(roll_dice(c, n, r.id, "defense reduction", "MOON-8.14")) + flat


def _actual(t: Table, r: Fighter, st: MoonState, diff: int) -> int:
    """MOON-8.16 threshold, then `unacceptable_existence` (MOON-15.6)."""
    actual = diff if diff >= t.opts.moon_damage_threshold else 0
    if actual and not r.baptism and "unacceptable_existence" in t.stats[r.id].skills:
        actual = max(0, actual - 5)
    return actual


def _after_damage(c: MoonCombat, d: PendingAttack, victim: Fighter, source: str) -> None:
    """MOON-8.17 / 10.11: the after-damage effects of the declared skills, in declaration order."""
    if victim.state in GONE:
        return
    for sid in [d.skill] + d.offense:
        for eff in SKILLS[sid].after_damage:
            if eff == "cap10":
                cap_damage(c, victim, 10)  # soul_rend, MOON-12.1
            else:
                add_condition(c, victim, eff, f"{sid} ({source})")


def resolve_damage(c: MoonCombat, st: MoonState, t: Table, a: AttackFrame, x: Fighter) -> None:
    """MOON-8.1 steps 7-11."""
    d = a.decl
    sk = SKILLS[d.skill]
    hit = a.hit
    assert hit is not None
    base = crit = 0
    counter_dmg: dict[str, int] = {}
    if a.hits or a.counters:
        base = _damage_dice(c, t, x, d)
        if hit.crit and a.hits:
            crit = sum(roll_dice(c, 1, x.id, "critical die", "MOON-8.13"))  # MOON-8.13
        for tid in a.counters:
            tg = st.fighters[tid]
            p = tg.pending
            assert p is not None
            dmg = _damage_dice(c, t, tg, p)
            if a.checks[tid].crit:
                dmg += sum(roll_dice(c, 1, tid, "counter critical die", "MOON-10.8"))
            counter_dmg[tid] = dmg
    damaged: list[Fighter] = []
    for h in a.hits:  # step 8: normal receivers
        r = st.fighters[a.cover.get(h, h)]
        dmg = base + crit
        red = _reduction(c, t, r, sk.element, sum(a.reductions.get(r.id, {}).values()))
        actual = _actual(t, r, st, dmg - red)
        what = f"{sk.element} attribute" if sk.element else "defence"  # MOON-8.14 / 8.15
        c.emit("damage_applied", f"{r.id} takes {dmg} - {red} {what} = {actual} damage", actor=r.id, rule="MOON-8.16",
               receiver=r.id, damage=dmg, reduction=red, actual=actual, hp_after=max(0, r.hp - actual),
               source=x.id)
        lose_hp(c, r, actual, "attack", actual=True)
        if actual >= 1:
            damaged.append(r)
    exchanged: list[tuple[Fighter, PendingAttack, str]] = []
    for tid in a.counters:  # step 9: counter exchanges, MOON-10.9 / 10.10
        tg = st.fighters[tid]
        p = tg.pending
        assert p is not None
        l_dmg, t_dmg = base, counter_dmg[tid]
        if l_dmg == t_dmg:
            c.emit("damage_applied", f"{x.id} and {tid} deal equal damage ({t_dmg}): nobody is hurt", actor=tid,
                   rule="MOON-10.10", receiver=None, damage=t_dmg, reduction=0, actual=0, hp_after=None, source=None)
            continue
        if t_dmg < l_dmg:
            small, s_dmg, big, b_dmg, big_decl = tg, t_dmg, x, l_dmg, d
        else:
            small, s_dmg, big, b_dmg, big_decl = x, l_dmg, tg, t_dmg, p
        elem = SKILLS[big_decl.skill].element
        red = _reduction(c, t, small, elem, 0)
        actual = _actual(t, small, st, b_dmg - (s_dmg + red))
        c.emit("damage_applied", f"{small.id} takes {b_dmg} - ({s_dmg} + {red}) = {actual} damage in the exchange",
               actor=small.id, rule="MOON-10.9", receiver=small.id, damage=b_dmg, reduction=s_dmg + red,
               actual=actual, hp_after=max(0, small.hp - actual), source=big.id)
        lose_hp(c, small, actual, "attack", actual=True)
        if actual >= 1:
            exchanged.append((small, big_decl, big.id))
    for r in damaged:  # step 10
        _after_damage(c, d, r, x.id)
    for small, decl, src in exchanged:
        _after_damage(c, decl, small, src)  # MOON-10.11, roles swapped (10.3)
    fallen, st.vanish_later = st.vanish_later, []
    for sid in fallen:
        vanish_summons_of(c, sid)
    # step 11: attacker and counterers are done (MOON-6.14, 10.12)
    st.atk = None
    x.pending = None
    if x.state in ABLE:
        set_state(c, x, "acted", "attack done", "MOON-6.14")
    for tid in a.countered:
        tg = st.fighters[tid]
        tg.countering = False
        tg.pending = None
        if tg.state in ABLE:
            set_state(c, tg, "acted", "counter done", "MOON-10.12")
    st.step = "decide"
    check_end(c)
