"""Explosives (REI-8.1-8.4): delivery at a cell, blast pools, overlapping and cluster charges."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.battlefield import chebyshev as cheb
from trpg_arena.rules.core.wording import counted
from trpg_arena.rules.reincarnator.attack import after_roll, attack_pool, cover_defence, dodge_defence, fmt
from trpg_arena.rules.reincarnator.conditions import apply_damage, key_es
from trpg_arena.rules.reincarnator.model import ExplosiveSpec
from trpg_arena.rules.reincarnator.movement import board, closed_doors
from trpg_arena.rules.reincarnator.pools import overlap, roll_pool
from trpg_arena.rules.reincarnator.state import Cell, Pending
from trpg_arena.rules.reincarnator.verbs import Verb

if TYPE_CHECKING:
    from trpg_arena.rules.reincarnator.state import ReiCombat


def charges(combat: ReiCombat, p: Pending) -> tuple[list[ExplosiveSpec], bool]:
    """The explosives released by this attack and whether they combine (REI-8.3) or not (REI-8.4)."""
    st = combat.tables
    w = st.items[p.weapon or ""]
    if w.kind == "launcher":
        assert w.ammo is not None and w.ammo.shell is not None
        return [w.ammo.shell], False  # REI-8.4: shells of one attack never combine
    if w.kind == "cluster":
        return list(w.components), True  # REI-8.3
    assert w.explosive is not None
    return [w.explosive], True


def deliver(combat: ReiCombat, p: Pending) -> None:
    """REI-8.1: roll the throw/shot pool with no defence; one success detonates at the cell."""
    st = combat.tables
    state = combat.state
    assert p.cell is not None
    pool, key, parts = attack_pool(combat, p, None)
    roll = roll_pool(combat.dice, pool, st.enc.options, key_es(combat, p.actor, key), roller=p.actor,
                     purpose=f"{p.verb.replace('_', ' ')} at {p.cell[0]},{p.cell[1]} ({counted(pool, 'die', 'dice')})")
    combat.emit("roll", f"{p.actor} rolls {pool} dice at {p.cell[0]},{p.cell[1]}: {fmt(roll.dice)} -> {roll.t}",
                actor=p.actor, rule="REI-8.1", pool=pool, defence=0, dice=[list(b) for b in roll.dice], r=roll.r,
                es=roll.es, t=roll.t, n=roll.t, parts=parts)
    after_roll(combat, p)
    w = st.items[p.weapon or ""]
    if p.verb == Verb.THROW:
        it = state.items[p.weapon or ""]
        it.loc, it.holder = "gone", None  # explosives and clusters are consumed
    if roll.t < 1:
        combat.emit("miss", f"the {w.name or w.id} lands harmlessly", actor=p.actor, rule="REI-8.1")
        return
    detonate(combat, p.cell, *charges(combat, p), actor=p.actor)


def detonate(combat: ReiCombat, c: Cell, parts: list[ExplosiveSpec], combine: bool, actor: str | None = None) -> None:
    """Blast every combatant and vehicle in radius and sight (REI-8.1), combining overlaps (REI-8.2)."""
    st = combat.tables
    state = combat.state
    field = board(combat)
    doors = closed_doors(combat)
    fighters = state.fighters
    affected: list[tuple[str, Cell]] = [(cid, cell) for cid in st.roster if (cell := fighters[cid].cell) is not None
                                        and fighters[cid].status not in ("fled", "reserve")]
    affected += [(vid, v.cell) for vid, v in state.vehicles.items()]
    hits: list[tuple[str, int]] = []
    for cid, cell in affected:
        if not field.los(c, cell, doors) and cell != c:
            continue
        ratings = [e.blast for e in parts if cheb(c, cell) <= e.radius_m]
        if not ratings:
            continue
        hits.append((cid, overlap(ratings) if combine else max(ratings)))
    combat.emit("explosion", f"explosion at {c[0]},{c[1]} catches {', '.join(h[0] for h in hits) or 'nobody'}",
                actor=actor, rule="REI-8.1", cell=list(c), affected=[h[0] for h in hits],
                ratings={h[0]: h[1] for h in hits})
    p = Pending("blast", actor or "", cell=c)
    for cid, d in hits:
        if cid in state.vehicles:
            cover = dodge = 0
        else:
            cover = cover_defence(combat, p, cid)
            dodge = dodge_defence(combat, p, cid, None, 0) if st.enc.options.blast_dodge else 0
        pool = d - cover - dodge
        roll = roll_pool(combat.dice, pool, st.enc.options, 0, roller=actor or "the GM",
                         purpose=f"the blast on {cid} ({d} - {cover + dodge} = {counted(pool, 'die', 'dice')})")
        combat.emit("roll", f"blast on {cid}: {d} - {cover + dodge} = {pool} dice {fmt(roll.dice)} -> {roll.t}",
                    actor=cid, rule="REI-8.1", pool=d, defence=cover + dodge, dice=[list(b) for b in roll.dice],
                    r=roll.r, es=0, t=roll.t, n=roll.t, blast=True)
        if roll.t:
            apply_damage(combat, cid, roll.t, 0, "REI-8.1", actor)
