"""Weapon breaking, disarming, readying and picking up weapons (KIA-18, KIA-19, KIA-24.2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.kiai.checks import check, succeeded
from trpg_arena.rules.kiai.context import Ctx
from trpg_arena.rules.kiai.damage import damage_roll
from trpg_arena.rules.kiai.state import Fighter, Frame, KiaiState

if TYPE_CHECKING:
    from trpg_arena.rules.kiai.state import KiaiCombat


def threshold(ctx: Ctx, owner: Fighter, key: str) -> int:
    """KIA-18.2: weapon level x 50 + the holder's dexterity + strength."""
    spec = ctx.spec[owner.id]
    return ctx.weapon(key).level * 50 + spec.dexterity + spec.strength


def can_break(ctx: Ctx, breaker_key: str, victim_key: str) -> bool:
    """KIA-18.4: magic weapons and higher-level weapons cannot be broken (with `break_restrictions`)."""
    if not breaker_key or not victim_key:
        return False
    if not ctx.opts.break_restrictions:
        return True
    v = ctx.weapon(victim_key)
    return not v.spec.magic and v.level <= ctx.weapon(breaker_key).level


def _destroy(combat: KiaiCombat, f: Fighter, key: str, rule: str) -> None:
    if f.main == key:
        f.main = ""
    combat.emit("weapon_broken", f"{f.id}'s {key.split('/')[-1]} is destroyed", actor=f.id, rule=rule, weapon=key)


def break_effect(combat: KiaiCombat, ctx: Ctx, st: KiaiState, fr: Frame, att: Fighter, tgt: Fighter) -> None:
    """KIA-18.2 and KIA-18.3: damage against the threshold; breaking back if the weapon survives."""
    victim = tgt.main
    if not victim:
        return
    aspec = ctx.spec[att.id]
    dmg = damage_roll(combat, ctx, att.id, aspec.attack, ctx.weapon(fr.weapon).level, "KIA-18.2",
                      purpose="breaking damage")
    thr = threshold(ctx, tgt, victim)
    if dmg > thr:
        _destroy(combat, tgt, victim, "KIA-18.2")
        return
    combat.emit("weapon_survives", f"{tgt.id}'s weapon holds ({dmg} <= {thr})", actor=tgt.id, rule="KIA-18.2",
                damage=dmg, threshold=thr)
    mine = att.main
    if not mine or not can_break(ctx, victim, mine):  # KIA-18.3 / KIA-18.4 with roles reversed
        return
    tspec = ctx.spec[tgt.id]
    back = damage_roll(combat, ctx, tgt.id, tspec.attack, ctx.weapon(victim).level, "KIA-18.3",
                       purpose="breaking-back damage")
    thr2 = threshold(ctx, att, mine)
    if back > thr2:
        _destroy(combat, att, mine, "KIA-18.3")


def disarm_effect(combat: KiaiCombat, ctx: Ctx, st: KiaiState, att: Fighter, tgt: Fighter) -> None:
    """KIA-19.1 / KIA-19.2: the weapon is knocked away unless caught (quickness x 2)."""
    key = tgt.main
    if not key:
        return
    spec = ctx.spec[tgt.id]
    quick = spec.quickness if spec.quickness is not None else spec.agility
    if succeeded(check(combat, ctx, tgt, "catch", quick * 2, 1, [], "KIA-19.2")):
        combat.emit("weapon_caught", f"{tgt.id} catches its {key.split('/')[-1]}", actor=tgt.id, rule="KIA-19.2",
                    weapon=key)
        return
    tgt.main = ""
    assert tgt.hex is not None
    st.ground.append((tgt.hex, key))
    combat.emit("weapon_dropped", f"{tgt.id}'s {key.split('/')[-1]} falls to {list(tgt.hex)}", actor=tgt.id,
                rule="KIA-19.2", weapon=key, hex=list(tgt.hex))


def take_in_hand(ctx: Ctx, f: Fighter, key: str) -> None:
    """KIA-24.2: put a weapon in the main hand; the old one is carried; two-handed empties the off hand."""
    if f.main:
        f.carried.append(f.main)
    if key in f.carried:
        f.carried.remove(key)
    if f.off == key:
        f.off = ""
    f.main = key
    if ctx.weapon(key).spec.hands == 2 and f.off:
        f.carried.append(f.off)
        f.off = ""


def ready_weapon(combat: KiaiCombat, ctx: Ctx, f: Fighter, key: str) -> None:
    """KIA-24.2: ready a carried or off-hand weapon."""
    take_in_hand(ctx, f, key)
    combat.emit("weapon_readied", f"{f.id} readies {key.split('/')[-1]}", actor=f.id, rule="KIA-24.2", weapon=key,
                main=f.main, off=f.off or None, carried=list(f.carried))


def pick_up(combat: KiaiCombat, ctx: Ctx, st: KiaiState, f: Fighter, key: str) -> None:
    """KIA-19.3: take a weapon from the ground (main hand if empty, else carried)."""
    for i, (_h, k) in enumerate(st.ground):
        if k == key:
            del st.ground[i]
            break
    if not f.main:
        take_in_hand(ctx, f, key)
    else:
        f.carried.append(key)
    combat.emit("weapon_picked_up", f"{f.id} picks up {key.split('/')[-1]}", actor=f.id, rule="KIA-19.3",
                weapon=key, main=f.main or None)
