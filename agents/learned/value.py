"""Chances of winning read from a learned value model, for one position or a batch of them.

The model was trained on positions seen from the side that decides there, so a position where the
other side decides is scored from that side's view and turned round (the fights are two-sided).
A finished combat is worth its result; a draw a little less than an even fight, so that the agent
closes fights it can win instead of waiting for the round cap (as the hand-written value does).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from trpg_arena.agents.learned.model import ValueModel
from trpg_arena.rules import Combat

DRAW = 0.4


def win_chances(model: ValueModel, combats: Sequence[Combat], side: str, masks: np.ndarray | None = None
                ) -> np.ndarray:
    """P(`side` wins) for each combat: results for finished ones, the model (one batch) for the rest.

    With dropout `masks` (`ValueModel.dropout_masks`), one row per mask: shape (k, len(combats)).
    """
    from trpg_arena.agents.search.value import position_value
    from trpg_arena.rules.core.features import encode

    out = np.empty((1 if masks is None else len(masks), len(combats)), dtype=np.float64)
    rows: list[np.ndarray] = []
    where: list[tuple[int, bool]] = []  # (index, seen from `side`'s own view)
    for i, c in enumerate(combats):
        outcome = c.state.outcome
        if outcome is not None:
            out[:, i] = DRAW if outcome.result == "draw" else (1.0 if outcome.result == side else 0.0)
            continue
        decision = c.decision
        assert decision is not None and decision.side is not None  # `Combat.decision` names the side
        rows.append(np.append(encode(c, decision.side), np.float32(position_value(c, decision.side))))
        where.append((i, decision.side == side))
    if rows:
        p = model.predict(np.stack(rows), masks).reshape(out.shape[0], len(rows))
        for k, (i, own) in enumerate(where):
            out[:, i] = p[:, k] if own else 1.0 - p[:, k]
    return out[0] if masks is None else out


def win_chance(model: ValueModel, combat: Combat, side: str) -> float:
    """P(`side` wins) from one position."""
    return float(win_chances(model, [combat], side)[0])
