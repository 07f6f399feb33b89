"""Throughput benchmarks: decisions per second of random and scripted play, engine-level and through the env.

The yardstick is PettingZoo's ``connect_four_v3`` played with random masked actions in the same run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from trpg_arena.rules import RULESETS, Combat, builtin_encounters


@dataclass
class BenchRow:
    """One measurement."""

    target: str
    mode: str  # "engine" or "env"
    agent: str
    decisions: int
    seconds: float

    @property
    def per_second(self) -> float:
        """Decisions (or env steps) per second."""
        return self.decisions / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict[str, object]:
        """JSON-safe form."""
        return {**asdict(self), "per_second": round(self.per_second, 1)}


def _timed(budget: float, one_game: Callable[[int], int]) -> tuple[int, float]:
    start = time.perf_counter()
    n, seed = 0, 0
    while time.perf_counter() - start < budget:
        n += one_game(seed)
        seed += 1
    return n, time.perf_counter() - start


def bench_engine(encounter: str, agent_name: str, budget: float) -> BenchRow:
    """Whole games at engine level; counts every decision (the agents' and the forced ones)."""
    from trpg_arena.agents import make_agent

    rid = encounter.split("/")[0]

    def game(seed: int) -> int:
        c = Combat(encounter, seed=seed)
        agents = [make_agent(agent_name, rid, seed=seed + i) for i in range(len(c.sides))]
        n0 = len(c.log)
        c.play(agents)
        return sum(1 for e in c.log[n0:] if e.kind in ("decision", "auto_decision"))

    n, s = _timed(budget, game)
    return BenchRow(encounter, "engine", agent_name, n, s)


def bench_env(encounter: str, budget: float) -> BenchRow:
    """Random masked steps through the Gymnasium env (opponent random), counting env steps."""
    import gymnasium

    import trpg_arena.envs  # noqa: F401 - registers the envs

    rid = encounter.split("/")[0]
    env = gymnasium.make(RULESETS[rid].info.env_id, encounter=encounter, opponent="random")
    rng = np.random.default_rng(0)

    def game(seed: int) -> int:
        _, info = env.reset(seed=seed)
        steps, done = 0, False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, _, done, _, info = env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        return steps

    n, s = _timed(budget, game)
    return BenchRow(encounter, "env", "random", n, s)


def bench_connect_four(budget: float) -> BenchRow:
    """PettingZoo connect_four_v3 with random masked actions: the bar to clear."""
    import os

    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env()
    rng = np.random.default_rng(0)

    def game(seed: int) -> int:
        env.reset(seed=seed)
        steps = 0
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]))
                steps += 1
        return steps

    n, s = _timed(budget, game)
    return BenchRow("pettingzoo/connect_four_v3", "env", "random", n, s)


def bench_targets(systems: list[str] | None = None) -> list[str]:
    """Encounters benchmarked per system: skirmish and brawl where present."""
    out = []
    for rid in systems or list(RULESETS):
        names = builtin_encounters(RULESETS[rid])
        out += [n for n in (f"{rid}/skirmish", f"{rid}/brawl") if n in names]
    return out
