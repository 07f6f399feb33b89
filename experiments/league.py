"""A self-play league: the opponents a learner meets, drawn per episode from its own past and fixed anchors.

The pool is a folder of frozen snapshots of the learner (``step-<n>.zip``, each with its card, played as
``policy:<file>``; or, for a rule system's `ppo` policy, ``step-<n>.npz`` played as ``ppo:model=<file>``),
which the training run writes every ``snapshot_every`` steps, plus anchor agents named by spec
(``scripted``, ``mcts:easy``). Every env holds a `League` as its opponent and asks it for one at
each reset (`for_episode`), so the league lives in the env wrapper and works the same in one
process or in a process per env (each reads the folder). By default an episode is played against
the latest snapshot with probability ``latest`` (0.8), else against one of the older snapshots and
anchors, uniformly; with ``pfsp`` the older ones are weighted by how often the learner still
loses to them, ``(1 - win rate)^2`` (prioritised fictitious self-play), from the results the env
reports (`episode_over`). Before the first snapshot exists, the anchors play.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from trpg_arena.agents import Agent, make_agent


@dataclass
class League:
    """Opponents for one env (see the module docstring)."""

    ruleset: str
    pool: Path
    anchors: tuple[str, ...] = ("scripted",)
    latest: float = 0.8
    pfsp: bool = False
    pattern: str = "step-*.zip"  # the snapshots' file names in the pool
    agent: str = "policy:{}"  # the agent spec that plays a snapshot file
    results: dict[str, list[int]] = field(default_factory=dict)  # opponent -> [learner wins, games]
    _loaded: dict[str, Agent] = field(default_factory=dict, repr=False)
    _current: str | None = None

    def snapshots(self) -> list[Path]:
        """The learner's frozen snapshots, oldest first."""
        return sorted(self.pool.glob(self.pattern), key=lambda p: int(p.stem.split("-")[1]))

    def for_episode(self, rng: np.random.Generator) -> Agent:
        """The opponent of the next episode."""
        names = self._choose(rng)
        self._current = names
        agent = self._loaded.get(names)
        if agent is None:
            agent = make_agent(names, self.ruleset, seed=int(rng.integers(2**31)))
            if names not in self.anchors:  # a snapshot never changes: keep it loaded
                self._loaded[names] = agent
        elif hasattr(agent, "rng"):
            agent.rng = np.random.default_rng(int(rng.integers(2**31)))
        return agent

    def episode_over(self, learner_won: bool) -> None:
        """Count the finished episode against the opponent it was played with (PFSP's weights)."""
        if self._current is None:
            return
        tally = self.results.setdefault(self._current, [0, 0])
        tally[0] += int(learner_won)
        tally[1] += 1

    def _choose(self, rng: np.random.Generator) -> str:
        snapshots = [self.agent.format(p) for p in self.snapshots()]
        if snapshots and rng.random() < self.latest:
            return snapshots[-1]
        others = snapshots[:-1] + list(self.anchors)
        if not others:
            return snapshots[-1]
        weights = np.array([self._weight(name) for name in others], dtype=float)
        return others[int(rng.choice(len(others), p=weights / weights.sum()))]

    def _weight(self, name: str) -> float:
        if not self.pfsp:
            return 1.0
        wins, games = self.results.get(name, (0, 0))
        rate = wins / games if games else 0.5
        return max(1e-3, (1.0 - rate) ** 2)
