"""Search agent: Monte Carlo search at the root (UCB1 over the legal actions) with policy playouts.

Chance is handled by sampling: every simulation runs on a `clone()` whose dice are replaced by the
agent's own RNG, so thinking ahead never consumes (or peeks at) the live combat's dice stream.
Playouts follow the system's scripted agent where one is registered (uniformly random otherwise):
random playouts in systems where a random player flees or wastes its turns say little about a move.
"""

from __future__ import annotations

import math

import numpy as np

from trpg_arena.agents.base import Agent
from trpg_arena.agents.proposal import Proposal
from trpg_arena.agents.spec import register_agent
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
class MCTSAgent(Agent):
    """UCB1 over a few root candidates with `simulations` policy playouts of up to `depth` decisions each."""

    def __init__(self, ruleset: str | None = None, rng: np.random.Generator | None = None,
                 seed: int | None = None, simulations: int = 60, depth: int = 200, c: float = 1.0,
                 playout: str = "", candidates: int = 6, margin: float = 2.0) -> None:
        from trpg_arena.agents.spec import agent_names, make_agent

        super().__init__(ruleset, rng if rng is not None else np.random.default_rng(seed))
        seed = int(self.rng.integers(2**31))
        self.simulations = simulations
        self.depth = depth
        self.c = c
        self.candidates = candidates
        self.margin = margin
        if not playout:
            playout = "scripted" if ruleset is not None and "scripted" in agent_names(ruleset) else "random"
        # Two instances: scripted agents may keep per-combat memory, which playouts on clones must not disturb.
        self.policy = make_agent(playout, ruleset, seed=seed) if ruleset is not None else None
        self.root_policy = make_agent(playout, ruleset, seed=seed) if ruleset is not None else None

    def _playout(self, combat: Combat, side: str) -> float:
        for _ in range(self.depth):
            if combat.over:
                break
            if self.policy is not None:
                combat.act(self.policy.act(combat))
            else:
                legal = combat.legal_actions()
                combat.act(legal[int(self.rng.integers(len(legal)))])
        return hp_balance(combat, side)

    def propose(self, combat: Combat) -> Proposal:
        """The search's choice."""
        return Proposal(self.act(combat), 0.0, ("the search's choice",))

    def act(self, combat: Combat) -> Action:
        """The candidate action with the best mean playout value (the playout policy's own choice wins ties)."""
        legal = combat.legal_actions()
        if len(legal) == 1:
            return legal[0]
        d = combat.decision
        assert d is not None
        side = next(v.side for v in combat.combatants if v.id == d.actor)
        # Candidates: the playout policy's choice first, then a random sample of the others.
        first = self.root_policy.act(combat) if self.root_policy is not None else legal[0]
        others = [a for a in legal if a != first]
        pick = self.rng.permutation(len(others))[: self.candidates - 1]
        cands = [first] + [others[int(i)] for i in pick]
        n = np.zeros(len(cands))
        w = np.zeros(len(cands))
        w2 = np.zeros(len(cands))
        for t in range(max(self.simulations, len(cands))):
            if t < len(cands):
                i = t
            else:
                i = int(np.argmax(w / n + self.c * np.sqrt(math.log(t + 1) / n)))
            sim = combat.clone(dice=Dice(np.random.default_rng(int(self.rng.integers(2**63)))))
            sim.act(cands[i])
            value = self._playout(sim, side)
            w[i] += value
            w2[i] += value * value
            n[i] += 1
        n = np.maximum(n, 1)
        mean = w / n
        var = np.maximum(w2 / n - mean * mean, 0.0)
        best = int(np.argmax(mean))
        # Leave the policy's choice only for a clearly better one (by `margin` standard errors of the
        # difference): a few noisy playouts must not override a sound policy.
        se = math.sqrt(var[best] / n[best] + var[0] / n[0]) + 1e-9
        return cands[best] if mean[best] - mean[0] > self.margin * se else cands[0]
