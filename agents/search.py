"""Search agent: Monte Carlo tree search at the root (UCB1 over the legal actions) with random playouts.

Chance is handled by sampling: every simulation runs on a `clone()` whose dice are replaced by the
agent's own RNG, so thinking ahead never consumes (or peeks at) the live combat's dice stream.
"""

from __future__ import annotations

import math

import numpy as np

from trpg_arena.agents.base import register_agent
from trpg_arena.rules import Action, Combat, Dice


def hp_balance(combat: Combat, side: str) -> float:
    """Value in [-1, 1] of a position for `side`: the result if over, else the hp-fraction difference."""
    if combat.over:
        return 0.0 if combat.result == "draw" else (1.0 if combat.result == side else -1.0)
    own = own_max = other = other_max = 0
    for v in combat.combatants:
        hp = max(0, v.hp) if v.able else 0
        if v.side == side:
            own, own_max = own + hp, own_max + v.max_hp
        else:
            other, other_max = other + hp, other_max + v.max_hp
    return 0.5 * ((own / own_max if own_max else 0.0) - (other / other_max if other_max else 0.0))


@register_agent("mcts")
class MCTSAgent:
    """UCB1 over the root's legal actions with `simulations` random playouts of `depth` decisions each."""

    def __init__(self, ruleset: str | None = None, seed: int | None = None, simulations: int = 48,
                 depth: int = 60, c: float = 1.2) -> None:
        self.rng = np.random.default_rng(seed)
        self.simulations = simulations
        self.depth = depth
        self.c = c

    def _playout(self, combat: Combat, side: str) -> float:
        for _ in range(self.depth):
            if combat.over:
                break
            legal = combat.legal_actions()
            combat.act(legal[int(self.rng.integers(len(legal)))])
        return hp_balance(combat, side)

    def act(self, combat: Combat) -> Action:
        """The root action with the best mean playout value."""
        legal = combat.legal_actions()
        if len(legal) == 1:
            return legal[0]
        d = combat.decision
        assert d is not None
        side = next(v.side for v in combat.combatants if v.id == d.actor)
        n = np.zeros(len(legal))
        w = np.zeros(len(legal))
        for t in range(max(self.simulations, len(legal))):
            if t < len(legal):
                i = t
            else:
                ucb = w / n + self.c * np.sqrt(math.log(t + 1) / n)
                i = int(np.argmax(ucb))
            sim = combat.clone()
            sim.dice = Dice(np.random.default_rng(int(self.rng.integers(2**63))))
            sim.act(legal[i])
            w[i] += self._playout(sim, side)
            n[i] += 1
        return legal[int(np.argmax(w / np.maximum(n, 1)))]
