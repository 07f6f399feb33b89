"""Damage, defense, damage levels, the wound track and the end of combat (KIA-4 to KIA-7, KIA-17.2, KIA-25.1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import Outcome, Termination
from trpg_arena.rules.core.wording import counted
from trpg_arena.rules.kiai.checks import STATUS_NAMES, status_index
from trpg_arena.rules.kiai.context import LEVEL_NAMES, Ctx
from trpg_arena.rules.kiai.state import KiaiState

if TYPE_CHECKING:
    from trpg_arena.rules.kiai.state import KiaiCombat


def roll_pool(combat: KiaiCombat, n: int, explode: bool, chain: bool, roller: str = "",
              purpose: str = "") -> tuple[int, list[list[int]]]:
    """Roll nD10; KIA-4.2: when n >= 2 and all n show one face, roll n more (again while `chain`).

    `roller` and `purpose` name the roll for dice rolled by hand; the extra dice say why they are asked for.
    """
    dice = combat.dice
    batch = dice.roll_many(n, 10, roller=roller, purpose=purpose)
    batches = [batch]
    total = sum(batch)
    while explode and n >= 2 and all(d == batch[0] for d in batch):
        batch = dice.roll_many(n, 10, roller=roller,
                               purpose=f"{purpose}: all {n} dice showed {batch[0]}, so {n} more are added")
        batches.append(batch)
        total += sum(batch)
        if not chain:
            break
    return total, batches


def charge_multiplier(ctx: Ctx, attacker: str, weapon_key: str) -> tuple[int, int]:
    """KIA-17.2: x3 dragon knight; x2 airborne or lance; else x1.5 (no stacking), as a fraction."""
    spec = ctx.spec[attacker]
    if spec.dragon_knight:
        return 3, 1
    if spec.airborne or ctx.weapon(weapon_key).spec.category == "lance":
        return 2, 1
    return 3, 2


def damage_roll(combat: KiaiCombat, ctx: Ctx, who: str, base: int, n: int, rule: str, *,
                mult: tuple[int, int] = (1, 1), purpose: str = "damage") -> int:
    """KIA-4.1/4.2: base + nD10 with explosions, times a charge multiplier rounded down (KIA-0.5)."""
    dice, batches = roll_pool(combat, n, True, ctx.opts.explosion_chain, who, purpose)
    raw = base + dice
    total = raw * mult[0] // mult[1]
    xtxt = "" if mult == (1, 1) else f" x{mult[0]}/{mult[1]}"
    combat.emit("damage_rolled", f"{who} {purpose}: {base} + {batches} = {raw}{xtxt} -> {total}", actor=who,
                rule=rule, purpose=purpose, base=base, dice=batches[0], explosions=batches[1:],
                multiplier=list(mult), raw=raw, total=total)
    return total


def defense_roll(combat: KiaiCombat, ctx: Ctx, target: str) -> int:
    """KIA-6.1: defense + (armour level)D10 (explodes only with `explode_defense`)."""
    spec = ctx.spec[target]
    dice, batches = roll_pool(combat, spec.armour.level, ctx.opts.explode_defense, ctx.opts.explosion_chain,
                              target, "defence against the damage")
    total = spec.defense + dice
    combat.emit("defense_rolled", f"{target} defense: {spec.defense} + {batches} = {total}", actor=target,
                rule="KIA-6.1", dice=batches[0], explosions=batches[1:], total=total)
    return total


def take_damage(combat: KiaiCombat, ctx: Ctx, st: KiaiState, target: str, damage: int, rises: tuple[str, ...],
                rule: str) -> None:
    """Defense roll, net damage, damage level and wound (KIA-6.1, KIA-7.1 to KIA-7.5), then the end check.

    `rises` names the cause of each level the wound goes up ("the critical", "the failed counter").
    """
    defense = defense_roll(combat, ctx, target)
    net = max(0, damage - defense)  # KIA-7.1
    record_wound(combat, ctx, st, target, net, rises, rule)


def _wound_sentence(target: str, net: int, th: tuple[int, ...], base: int, causes: tuple[str, ...], name: str,
                    box: str | None, status: str) -> str:
    """``kaede: 1 through the defence, under the 5 a light wound needs: no wound; unhurt`` (KIA-7.1 to 7.6)."""
    if base < 0:
        through = f"{target}: {net} through the defence, under the {th[0]} a light wound needs"
    else:
        through = f"{target}: {net} through the defence: {LEVEL_NAMES[base]} (from {th[base]})"
    if causes:  # each level up named by its cause: a critical, a failed attack-defense or counter
        through += f", {counted(len(causes), 'level')} up for {' and '.join(causes)}"
    if name == "none":
        wound = "no wound"
    elif box is not None and box != name:
        wound = f"a {name} wound, its boxes full: marked {box}" if box != "dead" else f"a {name} wound, no box left"
    else:
        wound = f"a {name} wound" if name != "dead" else "dead"
    if status == "dead":
        return f"{through}: {wound}" + ("" if wound == "dead" else ": dead")
    return f"{through}: {wound}; " + ("unhurt" if status == "none" else f"worst wound {status}")


def record_wound(combat: KiaiCombat, ctx: Ctx, st: KiaiState, target: str, net: int, rises: tuple[str, ...],
                 rule: str) -> None:
    """KIA-7.3 to KIA-7.6: find the level, raise it, check a box (overflowing upwards), then KIA-25.1."""
    th = ctx.thresholds[target]
    base = -1
    for i in range(5):  # KIA-7.3: highest level whose threshold <= net
        if net >= th[i]:
            base = i
    level = base
    applied: tuple[str, ...] = ()
    if rises and (net > 0 or not ctx.opts.level_up_requires_penetration):  # KIA-7.4, KIA-5.1
        applied = rises
        level = min(4, base + len(rises))
    f = st.fighters[target]
    name = "none" if level < 0 else LEVEL_NAMES[level]
    box = None
    if level >= 0:
        lv = level
        while lv < 4 and f.wounds[lv] >= ctx.boxes[lv]:  # KIA-7.5 overflow
            lv += 1
        if lv >= 4:
            f.dead = True
            box = "dead"
        else:
            f.wounds[lv] += 1
            box = LEVEL_NAMES[lv]
    s = status_index(f)
    combat.emit("wound_recorded", _wound_sentence(target, net, th, base, applied, name, box, STATUS_NAMES[s + 1]),
                actor=target, rule=rule, net=net,
                base_level="none" if base < 0 else LEVEL_NAMES[base], rises=len(applied), level=name, box=box,
                status=STATUS_NAMES[s + 1], wounds=list(f.wounds))
    if s >= 3 and not f.out:  # KIA-7.6: mortal = incapacitated, dead = out
        f.out = "dead" if s == 4 else "incapacitated"
        combat.emit("out", f"{target} is {f.out}", actor=target, rule="KIA-7.6", status=f.out)
        check_end(combat, ctx, st)


def check_end(combat: KiaiCombat, ctx: Ctx, st: KiaiState) -> bool:
    """KIA-25.1: exactly one side left wins, none left is a draw; ends at once (pending procedures dropped)."""
    sides = list(dict.fromkeys(ctx.side[cid] for cid, f in st.fighters.items() if not f.out))
    if len(sides) > 1:
        return False
    winner = sides[0] if sides else None
    finish(combat, st, winner, Termination.ELIMINATED)
    return True


def finish(combat: KiaiCombat, st: KiaiState, winner: str | None, how: Termination) -> None:
    """Set the outcome and emit `combat_ended`."""
    st.stack.clear()
    st.decision = None
    st.outcome = Outcome(winner, how, st.round)
    combat.emit("combat_ended", f"combat ends in round {st.round}: {f'side {winner} wins' if winner else 'draw'} "
                f"({how.value})",
                rule="KIA-25.1", result=winner or "draw", winner=winner, round=st.round)
