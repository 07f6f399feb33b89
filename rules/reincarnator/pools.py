"""Dice pools (REI-3.1-3.3), contests (REI-3.4) and the explosive overlap formula (REI-8.2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from trpg_arena.rules.reincarnator.model import ReincarnatorOptions

if TYPE_CHECKING:
    from trpg_arena.rules.core.dice import Dice


@dataclass(frozen=True, slots=True)
class PoolRoll:
    """One pool roll: dice rolled (by batch), rolled successes r, extra successes added (t - r) and total t."""

    size: int
    dice: tuple[tuple[int, ...], ...]
    r: int
    es: int
    t: int
    chance: bool


def roll_pool(dice: Dice, size: int, opts: ReincarnatorOptions, es: int = 0, *, roller: str = "",
              purpose: str = "") -> PoolRoll:
    """Roll `size` d10 (or a chance die at 0 or less) and add `es` extra successes if r >= 1.

    `roller` and `purpose` name the roll for dice rolled by hand; the dice added for high faces say so.
    """
    batches: list[tuple[int, ...]] = []
    succ, again = opts.success_threshold, opts.again_threshold
    if size <= 0:
        # REI-3.2 chance die: only a 10 succeeds; it explodes only with the option
        face = dice.roll(10, roller=roller, purpose=f"{purpose} (a chance die: only a 10 succeeds)")
        batches.append((face,))
        r = 1 if face == 10 else 0
        if face == 10 and opts.chance_die_explodes:
            n = 1
            while n:
                batch = tuple(dice.roll_many(n, 10, roller=roller, purpose=f"{purpose}, again for the 10"))
                batches.append(batch)
                r += sum(1 for f in batch if f >= succ)
                n = sum(1 for f in batch if f >= again)
        chance = True
    else:
        # REI-3.1 batches: each die at or over the again threshold adds a die to the next batch
        r = 0
        n = size
        what = purpose
        while n:
            batch = tuple(dice.roll_many(n, 10, roller=roller, purpose=what))
            batches.append(batch)
            r += sum(1 for f in batch if f >= succ)
            n = sum(1 for f in batch if f >= again)
            what = f"{purpose}, again: a die for each {again}+ rolled"
        chance = False
    # REI-3.3 extra successes only on a success; a negative bonus (effects) takes the total down to 0, never below
    t = max(0, r + es) if r >= 1 else 0
    return PoolRoll(size, tuple(batches), r, t - r if r >= 1 else 0, t, chance)


def overlap(ratings: list[int]) -> int:
    """Blast rating of a cell covered by several simultaneous explosives (REI-8.2)."""
    if not ratings:
        return 0
    b0 = max(ratings)
    rest = sum(ratings) - b0
    base, bonus = b0, 0
    while rest >= base and base > 0:
        rest -= base
        inc = base // 3
        bonus += inc
        base += inc
        if inc == 0:
            break
    return b0 + min(bonus, b0)
