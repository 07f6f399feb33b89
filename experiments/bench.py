"""Throughput benchmarks: decisions and steps per second of random and scripted play, engine-level and through the env.

The yardstick is PettingZoo's ``connect_four_v3`` played with random masked actions in the same run. Env
rows count both: decisions (every engine decision, the opponent's and forced ones included) and steps
(the ``env.step`` calls a learner makes); the ratio to the yardstick is taken on steps, the speed a
learner sees (`BenchRow.ratio`).

Every row runs for a budget of seconds on a clock: the wall clock (``"wall"``, the default) or the
process's CPU time (``"cpu"``), which other programs on a busy machine do not eat into, so rows measured
minutes apart stay comparable.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from trpg_arena.rules import RULESETS, Combat, builtin_encounters, load_encounter
from trpg_arena.table.session import play


@dataclass
class BenchRow:
    """One measurement."""

    target: str
    mode: str  # "engine", "env" (Gymnasium, one learner decision per step) or "aec" (PettingZoo)
    agent: str
    decisions: int  # every engine decision taken (learner, opponents and forced ones)
    steps: int  # agent-facing steps: env.step calls (equal to decisions at engine level)
    seconds: float

    @property
    def per_second(self) -> float:
        """Decisions per second."""
        return self.decisions / self.seconds if self.seconds else 0.0

    @property
    def steps_per_second(self) -> float:
        """Agent-facing steps per second."""
        return self.steps / self.seconds if self.seconds else 0.0

    def ratio(self, yardstick: BenchRow) -> float:
        """Steps per second over the yardstick's (connect_four_v3: its moves per second)."""
        return self.steps_per_second / yardstick.steps_per_second if yardstick.steps_per_second else 0.0

    def to_json(self) -> dict[str, object]:
        """JSON-safe form."""
        return {**asdict(self), "per_second": round(self.per_second, 1),
                "steps_per_second": round(self.steps_per_second, 1)}


CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


def _timed(budget: float, one_game: Callable[[int], tuple[int, int]], clock: str = "wall") -> tuple[int, int, float]:
    # Long-lived objects from imports and setup (torch, gymnasium, pydantic, encounter tables) go to the
    # permanent generation so full collections don't rescan them: the same for every row, baseline included.
    now = CLOCKS[clock]
    gc.collect()
    gc.freeze()
    start = now()
    n = steps = seed = 0
    while now() - start < budget:
        d, s = one_game(seed)
        n, steps, seed = n + d, steps + s, seed + 1
    return n, steps, now() - start


def _random_aec_game(env: Any, rng: np.random.Generator, seed: int) -> int:
    """One PettingZoo AEC game with uniformly random masked actions; returns the steps taken."""
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


def bench_engine(encounter: str, agent_name: str, budget: float, clock: str = "wall") -> BenchRow:
    """Whole games at engine level; counts every decision (the agents' and the forced ones)."""
    from trpg_arena.agents import make_agent

    enc = load_encounter(encounter)
    rid = enc.ruleset

    def game(seed: int) -> tuple[int, int]:
        c = Combat(enc, seed=seed)
        agents = [make_agent(agent_name, rid, seed=seed + i) for i in range(len(c.sides))]
        play(c, agents)
        n = c.decision_count
        return n, n

    n, steps, s = _timed(budget, game, clock)
    return BenchRow(encounter, "engine", agent_name, n, steps, s)


def bench_env(encounter: str, budget: float, clock: str = "wall") -> BenchRow:
    """Random masked steps through the Gymnasium env (opponent random), counting env steps."""
    import gymnasium

    import trpg_arena.envs  # noqa: F401 - registers the envs
    from trpg_arena.envs.gym_env import TrpgArenaEnv

    rid = encounter.split("/")[0]
    env = gymnasium.make(RULESETS[rid].info.env_id, encounter=encounter, opponent="random")
    rng = np.random.default_rng(0)

    def game(seed: int) -> tuple[int, int]:
        _, info = env.reset(seed=seed)
        steps, done = 0, False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, _, done, _, info = env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        base = env.unwrapped
        assert isinstance(base, TrpgArenaEnv)
        assert base.combat is not None  # after reset
        return base.combat.decision_count, steps

    n, steps, s = _timed(budget, game, clock)
    return BenchRow(encounter, "env", "random", n, steps, s)


def bench_aec(encounter: str, budget: float, clock: str = "wall") -> BenchRow:
    """Random masked play through the PettingZoo AEC env, exactly as connect_four_v3 is measured."""
    from trpg_arena.envs import aec_env

    rid = encounter.split("/")[0]
    env = aec_env(rid, encounter=encounter)
    rng = np.random.default_rng(0)

    def game(seed: int) -> tuple[int, int]:
        steps = _random_aec_game(env, rng, seed)
        assert env.combat is not None  # after reset
        return env.combat.decision_count, steps

    n, steps, s = _timed(budget, game, clock)
    return BenchRow(encounter, "aec", "random", n, steps, s)


def bench_connect_four(budget: float, clock: str = "wall") -> BenchRow:
    """PettingZoo connect_four_v3 with random masked actions: the bar to clear."""
    import os

    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env()
    rng = np.random.default_rng(0)

    def game(seed: int) -> tuple[int, int]:
        steps = _random_aec_game(env, rng, seed)
        return steps, steps

    n, steps, s = _timed(budget, game, clock)
    return BenchRow("pettingzoo/connect_four_v3", "aec", "random", n, steps, s)


def bench_clone(encounter: str, budget: float, after: int = 30, clock: str = "wall") -> BenchRow:
    """`Combat.clone()` of a combat `after` random decisions in, as search clones it before every simulation."""
    c = Combat(encounter, seed=0)
    rng = np.random.default_rng(0)
    while not c.over and c.decision_count < after:
        legal = c.legal_view()
        c.act(legal[int(rng.integers(len(legal)))])

    def clones(_seed: int) -> tuple[int, int]:
        for _ in range(100):
            c.clone()
        return 100, 100

    n, steps, s = _timed(budget, clones, clock)
    return BenchRow(encounter, "clone", "-", n, steps, s)


def bench_targets(systems: list[str] | None = None) -> list[str]:
    """Encounters benchmarked per system: skirmish and brawl where present."""
    out = []
    for rid in systems or list(RULESETS):
        names = builtin_encounters(RULESETS[rid])
        out += [n for n in (f"{rid}/skirmish", f"{rid}/brawl") if n in names]
    return out


@dataclass
class LatencyRow:
    """Per-decision latency of one agent's `propose` on states met in scripted play."""

    target: str
    agent: str
    decisions: int
    p50: float  # seconds
    p95: float

    def to_json(self) -> dict[str, object]:
        """JSON-safe form."""
        return {**asdict(self), "p50": round(self.p50, 4), "p95": round(self.p95, 4)}


def bench_propose(encounter: str, spec: str, budget: float, least: int = 5, clock: str = "wall") -> LatencyRow:
    """Time `spec`'s propose at every real decision of scripted self-play, for `budget` s (and `least` decisions).

    Each propose is timed on `clock`, like the budget: on ``"cpu"`` a search's cost is what it takes of
    one core, whatever else the machine runs (a search is single-threaded).
    """
    from trpg_arena.agents import make_agent

    now = CLOCKS[clock]
    enc = load_encounter(encounter)
    times: list[float] = []
    start, seed = now(), 0
    while now() - start < budget or len(times) < least:
        c = Combat(enc, seed=seed)
        players = {s: make_agent("scripted", enc.ruleset, seed=seed + i) for i, s in enumerate(c.sides)}
        agent = make_agent(spec, enc.ruleset, seed=seed)
        while not c.over and (now() - start < budget or len(times) < least):
            if len(c.legal_view()) > 1:
                t = now()
                agent.propose(c)
                times.append(now() - t)
            d = c.decision
            assert d is not None and d.side is not None  # the game is not over
            c.act(players[d.side].act(c))
        seed += 1
    return LatencyRow(encounter, spec, len(times), float(np.percentile(times, 50)), float(np.percentile(times, 95)))
