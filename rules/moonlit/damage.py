"""Damage (MOON-8.12-8.17), the counter exchange (MOON-10.7-10.12) and the end of an attack (MOON-8.1 steps 7-11)."""

from __future__ import annotations

from dataclasses import dataclass, field
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


def _damage_dice(c: MoonCombat, t: Table, who: Fighter, d: PendingAttack) -> Damage:
    """MOON-8.12: attack-type dice + flat, offense dice + flats (declaration order), weapon flat of the same type."""
    sk = SKILLS[d.skill]
    dmg = Damage()
    if sk.damage is not None:
        dmg.rolled += sum(roll_dice(c, sk.damage.count, who.id, f"damage ({sk.id})", "MOON-8.12"))
        dmg.add(sk.damage.flat, sk.id)
    for o in d.offense:
        dm = SKILLS[o].damage
        if dm is not None:
            if dm.count:
                dmg.rolled += sum(roll_dice(c, dm.count, who.id, f"damage ({o})", "MOON-8.12"))
            dmg.add(dm.flat, o)
    w = t.stats[who.id].weapon
    if w is not None and w.type == sk.type:
        dmg.add(w.damage_flat, w.id)  # MOON-15.8
    return dmg


@dataclass
class Damage:
    """Damage dice rolled and the flat bonuses on top, by name: the log says where each point comes from."""

    rolled: int = 0
    flats: list[tuple[str, int]] = field(default_factory=list)

    def add(self, flat: int, source: str) -> None:
        """A flat bonus (a skill's, a weapon's), if there is one."""
        if flat:
            self.flats.append((source, flat))

    @property
    def total(self) -> int:
        """Dice and flats together."""
        return self.rolled + sum(n for _, n in self.flats)

    def text(self, extra: int = 0) -> str:
        """``16 (10 rolled + 4 strike + 2 claws)``; `extra` is more rolled (a critical die); no parts: ``10``."""
        total = self.total + extra
        if not self.flats:
            return str(total)
        return f"{total} ({self.rolled + extra} rolled" + "".join(f" + {n} {name}" for name, n in self.flats) + ")"


def _reduction(c: MoonCombat, t: Table, r: Fighter, element: str | None, flats: dict[str, int]) -> tuple[int, str]:
    """MOON-8.14 / 8.15: (Defense + armour) d6, or attribute points against an element; plus flat reductions.

    With the log's words for it: ``6 defence``, ``7 defence (5 rolled + 2 guard)``, ``3 fire attribute``.
    """
    s = t.stats[r.id]
    flat = sum(flats.values())
    named = "".join(f" + {n} {name}" for name, n in flats.items() if n)
    if element is not None:
        base = s.attributes.get(element, 0)
        return base + flat, f"{base + flat} {element} attribute" + (f" ({base} {element}{named})" if named else "")
    n = s.defense + s.armour_dice
    if n <= 0:
        return flat, f"{flat} defence" + (f" ({named.removeprefix(' + ')})" if named else "")
    rolled = sum(roll_dice(c, n, r.id, "defense reduction", "MOON-8.14"))
    return rolled + flat, f"{rolled + flat} defence" + (f" ({rolled} rolled{named})" if named else "")


def _actual(t: Table, r: Fighter, diff: int) -> tuple[int, int]:
    """MOON-8.16 threshold, then `unacceptable_existence` (MOON-15.6): (actual damage, what the trait cut).

    The cut is what the trait took off (5, or less where less was left), so damage - reduction - cut = actual.
    """
    actual = diff if diff >= t.opts.moon_damage_threshold else 0
    cut = 0
    if actual and not r.baptism and "unacceptable_existence" in t.stats[r.id].skills:
        cut = min(5, actual)
    return actual - cut, cut


def _cut_words(cut: int) -> str:
    """The trait's part of a damage sentence: `` - 5 unacceptable_existence``, or nothing."""
    return f" - {cut} unacceptable_existence" if cut else ""


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
    base, crit = Damage(), 0
    counter_dmg: dict[str, tuple[Damage, int]] = {}  # each counterer's damage and its critical die
    if a.hits or a.counters:
        base = _damage_dice(c, t, x, d)
        if hit.crit and a.hits:
            crit = sum(roll_dice(c, 1, x.id, "critical die", "MOON-8.13"))  # MOON-8.13
        for tid in a.counters:
            tg = st.fighters[tid]
            p = tg.pending
            assert p is not None
            rolled = _damage_dice(c, t, tg, p)
            counter_dmg[tid] = (rolled, sum(roll_dice(c, 1, tid, "counter critical die", "MOON-10.8"))
                                if a.checks[tid].crit else 0)
    damaged: list[Fighter] = []
    for h in a.hits:  # step 8: normal receivers
        r = st.fighters[a.cover.get(h, h)]
        dmg = base.total + crit
        red, said = _reduction(c, t, r, sk.element, a.reductions.get(r.id, {}))  # MOON-8.14 / 8.15
        actual, cut = _actual(t, r, dmg - red)
        c.emit("damage_applied", f"{r.id} takes {base.text(crit)} - {said}{_cut_words(cut)} = {actual} damage",
               actor=r.id, rule="MOON-8.16", receiver=r.id, damage=dmg, reduction=red, trait_reduction=cut,
               actual=actual, hp_after=max(0, r.hp - actual), source=x.id)
        lose_hp(c, r, actual, "attack", actual=True)
        if actual >= 1:
            damaged.append(r)
    exchanged: list[tuple[Fighter, PendingAttack, str]] = []
    for tid in a.counters:  # step 9: counter exchanges, MOON-10.9 / 10.10
        tg = st.fighters[tid]
        p = tg.pending
        assert p is not None
        counter, counter_crit = counter_dmg[tid]
        l_dmg, t_dmg = base.total, counter.total + counter_crit
        l_said, t_said = base.text(), counter.text(counter_crit)
        if l_dmg == t_dmg:
            c.emit("damage_applied", f"{x.id} and {tid} deal equal damage ({t_dmg}): nobody is hurt", actor=tid,
                   rule="MOON-10.10", receiver=None, damage=t_dmg, reduction=0, trait_reduction=0, actual=0,
                   hp_after=None, source=None)
            continue
        if t_dmg < l_dmg:
            small, s_dmg, big, b_dmg, big_decl, s_said, b_said = tg, t_dmg, x, l_dmg, d, t_said, l_said
        else:
            small, s_dmg, big, b_dmg, big_decl, s_said, b_said = x, l_dmg, tg, t_dmg, p, l_said, t_said
        elem = SKILLS[big_decl.skill].element
        red, _ = _reduction(c, t, small, elem, {})
        actual, cut = _actual(t, small, b_dmg - (s_dmg + red))
        c.emit("damage_applied",
               f"{small.id} takes {b_said} - ({s_said} + {red}){_cut_words(cut)} = {actual} damage in the exchange",
               actor=small.id, rule="MOON-10.9", receiver=small.id, damage=b_dmg, reduction=s_dmg + red,
               trait_reduction=cut, actual=actual, hp_after=max(0, small.hp - actual), source=big.id)
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
