"""How good a position is for one side, in [-1, 1]: what a truncated playout is scored by.

A finished combat is worth its result (a draw a little less than nothing, so that search closes fights
it can win instead of waiting for the round cap). A running one is scored from the combatant views every
system gives: the balance of hit points, of combatants still able to act, and of the conditions on each
side, plus what each system keeps that hit points do not show (its `RuleSystem.value_extra`: moonlit's TP).
"""

from __future__ import annotations

from trpg_arena.rules import Combat

DRAW = -0.2  # a draw is worth a little less than an even position: a fight that can be won should be

# Conditions that help their bearer (everything else a view lists counts against it).
GOOD_CONDITIONS = frozenset({"concentrating", "baptism", "channeling", "pending_bonus", "full_defense", "hidden",
                             "holding", "in_cover", "parrying", "in_vehicle"})


def position_value(combat: Combat, side: str) -> float:
    """Value of `combat` for `side` in [-1, 1]: the result when over, else a weighted balance of the sides."""
    outcome = combat.state.outcome
    if outcome is not None:
        result = outcome.result
        return DRAW if result == "draw" else (1.0 if result == side else -1.0)
    hp = [0.0, 0.0]
    hp_max = [0.0, 0.0]
    able = [0, 0]
    count = [0, 0]
    bad = [0.0, 0.0]
    for v in combat.combatants:
        i = 0 if v.side == side else 1
        count[i] += 1
        hp_max[i] += max(v.max_hp, 1)
        if v.able:
            able[i] += 1
            hp[i] += max(0, min(v.hp, v.max_hp))
            bad[i] += sum(-0.5 if c.rstrip("0123456789") in GOOD_CONDITIONS else 1.0 for c in v.conditions)
    hp_term = hp[0] / (hp_max[0] or 1) - hp[1] / (hp_max[1] or 1)
    able_term = able[0] / (count[0] or 1) - able[1] / (count[1] or 1)
    cond_term = (bad[1] / (count[1] or 1) - bad[0] / (count[0] or 1)) / 3.0
    value = 0.5 * hp_term + 0.3 * able_term + 0.1 * max(-1.0, min(1.0, cond_term))
    weight = combat.system.value_weight  # what the system's own state adds (`RuleSystem.value_extra`)
    if weight:
        value += weight * combat.system.value_extra(combat, side)
    return max(-0.95, min(0.95, value))  # a running fight is never worth a certain result
