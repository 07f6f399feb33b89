"""The feature vector written plainly, row by row: what the fast `encode_rows` must give, value for value.

`trpg_arena.rules.core.features.encode_rows` runs at every env step and is written for speed; this is
the straightforward form of the same definition (the module docstring's), kept as the reference the
tests compare it with on many states. The learned models read these values, so they must not move.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trpg_arena.rules import Combat, CombatantView
from trpg_arena.rules.core.features import _NO_STATIC, FAR, Encoded, FeatureLimitError, _focus, _layout, _prepared
from trpg_arena.rules.core.values import DecisionKind


def reference_encode_rows(combat: Combat, side: str) -> Encoded:
    """The feature vector, its rows' ids and the actor's node, one row at a time as the module docstring says."""
    system = combat.system
    layout = _layout(system)
    spec = layout.system
    prep = _prepared(layout, combat.encounter)
    bf = prep.battlefield
    dist = bf.distance
    los = bf.line_of_sight
    scale = spec.distance_scale
    static = prep.static
    order = prep.order
    limits = layout.limits
    views = combat.combatants
    decision = combat.decision
    decider = decision.actor if decision is not None else None

    memo = prep.distances
    if len(memo) > 200_000:  # a bound for huge boards; typical play meets a few thousand pairs
        memo.clear()

    def distance(a: Any, b: Any) -> float:
        d = memo.get((a, b))
        if d is None:
            d = memo[(a, b)] = float(dist(a, b))
        return d

    if side not in prep.sides:
        raise ValueError(f"no side '{side}' in encounter '{combat.encounter.encounter}' "
                         f"(sides: {', '.join(prep.sides)})")
    actor = _focus(views, side, decider, distance)
    allies: list[CombatantView] = []
    enemies: list[CombatantView] = []
    own_able = enemy_able = 0
    hp = [0, 0, 0, 0]  # own hp, own max, enemy hp, enemy max
    for v in views:
        mine = v.side == side
        if v.able:
            if mine:
                own_able += 1
                hp[0] += max(0, min(v.hp, v.max_hp))
            else:
                enemy_able += 1
                hp[2] += max(0, min(v.hp, v.max_hp))
        hp[1 if mine else 3] += max(1, v.max_hp)
        if v is actor:
            continue
        (allies if mine else enemies).append(v)
    if len(allies) > limits.allies or len(enemies) > limits.enemies:
        n, where = (len(allies) + 1, f"side '{side}'") if len(allies) > limits.allies else (len(enemies), "its enemies")
        raise FeatureLimitError(f"{layout.ruleset}: {n} combatants on {where} in encounter "
                                f"'{combat.encounter.encounter}'; the feature layout holds at most "
                                f"{limits.per_side} per side")
    anode = actor.node if actor is not None else None

    def key(v: Any) -> tuple[bool, float, int]:
        d = distance(anode, v.node) if anode is not None and v.node is not None else 1e9
        return (not v.able, d, order.get(v.id, 1 << 20))

    allies.sort(key=key)
    enemies.sort(key=key)
    side_limit = float(limits.per_side)
    kind = decision.kind if decision is not None else None
    dv_side = combat.side_of(decider) if decider is not None else None
    out: list[float] = [float(dv_side == side), float(kind == DecisionKind.TURN), float(kind == DecisionKind.REACTION),
                        own_able / side_limit, enemy_able / side_limit, hp[0] / (hp[1] or 1), hp[2] / (hp[3] or 1)]
    out += system.observe_global(combat)
    present = [v for v in (actor, *allies, *enemies) if v is not None]
    rows = iter(system.observe_combatants(combat, [v.id for v in present]) if system.combatant_features else ())
    row_size = layout.row_size
    empty = [0.0] * row_size
    a_static = static.get(actor.id, _NO_STATIC) if actor is not None else _NO_STATIC
    a_hp = max(1, actor.hp) if actor is not None else 1
    n_stats = len(spec.stats)
    zero_stats = (0.0,) * n_stats

    def row(v: Any, is_actor: bool) -> list[float]:
        st = static.get(v.id, _NO_STATIC)
        mx = v.max_hp
        r = [1.0, float(v.able), float(v.node is not None), float(v.kind == "pc"), float(v.id == decider),
             v.hp / mx if mx else 0.0, min(1.0, mx / 100.0), min(1.0, len(v.conditions) / 4)]
        if is_actor or anode is None or v.node is None:
            r += (0.0 if is_actor else FAR, 0.0, 0.0, 0.0, 0.0, 0.0)
        else:
            d = distance(anode, v.node)
            sees = los(anode, v.node) if d > 1 else True
            mine_reach = float(sees and v.able and actor.able and d <= a_static.reach)
            their_reach = float(sees and v.able and d <= st.reach)
            r += (min(1.0, d / scale), float(sees), mine_reach, their_reach,
                  min(1.0, their_reach * st.damage / a_hp), min(1.0, mine_reach * a_static.damage / max(1, v.hp)))
        r += st.stats or zero_stats
        if system.combatant_features:
            r += next(rows)
        return r

    row_ids: list[str | None] = []
    for group, limit, is_actor in (([actor] if actor is not None else [], 1, True), (allies, limits.allies, False),
                                   (enemies, limits.enemies, False)):
        for v in group:
            out += row(v, is_actor)
            row_ids.append(v.id)
        out += empty * (limit - len(group))
        row_ids += [None] * (limit - len(group))
    with np.errstate(over="ignore"):  # a feature beyond float32's range becomes inf, clipped to 1
        vec = np.array(out, dtype=np.float32)
    np.clip(vec, -1.0, 1.0, out=vec)
    return Encoded(vec, row_ids, anode)
