"""One self-play game reduced to its decision positions: features, side, outcome, hand-written value.

`play_positions` is what a series worker runs instead of `play_batch` (see `run_series(play=...)`):
the same games as a series of that spec would play (same seeds, same agents, same swaps), with, at
every decision, the features of `trpg_arena.rules.core.features` from the deciding side and the
hand-written value (`agents.search.value.position_value`) of the same position. With `noise`, each
decision is a uniformly random legal action with that probability instead of the agent's (from a
generator seeded by the game, so the game is still a pure function of spec and index).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from trpg_arena.agents import Agent
from trpg_arena.agents.proposal import Proposal
from trpg_arena.agents.search.value import position_value
from trpg_arena.experiments.runner import agents_for
from trpg_arena.experiments.series.spec import SeriesSpec
from trpg_arena.rules import Action, Combat
from trpg_arena.rules.core.features import encode, layout_for
from trpg_arena.table.session import Session

FEATURE_DTYPE = np.float16  # every feature is in [-1, 1]: half precision keeps 3 digits at half the size


class NoisyAgent(Agent):
    """An agent that, with probability `noise`, plays a uniformly random legal action instead."""

    def __init__(self, inner: Agent, noise: float, rng: np.random.Generator) -> None:
        super().__init__(inner.ruleset, rng)
        self.inner = inner
        self.noise = noise
        self.spec = f"{inner.spec or type(inner).__name__} + {noise:g} noise"

    def act(self, combat: Combat) -> Action:
        """The inner agent's action, or a random legal one."""
        if self.rng.random() < self.noise:
            legal = combat.legal_view()
            return legal[int(self.rng.integers(len(legal)))]
        return self.inner.act(combat)

    def propose(self, combat: Combat) -> Proposal:
        """`act`'s choice as a proposal."""
        return Proposal(self.act(combat), 0.0, ("self-play move",), ())


@dataclass(frozen=True)
class GamePositions:
    """The decision positions of one game (arrays of equal length) and the game's result."""

    index: int
    seed: int
    swapped: bool
    result: str
    decisions: int  # decisions the game took (every one, sampled or not)
    features: np.ndarray  # (n, layout size) float16
    side: np.ndarray  # (n,) int8: index of the deciding side in the encounter's side order
    decision: np.ndarray  # (n,) int32: the position's decision number within the game (0 first)
    outcome: np.ndarray  # (n,) int8: the final result from the deciding side: 1 win, 0 draw, -1 loss
    value: np.ndarray  # (n,) float32: the hand-written value of the position for the deciding side


def play_one(spec: SeriesSpec, i: int, noise: float = 0.0, sample: float = 1.0) -> GamePositions:
    """Game `i` of the series, recorded position by position (`sample`: the share of positions kept)."""
    enc = spec.encounter()
    seed = spec.seed(i)
    lineup = list(spec.lineup[::-1] if spec.swapped(i) else spec.lineup)
    combat = Combat(enc, seed=seed)
    agents: dict[str, Any] = agents_for(enc, lineup, seed)
    rng = np.random.default_rng([seed, i, 7])
    if noise > 0:
        agents = {side: NoisyAgent(a, noise, np.random.default_rng([seed, i, k])) for k, (side, a) in
                  enumerate(agents.items())}
    session = Session.attach(combat, agents)
    sides = enc.sides()
    side_index = {s: k for k, s in enumerate(sides)}
    size = layout_for(enc.ruleset).size
    rows: list[np.ndarray] = []
    who: list[int] = []
    when: list[int] = []
    values: list[float] = []
    n = 0
    while combat.decision is not None:
        side = combat.decision.side or combat.side_of(combat.decision.actor)
        if sample >= 1.0 or rng.random() < sample:
            rows.append(encode(combat, side))
            who.append(side_index[side])
            when.append(n)
            values.append(position_value(combat, side))
        if session.run(max_decisions=1) == 0:
            break  # nobody left to decide (cannot happen with agents on every side; kept as a guard)
        n += 1
    out = combat.outcome
    assert out is not None, "a self-play game ended without an outcome"
    result = out.result
    side_arr = np.array(who, dtype=np.int8)
    winner = side_index.get(result, -1)
    outcome = np.where(side_arr == winner, 1, -1).astype(np.int8) if winner >= 0 else np.zeros(len(who), np.int8)
    feats = np.array(rows, dtype=FEATURE_DTYPE) if rows else np.zeros((0, size), FEATURE_DTYPE)
    return GamePositions(i, seed, spec.swapped(i), result, n, feats, side_arr, np.array(when, dtype=np.int32),
                         outcome, np.array(values, dtype=np.float32))


def play_positions(spec: SeriesSpec, indices: list[int], noise: float = 0.0, sample: float = 1.0
                   ) -> list[GamePositions]:
    """A batch of recorded games: the unit of work a series worker takes (`run_series(play=...)`)."""
    return [play_one(spec, i, noise, sample) for i in indices]


def player(noise: float, sample: float) -> partial[list[GamePositions]]:
    """`play_positions` with its options bound (picklable, for the process pool and Ray)."""
    return partial(play_positions, noise=noise, sample=sample)
