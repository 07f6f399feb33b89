"""Training speed: MaskablePPO steps per second on each system's env, per number of envs, beside a yardstick.

The yardstick is sb3-contrib's own `InvalidActionEnvDiscrete` (a trivial env with a mask) under
the same trainer settings in the same run, so the ratio says how much of the training time our
envs cost: near 1.0 the trainer, not the env, is the bottleneck.

Both train with the policy class the project trains with, `LegalActionsPolicy` (``head="legal"``:
the action head scores the legal actions only, so a canonical layout's thousands of indices cost
what its tens of legal actions cost; with its rollout buffer of boolean masks); ``head="full"`` is
sb3-contrib's stock ``MlpPolicy``, which scores every index. ``clock="cpu"`` times the process's CPU
seconds instead of the wall clock (steadier on a busy machine; one process only, so not with subprocess
envs).

MaskablePPO trains whole rollouts (`rollout_size` steps), so a measurement of ``steps`` trains that many
rounded up to whole rollouts; its row counts and divides by the steps it actually trained.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trpg_arena.experiments.train import TrainArgs, make_vec_env

if TYPE_CHECKING:
    import gymnasium


@dataclass(frozen=True)
class FpsRow:
    """One measurement: what was trained, with how many envs, and how fast.

    ``steps`` are the steps trained (and timed): the ``requested_steps`` rounded up to whole rollouts.
    """

    target: str
    envs: int
    vec: str
    steps: int
    seconds: float
    head: str = "legal"
    clock: str = "wall"
    requested_steps: int = 0

    @property
    def fps(self) -> float:
        """Training steps per second."""
        return self.steps / self.seconds


HEADS = ("legal", "full")
CLOCKS = ("wall", "cpu")


def trainer_options(head: str) -> dict[str, Any]:
    """MaskablePPO's policy (and buffer) of a head: `LegalActionsPolicy` ("legal") or the stock "MlpPolicy" ("full")."""
    if head not in HEADS:
        raise ValueError(f"head must be one of {', '.join(HEADS)}, not {head!r}")
    if head == "full":
        return {"policy": "MlpPolicy"}
    from trpg_arena.experiments.legal_head import trainer_options as legal_options

    return legal_options()


def rollout_size(envs: int) -> int:
    """Steps of one rollout (all envs together) in these measurements: what MaskablePPO trains at a time."""
    return max(64, 512 // envs) * envs


def timed_training(env: Any, steps: int, seed: int, head: str = "legal", clock: str = "wall") -> tuple[float, int]:
    """Seconds MaskablePPO takes for ``steps`` steps on ``env``, and the steps it trained (whole rollouts).

    One rollout's worth of warm-up is excluded from both.
    """
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    model = MaskablePPO(env=env, n_steps=rollout_size(env.num_envs) // env.num_envs, batch_size=64, seed=seed,
                        verbose=0, device="cpu", **trainer_options(head))
    model.learn(total_timesteps=rollout_size(env.num_envs))  # warm-up: imports, first allocations
    now = time.process_time if clock == "cpu" else time.perf_counter
    before = model.num_timesteps
    start = now()
    model.learn(total_timesteps=steps, reset_num_timesteps=False)
    return now() - start, model.num_timesteps - before  # counted, not assumed: SB3 stops after a whole rollout


def _learn(env: Any, steps: int, seed: int, head: str = "legal", clock: str = "wall") -> float:
    """Seconds of `timed_training` alone (``tools/action_head_fps.py`` reads them; give it whole rollouts)."""
    return timed_training(env, steps, seed, head, clock)[0]


def yardstick_env(envs: int, vec: str, seed: int) -> Any:
    """sb3-contrib's `InvalidActionEnvDiscrete` (dim 80, 60 valid actions) in the same vectorisation."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    factories: list[Callable[[], gymnasium.Env[Any, Any]]] = [_Yardstick() for _ in range(envs)]
    env = SubprocVecEnv(factories) if vec == "subproc" else DummyVecEnv(factories)
    env.seed(seed)
    return env


class _Yardstick:
    """Builds one yardstick env (a picklable callable, as SubprocVecEnv needs)."""

    def __call__(self) -> Any:
        from sb3_contrib.common.envs import InvalidActionEnvDiscrete
        from stable_baselines3.common.monitor import Monitor

        return Monitor(InvalidActionEnvDiscrete(dim=80, n_invalid_actions=20))


def measure(encounters: list[str], env_counts: list[int], steps: int, vec: str = "dummy",
            opponent: str = "random", seed: int = 0, head: str = "legal", clock: str = "wall") -> list[FpsRow]:
    """Training fps of each encounter and of the yardstick, for each env count."""
    from trpg_arena.rules import load_encounter

    trainer_options(head)  # a bad head is refused before any env is built
    if clock not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, not {clock!r}")
    if clock == "cpu" and vec == "subproc":
        raise ValueError("clock 'cpu' counts this process's CPU seconds only: use it with vec 'dummy'")
    rows = []
    for n in env_counts:
        env = yardstick_env(n, vec, seed)
        rows.append(_row("InvalidActionEnvDiscrete", env, vec, steps, seed, head, clock))
        env.close()
        for name in encounters:
            env = make_vec_env(TrainArgs(encounter=name, opponent=opponent, envs=n, vec=vec, seed=seed),
                               load_encounter(name))
            rows.append(_row(name, env, vec, steps, seed, head, clock))
            env.close()
    return rows


def _row(target: str, env: Any, vec: str, steps: int, seed: int, head: str, clock: str) -> FpsRow:
    """One measurement of ``steps`` requested steps on ``env``, its row holding the steps actually trained."""
    seconds, trained = timed_training(env, steps, seed, head, clock)
    return FpsRow(target, env.num_envs, vec, trained, seconds, head, clock, requested_steps=steps)
