"""Moonlit's tactical arithmetic: 2D6 odds and the expected worth of an attack on one target.

Everything here reads the engine's static tables and fighters; nothing rolls.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

# P(2D6 >= k)
_AT_LEAST = {k: sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= k) / 36 for k in range(-20, 30)}
_WAYS = {n: sum(1 for a in range(1, 7) for b in range(1, 7) if a + b == n) for n in range(2, 13)}
# P(2D6 + d > 2D6): the attacker beats the defender (ties go to the defender); from 11 on either side it is sure
_BEATS = {d: sum(_WAYS[x] * _WAYS[y] for x in range(2, 13) for y in range(2, 13) if x + d > y) / 1296
          for d in range(-11, 12)}


def p_at_least(k: int) -> float:
    """Probability that 2D6 is at least k."""
    return 1.0 if k <= 2 else 0.0 if k > 12 else _AT_LEAST[k]


def p_beats(diff: int) -> float:
    """Probability that 2D6 + diff beats another 2D6 (strictly)."""
    return _BEATS[-11 if diff < -11 else 11 if diff > 11 else diff]


def avg(expr: Any) -> float:
    """Mean of a dice expression (0 for none)."""
    return 0.0 if expr is None else expr.count * 3.5 + expr.flat


def _positive_part(mu: float, sd: float) -> float:
    """E[max(0, X)] for X ~ Normal(mu, sd): damage that can still get through on a good roll."""
    z = mu / sd
    return mu * 0.5 * (1 + math.erf(z / math.sqrt(2))) + sd * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)


class Strike(NamedTuple):
    """One attack skill against one target: hit chance, expected damage through, after-damage bonus, worth."""

    p_hit: float
    damage: float
    bonus: float
    value: float


def strike(t: Any, me: Any, s: Any, sk: Any, g: Any) -> Strike:
    """Expected worth of hitting g with attack skill sk: net damage (kill-weighted) plus after-damage effects."""
    gs = t.stats[g.id]
    w = s.weapon
    base = avg(sk.damage) + (w.damage_flat if w is not None and w.type == sk.type else 0)
    n_red = 0 if sk.element else gs.defense + gs.armour_dice
    red = gs.attributes.get(sk.element, 0) if sk.element else 3.5 * n_red
    net = base - red
    traits = not g.baptism and ("unacceptable_existence" in gs.skills or "death_rebirth" in gs.skills)
    if not g.baptism and "unacceptable_existence" in gs.skills:
        net -= 5
    n_dice = (sk.damage.count if sk.damage is not None else 0) + n_red
    net = _positive_part(net, math.sqrt(35 / 12 * max(1, n_dice)))
    bonus = 0.0
    for eff in sk.after_damage:
        if eff == "baptism" and traits:
            bonus += 25.0  # strips death_rebirth / unacceptable_existence: the key to beating such a foe
        elif eff in ("trance", "paralysis", "bind") and not getattr(g, eff):
            bonus += 3.0
        elif eff == "poison":
            bonus += 2.0
    hit_mod = (w.hit_mod if w is not None and w.type == sk.type else 0) - (3 if me.bind else 0)
    p = p_beats(s.stat(sk.type) + hit_mod - gs.stat(sk.type) + (3 if g.bind else 0))
    kill = 1.5 if net >= g.hp else 1.0
    return Strike(p, net, bonus, p * (net * kill + bonus))
