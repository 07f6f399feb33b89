"""MaskablePPO's own cost of a large action space: training fps of a trivial env per action count.

    .venv/bin/python tools/action_head_fps.py [--actions 80,364,4055,6959,12975] [--envs 1,4] [--steps 4096]
        [--head legal|full] [--clock wall|cpu]

The env does nothing (a constant observation of the canonical layouts' size, 60 legal actions drawn
once, every episode one step), so what slows down as the action count grows is the trainer alone:
the policy's action head, the masked distribution and its gradients. The default counts are the
yardstick's (80) and the canonical layouts' sizes (moonlit, investigator, kiai, reincarnator), so
the figures bound what `trpg-arena train-fps` can show for each system however fast its env is.
Same trainer settings as `train-fps` (`trpg_arena.experiments.train_fps`): ``--head full`` is
sb3-contrib's stock head (a logit for every index), ``--head legal`` the `LegalActionsPolicy` that
training uses (logits for the legal actions only).
"""

from __future__ import annotations

import argparse
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from trpg_arena.experiments.train_fps import CLOCKS, HEADS, _learn

OBS = 700  # about the canonical feature vectors' length (703-796)
LEGAL = 60  # as many legal actions as the yardstick has


class NothingEnv(gym.Env[np.ndarray, np.int64]):
    """One-step episodes with a fixed observation and mask: an env that costs nothing."""

    def __init__(self, actions: int) -> None:
        self.action_space = spaces.Discrete(actions)
        self.observation_space = spaces.Box(-1.0, 1.0, (OBS,), np.float32)
        rng = np.random.default_rng(actions)
        self._obs = rng.uniform(-1, 1, OBS).astype(np.float32)
        self._mask = np.zeros(actions, bool)
        self._mask[rng.choice(actions, min(LEGAL, actions), replace=False)] = True

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """The fixed observation."""
        super().reset(seed=seed)
        return self._obs, {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Reward 1 for a legal action; the episode ends."""
        return self._obs, float(self._mask[int(action)]), True, False, {}

    def action_masks(self) -> np.ndarray:
        """The fixed mask."""
        return self._mask.copy()


class _Factory:
    def __init__(self, actions: int) -> None:
        self.actions = actions

    def __call__(self) -> Any:
        from stable_baselines3.common.monitor import Monitor

        return Monitor(NothingEnv(self.actions))


def main() -> None:
    """Print a Markdown table: actions, envs, fps, and fps relative to the smallest action count."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--actions", default="80,364,4055,6959,12975")
    parser.add_argument("--envs", default="1,4")
    parser.add_argument("--steps", type=int, default=4096)
    parser.add_argument("--head", choices=HEADS, default="legal")
    parser.add_argument("--clock", choices=CLOCKS, default="wall")
    args = parser.parse_args()
    counts = [int(a) for a in args.actions.split(",")]
    print(f"{args.head} head, {args.clock} clock")
    print("| actions | envs | fps | x first |")
    print("|---|---|---|---|")
    for n_envs in (int(e) for e in args.envs.split(",")):
        first = None
        for actions in counts:
            env = DummyVecEnv([_Factory(actions) for _ in range(n_envs)])
            fps = args.steps / _learn(env, args.steps, 0, args.head, args.clock)
            env.close()
            first = first or fps
            print(f"| {actions:,} | {n_envs} | {fps:,.0f} | {fps / first:.2f} |", flush=True)


if __name__ == "__main__":
    main()
