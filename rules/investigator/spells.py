"""Casting: one-round and multi-round spells, resistance and effects (INV-0.5, INV-5.1-5.6)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.battlefield import chebyshev
from trpg_arena.rules.investigator.compiled import Setup, SpellT
from trpg_arena.rules.investigator.damage import apply_damage, heal, interrupt_channel
from trpg_arena.rules.investigator.legal import fighter
from trpg_arena.rules.investigator.rolls import REGULAR, check
from trpg_arena.rules.investigator.state import Fighter, InvState

if TYPE_CHECKING:
    from trpg_arena.rules.investigator.state import InvCombat


def pay(combat: InvCombat, sp: SpellT, c: Fighter) -> None:
    """Pay MP and materials (INV-5.1 step 2)."""
    c.mp -= sp.mp_cost
    for m, n in sp.materials:
        c.materials[m] = c.materials.get(m, 0) - n
    combat.emit("mp_spent", f"{c.id} spends {sp.mp_cost} MP on {sp.name} (MP {c.mp})", actor=c.id, rule="INV-5.1",
                spell=sp.id, mp=c.mp, materials=[m for m, _ in sp.materials])


def resisted(combat: InvCombat, setup: Setup, c: Fighter, t: Fighter) -> bool:
    """Opposed POW roll (INV-0.5): True when the target resists."""
    if not t.able:
        return False
    pc, pt = setup.prof(c.id).pow, setup.prof(t.id).pow
    _, lc = check(combat, c.id, "POW", pc, rule="INV-0.5")
    _, lt = check(combat, t.id, "POW", pt, rule="INV-0.5")
    wins = lc >= REGULAR and (lc > lt or (lc == lt and pc > pt))
    return not wins


def effect(combat: InvCombat, setup: Setup, st: InvState, sp: SpellT, c: Fighter, t: Fighter) -> None:
    """Resistance then the spell's effect (INV-5.1 steps 3-4, INV-5.2)."""
    if sp.resist and resisted(combat, setup, c, t):
        combat.emit("spell_resisted", f"{t.id} resists {sp.name}", actor=t.id, rule="INV-0.5", spell=sp.id)
        return
    v, faces = sp.dice.roll(combat, c.id, f"{sp.name}'s {'healing' if sp.effect == 'heal' else sp.effect}")
    v = max(0, v)
    combat.emit("damage_roll" if sp.effect == "damage" else "heal_roll", f"{sp.name}: {sp.dice} = {v}", actor=c.id,
                rule="INV-5.2", dice=faces, total=v, spell=sp.id)
    if sp.effect == "heal":
        heal(combat, setup, t, v, "INV-5.2")
        return
    if t.channel_spell and v > 0:
        interrupt_channel(combat, t, "hit")
    apply_damage(combat, setup, st, t, v, wound=sp.visible, raw=v, rule="INV-5.2")


def target_ok(setup: Setup, sp: SpellT, c: Fighter, t: Fighter) -> bool:
    """The stored target is still valid: present, in range, line not blocked."""
    if t.pos is None or t.dead or t.fled or c.pos is None:
        return False
    return chebyshev(c.pos, t.pos) <= sp.range and (c.pos == t.pos or not setup.wall_between(c.pos, t.pos))


def cast_now(combat: InvCombat, setup: Setup, st: InvState, c: Fighter, sid: str, tid: str) -> None:
    """After the windows: pay, then resolve a one-round spell or start channeling a multi-round one."""
    sp = setup.spells[sid]
    t = fighter(setup, st, tid)
    if t.pos is None or t.dead or t.fled:
        combat.emit("target_lost", f"{c.id}'s {sp.name} has lost its target", actor=c.id, rule="INV-10.4")
        return
    pay(combat, sp, c)
    if sp.rounds > 1:  # INV-5.4
        c.channel_spell, c.channel_target, c.channel_done = sid, tid, 1
        combat.emit("cast_started", f"{c.id} begins {sp.name} on {tid} (1/{sp.rounds})", actor=c.id,
                    rule="INV-5.4", spell=sid, target=tid)
        return
    combat.emit("cast", f"{c.id} casts {sp.name} on {tid}", actor=c.id, rule="INV-5.1", spell=sid, target=tid)
    effect(combat, setup, st, sp, c, t)


def continue_now(combat: InvCombat, setup: Setup, st: InvState, c: Fighter) -> None:
    """After the windows of ``continue_cast``: one more round; resolve or fizzle at the end (INV-5.4)."""
    sid, tid = c.channel_spell, c.channel_target
    if not sid:
        return
    sp = setup.spells[sid]
    c.channel_done += 1
    if c.channel_done < sp.rounds:
        combat.emit("cast_continued", f"{c.id} continues {sp.name} ({c.channel_done}/{sp.rounds})", actor=c.id,
                    rule="INV-5.4", spell=sid)
        return
    c.channel_spell, c.channel_target, c.channel_done = "", "", 0
    t = fighter(setup, st, tid)
    if not target_ok(setup, sp, c, t):
        combat.emit("cast_fizzled", f"{c.id}'s {sp.name} fizzles: {tid} is out of reach", actor=c.id,
                    rule="INV-5.4", spell=sid)
        return
    combat.emit("cast_completed", f"{c.id} completes {sp.name} on {tid}", actor=c.id, rule="INV-5.4", spell=sid,
                target=tid)
    effect(combat, setup, st, sp, c, t)
