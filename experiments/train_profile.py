"""Where a MaskablePPO training step's time goes, by section, on a system's env and on the yardstick.

`train-fps` says how fast training runs; this says why. It times the same run as `train-fps` (the same
trainer settings, `LegalActionsPolicy`, the process's CPU clock) with a timer around each section of a
step, so the sections add up to the step:

- ``env step``: the vectorised env's ``step`` (the engine, the opponent's decisions, and, inside it,
  the observation and the mask the env builds for the next decision);
- ``features`` and ``mask``: the part of ``env step`` spent encoding the observation and mapping the
  legal actions to the layout's indices (the canonical codec's per-decision view), shown apart;
- ``masks out``: `get_action_masks`, handing each env's mask to the trainer;
- ``policy forward``: the rollout's forward pass (the networks and the masked distribution);
- ``buffer``: writing the rollout buffer and reading its minibatches;
- ``update``: the PPO update's forward, backward and optimiser step, less the buffer's reads;
- ``other``: the rest of the loop (callbacks, returns and advantages, the trainer's bookkeeping).

The timers wrap the functions on the class for the duration of one measurement (`timed_sections`), so the
run is the ordinary one with a few clock reads per call.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

SECTIONS = ("env step", "features", "mask", "masks out", "policy forward", "buffer", "update", "other")


@dataclass
class SectionClock:
    """CPU seconds per section of the training loop (nested sections are subtracted from their parent)."""

    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(SECTIONS, 0.0))
    _stack: list[list[float]] = field(default_factory=list)

    def wrap(self, section: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` with its CPU time (less that of the sections it calls) added to ``section``."""

        def timed(*args: Any, **kwargs: Any) -> Any:
            frame = [time.process_time(), 0.0]  # start, seconds spent in nested sections
            self._stack.append(frame)
            try:
                return fn(*args, **kwargs)
            finally:
                self._stack.pop()
                spent = time.process_time() - frame[0]
                self.seconds[section] += spent - frame[1]
                if self._stack:
                    self._stack[-1][1] += spent

        return timed


@contextmanager
def timed_sections(clock: SectionClock) -> Iterator[None]:
    """Wrap the trainer's and the env's functions with ``clock``'s timers while the block runs."""
    import sb3_contrib.ppo_mask.ppo_mask as ppo_mask
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.ppo_mask.ppo_mask import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from trpg_arena.agents import canonical

    patches: list[tuple[Any, str, str]] = [
        (DummyVecEnv, "step_wait", "env step"),
        (canonical, "encode_rows", "features"),
        (canonical, "map_legal", "mask"),
        (ppo_mask, "get_action_masks", "masks out"),
        (MaskableActorCriticPolicy, "forward", "policy forward"),
        (MaskableRolloutBuffer, "add", "buffer"),
        (MaskableRolloutBuffer, "_get_samples", "buffer"),
        (MaskablePPO, "train", "update"),
        (MaskablePPO, "learn", "other"),
    ]
    saved = [(owner, name, owner.__dict__[name]) for owner, name, _ in patches]
    try:
        for owner, name, section in patches:
            setattr(owner, name, clock.wrap(section, owner.__dict__[name]))
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


@dataclass(frozen=True)
class ProfileRow:
    """One profiled run: the target, its env count, its steps and the CPU seconds of each section."""

    target: str
    envs: int
    steps: int
    seconds: dict[str, float]

    @property
    def total(self) -> float:
        """CPU seconds of the whole run."""
        return sum(self.seconds.values())

    def per_step_ms(self, section: str) -> float:
        """Milliseconds of a section per training step."""
        return 1000.0 * self.seconds[section] / self.steps


def profile(encounters: list[str], env_counts: list[int], steps: int, seed: int = 0) -> list[ProfileRow]:
    """Time the sections of ``steps`` MaskablePPO steps on the yardstick and each encounter, per env count."""
    import torch
    from sb3_contrib import MaskablePPO

    from trpg_arena.experiments.legal_head import trainer_options
    from trpg_arena.experiments.train import TrainArgs, make_vec_env
    from trpg_arena.experiments.train_fps import yardstick_env
    from trpg_arena.rules import load_encounter

    torch.set_num_threads(1)
    rows = []
    for n in env_counts:
        for name in ["InvalidActionEnvDiscrete", *encounters]:
            if name == "InvalidActionEnvDiscrete":
                env = yardstick_env(n, "dummy", seed)
            else:
                env = make_vec_env(TrainArgs(encounter=name, opponent="random", envs=n, vec="dummy", seed=seed),
                                   load_encounter(name))
            n_steps = max(64, 512 // n)
            model = MaskablePPO(env=env, n_steps=n_steps, batch_size=64, seed=seed, verbose=0, device="cpu",
                                **trainer_options())
            model.learn(total_timesteps=n_steps * n)  # warm-up, as in train-fps
            clock = SectionClock()
            with timed_sections(clock):
                model.learn(total_timesteps=steps, reset_num_timesteps=False)
            env.close()
            rows.append(ProfileRow(name, n, steps, dict(clock.seconds)))
    return rows
