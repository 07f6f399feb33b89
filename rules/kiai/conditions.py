"""Conditions and their durations (section 8, KIA-23.3, KIA-13.1, KIA-17.3, KIA-8.2, KIA-20.1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.kiai.state import UNTIL_NEXT_TURN, ActiveCondition, Fighter
from trpg_arena.rules.kiai.verbs import Condition

if TYPE_CHECKING:
    from trpg_arena.rules.kiai.state import KiaiCombat

UNTIL_NEXT = frozenset((Condition.EXPOSED_ALL_OUT, Condition.EXPOSED_CHARGE, Condition.RUNNING,
                        Condition.CONCENTRATING))
COUNTED_AT_END = frozenset((Condition.INTIMIDATED, Condition.DECEIVED))


def add_condition(combat: KiaiCombat, f: Fighter, ctype: str, *, source: str = "", n: int = UNTIL_NEXT_TURN,
                  mode: str = "", rule: str) -> None:
    """Add a condition; the same one again (same source for intimidated) keeps N = max (KIA-23.3)."""
    for c in f.conds:  # usually none
        if c.type == ctype and (ctype != Condition.INTIMIDATED or c.source == source):
            c.n = max(c.n, n) if n != UNTIL_NEXT_TURN else c.n
            if mode:
                c.mode = mode
            combat.emit("condition_added", f"{f.id} is {ctype} again (N {c.n})", actor=f.id, rule=rule,
                        condition=ctype, source=source or None, n=c.n, mode=c.mode or None)
            return
    f.conds.append(ActiveCondition(ctype, source, n, mode))
    if not combat.recording:  # the sentence is only built to be logged
        return
    if source or mode or n != UNTIL_NEXT_TURN:
        text = (f"{f.id} is {ctype}{f' by {source}' if source else ''}{f' (N {n})' if n != UNTIL_NEXT_TURN else ''}"
                f"{f' ({mode})' if mode else ''}")
    else:  # the usual case: running, exposed, concentrating
        text = f"{f.id} is {ctype}"
    combat.emit("condition_added", text, actor=f.id, rule=rule, condition=ctype, source=source or None, n=n,
                mode=mode or None)


def _remove(combat: KiaiCombat, f: Fighter, c: ActiveCondition, rule: str) -> None:
    f.conds.remove(c)
    _removed(combat, f, c, rule)


def _removed(combat: KiaiCombat, f: Fighter, c: ActiveCondition, rule: str) -> None:
    """Emit `condition_removed` for a condition already taken off `f`."""
    if combat.recording:
        combat.emit("condition_removed", f"{f.id} is no longer {c.type}", actor=f.id, rule=rule,
                    condition=c.type, source=c.source or None)


def turn_start_expiry(combat: KiaiCombat, f: Fighter) -> None:
    """KIA-1.5: effects lasting "until the next turn" end at the start of the combatant's turn."""
    conds = f.conds
    if not conds:
        return
    if len(conds) == 1:  # the usual case: one condition (running, concentrating, exposed...)
        c = conds[0]
        if c.type in UNTIL_NEXT:
            conds.clear()
            _removed(combat, f, c, "KIA-1.5")
        return
    gone = [c for c in conds if c.type in UNTIL_NEXT]
    if gone:
        conds[:] = [c for c in conds if c.type not in UNTIL_NEXT]  # the same list, in place, order kept
        for c in gone:
            _removed(combat, f, c, "KIA-1.5")


def stun_tick(combat: KiaiCombat, f: Fighter) -> bool:
    """KIA-23.3: a stunned combatant skips its turn, N -= 1, removed at 0. Returns whether it was stunned."""
    for c in f.conds:
        if c.type == Condition.STUNNED:
            c.n -= 1
            combat.emit("turn_skipped", f"{f.id} is stunned and skips its turn (N {c.n})", actor=f.id,
                        rule="KIA-23.3", n=c.n)
            if c.n <= 0:
                _remove(combat, f, c, "KIA-23.3")
            return True
    return False


def turn_end_tick(combat: KiaiCombat, f: Fighter) -> None:
    """KIA-23.3: intimidated and deceived count down at the end of each of its turns (skipped ones too)."""
    for c in f.conds:
        if c.type in COUNTED_AT_END:
            break
    else:  # the usual case: nothing counts down
        return
    for c in [c for c in f.conds if c.type in COUNTED_AT_END]:
        c.n -= 1
        if c.n <= 0:
            _remove(combat, f, c, "KIA-23.3")
