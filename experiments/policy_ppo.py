"""The PPO stage of a rule system's `ppo` policy: MaskablePPO warm-started from the cloned weights, in a league.

After behaviour cloning (`experiments.policy_train`) the policy only imitates its teacher; PPO lets it
learn from results. Three things keep PPO from wrecking the cloned policy at the start:

- **Warm start**: the cloned MLP's layers are copied into MaskablePPO's policy network (the hidden
  layers and the action head; the mask is the same canonical one), and its value network starts
  from a copy of the same hidden layers with a zero output.
- **Value warm-up**: for the first ``value_warmup`` steps only the value network learns (the policy's
  parameters are frozen), so the first policy updates use advantages from a value that fits the
  cloned policy's play instead of a random one.
- **Small steps**: a small learning rate, a tight clip range and a KL target that stops an update's
  epochs early.

The learner plays both sides of every built-in encounter of the system and of generated ones (one
drawn per episode, `EncounterMix`), against a `League`: its latest snapshot (itself), its earlier
snapshots, and fixed anchors such as the scripted agent. Snapshots are the numpy ``.npz`` format the
`ppo` agent plays, written to the run's pool every ``snapshot_every`` steps (the cloned weights are
the first). The result is exported in that same format.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from trpg_arena.experiments.league import League
from trpg_arena.experiments.train import MAX_THREADS, check_side

Layers = list[tuple[np.ndarray, np.ndarray]]


# the stage's fields that `train SYSTEM` names otherwise on its command line
OPTION_NAMES = {"steps": "ppo-steps", "lr": "ppo-lr"}


@dataclass
class PPOStageArgs:
    """Options of the PPO stage (see the module docstring)."""

    steps: int
    anchors: tuple[str, ...] = ("scripted",)
    latest: float = 0.5  # share of episodes against the latest snapshot (the rest: older ones and anchors)
    snapshot_every: int = 10_000
    value_warmup: int = 2_048  # steps at the start when only the value network learns
    lr: float = 3e-5
    clip: float = 0.1
    target_kl: float = 0.02
    n_steps: int = 512  # rollout length per update (the run's steps are rounded up to a multiple of it)
    batch_size: int = 64
    epochs: int = 4
    shaping: float = 0.1
    side: str = "both"  # the learner's side in every episode ("both": one drawn per episode)
    draw_penalty: float = 0.0  # subtracted from a drawn episode's last reward (a finishing incentive; a draw is 0)
    envs: int = 1
    seed: int = 0
    threads: int = 1
    checkpoint_every: int = 0  # steps between policies kept in the run's checkpoints/ (0: none; never opponents)

    def check(self) -> None:
        """Refuse bad values with one line naming the option (as `train SYSTEM` spells it)."""
        for name in ("steps", "snapshot_every", "n_steps", "batch_size", "epochs", "envs", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{OPTION_NAMES.get(name, name.replace('_', '-'))} must be at least 1")
        if self.threads > MAX_THREADS:  # torch crashes on absurd counts
            raise ValueError(f"--threads must lie between 1 and {MAX_THREADS}, got {self.threads}")
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"--ppo-lr must be a positive number, got {self.lr}")
        if not math.isfinite(self.shaping):
            raise ValueError(f"--shaping must be a finite number, got {self.shaping}")
        if self.value_warmup < 0:
            raise ValueError("--value-warmup must be 0 or more")
        if self.checkpoint_every < 0:
            raise ValueError("--checkpoint-every must be 0 (none) or more")
        if not 0.0 <= self.latest <= 1.0:
            raise ValueError("--latest must lie between 0 and 1")
        if not 0.0 <= self.draw_penalty <= 1.0:
            raise ValueError("--draw-penalty must lie between 0 and 1 (a loss costs 1)")


class EncounterMix(gym.Env[np.ndarray, np.int64]):
    """Envs of one rule system on several encounters, one drawn per episode (their canonical spaces are equal)."""

    def __init__(self, envs: list[Any], draw_penalty: float = 0.0) -> None:
        self.envs = envs
        self.draw_penalty = draw_penalty  # taken off a drawn episode's last reward (between a win's +1 and a loss's -1)
        self.observation_space = envs[0].observation_space
        self.action_space = envs[0].action_space
        self.current = envs[0]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None,
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Draw the next episode's encounter and start it (its randomness from this env's RNG)."""
        super().reset(seed=seed)
        self.current = self.envs[int(self.np_random.integers(len(self.envs)))]
        return self.current.reset(seed=int(self.np_random.integers(2**31)), options=options)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """One decision of the learner in the current encounter (a drawn end costs ``draw_penalty``)."""
        obs, reward, terminated, truncated, info = self.current.step(action)
        if terminated and info.get("result") == "draw":
            reward -= self.draw_penalty
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The current decision's legal actions (sb3-contrib's MaskablePPO convention)."""
        return self.current.unwrapped.action_masks()


@dataclass
class _MixFactory:
    """Builds one training env over all the encounters (a picklable callable, as SubprocVecEnv needs)."""

    ruleset: str
    encounters: list[Any]
    league: League
    shaping: float
    side: str = "both"
    draw_penalty: float = 0.0

    def __call__(self) -> Any:
        from stable_baselines3.common.monitor import Monitor

        from trpg_arena.envs.gym_env import TrpgArenaEnv

        return Monitor(EncounterMix([TrpgArenaEnv(self.ruleset, encounter=enc, side=self.side, opponent=self.league,
                                                  shaping=self.shaping) for enc in self.encounters],
                                    self.draw_penalty))


def load_cloned(policy: Any, layers: Layers) -> None:
    """Copy an MLP's ``(W, b)`` layers into a MaskablePPO policy's policy network and action head.

    The hidden layers go into the value network too, as its start (its output layer zero).
    """
    import torch

    pi = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)] + [policy.action_net]
    vf = [m for m in policy.mlp_extractor.value_net if isinstance(m, torch.nn.Linear)]
    if len(pi) != len(layers):
        raise ValueError(f"the cloned network has {len(layers)} layers, the PPO policy {len(pi)}")
    with torch.no_grad():
        for module, (w, b) in zip(pi, layers):
            module.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
            module.bias.copy_(torch.from_numpy(b))
        for module, (w, b) in zip(vf, layers[:-1]):
            module.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
            module.bias.copy_(torch.from_numpy(b))
        policy.value_net.weight.zero_()
        policy.value_net.bias.zero_()


def export_layers(policy: Any) -> Layers:
    """The policy network and action head of a MaskablePPO policy as ``(W, b)`` layers (the `ppo` agent's)."""
    import torch

    pi = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)] + [policy.action_net]
    return [(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy()) for m in pi]


def _policy_parameters(policy: Any) -> list[Any]:
    return [*policy.mlp_extractor.policy_net.parameters(), *policy.action_net.parameters()]


def ppo_stage(ruleset: str, fingerprint: str, layers: Layers, encounters: list[Any], pool: Path,
              args: PPOStageArgs, log: Callable[[str], None]) -> tuple[Layers, dict[str, Any]]:
    """Run the PPO stage from cloned ``layers``; return the trained layers and what the card records."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv

    from trpg_arena.agents.learned.ppo import PolicyNet
    from trpg_arena.experiments.legal_head import trainer_options

    args.check()
    check_side(args.side, encounters)
    torch.set_num_threads(args.threads)
    pool.mkdir(parents=True, exist_ok=True)
    hidden = [int(w.shape[1]) for w, _ in layers[:-1]]

    def snapshot(steps: int, weights: Layers, folder: Path = pool) -> None:
        PolicyNet(ruleset, fingerprint, tuple(weights), {"steps": steps}).save(folder / f"step-{steps}.npz")

    # Checkpoints sit beside the pool, not in it: a long stage can be measured midway without the league
    # drawing them as opponents.
    checkpoints = pool.parent / "checkpoints"

    snapshot(0, layers)  # the cloned policy is the league's first snapshot
    league = League(ruleset, pool, args.anchors, args.latest, pattern="step-*.npz", agent="ppo:model={}")
    vec = DummyVecEnv([_MixFactory(ruleset, encounters, league, args.shaping, args.side, args.draw_penalty)
                       for _ in range(args.envs)])
    vec.seed(args.seed)
    model = MaskablePPO(env=vec, **trainer_options(), learning_rate=args.lr, n_steps=args.n_steps,
                        batch_size=args.batch_size, n_epochs=args.epochs, clip_range=args.clip,
                        target_kl=args.target_kl, ent_coef=0.0, seed=args.seed, device="cpu", verbose=0,
                        policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}, "activation_fn": torch.nn.Tanh,
                                       "ortho_init": False})
    load_cloned(model.policy, layers)
    returns: list[float] = []

    class Track(BaseCallback):
        """Episode results, league snapshots, progress lines."""

        def __init__(self) -> None:
            super().__init__()
            self.next_snapshot = args.snapshot_every
            self.next_checkpoint = args.checkpoint_every or None
            self.next_log = max(1, args.steps // 10)

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                if "episode" in info:
                    returns.append(float(info["episode"]["r"]))
            if self.num_timesteps >= self.next_snapshot:
                self.next_snapshot += args.snapshot_every
                snapshot(self.num_timesteps, export_layers(self.model.policy))
            if self.next_checkpoint is not None and self.num_timesteps >= self.next_checkpoint:
                self.next_checkpoint += args.checkpoint_every
                checkpoints.mkdir(exist_ok=True)
                snapshot(self.num_timesteps, export_layers(self.model.policy), checkpoints)
                log(f"checkpoint: {checkpoints / f'step-{self.num_timesteps}.npz'}")
            if self.num_timesteps >= self.next_log:
                self.next_log += max(1, args.steps // 10)
                tail = returns[-100:]
                log(f"PPO {self.num_timesteps:,}/{args.steps:,} steps: {len(returns)} episodes, mean return of the "
                    f"last {len(tail)} {np.mean(tail) if tail else float('nan'):+.3f}")
            return True

    start = time.perf_counter()
    warmup = min(args.value_warmup, args.steps)
    track = Track()
    if warmup:
        frozen = _policy_parameters(model.policy)
        for p in frozen:
            p.requires_grad_(False)
        log(f"value warm-up: {warmup:,} steps with the cloned policy frozen")
        model.learn(total_timesteps=warmup, callback=track)
        for p in frozen:
            p.requires_grad_(True)
    if args.steps > warmup:
        model.learn(total_timesteps=args.steps - warmup, callback=track, reset_num_timesteps=not warmup)
    seconds = time.perf_counter() - start
    vec.close()
    steps = int(model.num_timesteps)
    league_results = {name if name in args.anchors else Path(name.split("=", 1)[-1]).stem:
                      {"learner_wins": w, "episodes": n} for name, (w, n) in league.results.items()}
    tail = returns[-200:]
    record = {"steps": steps, "seconds": round(seconds, 1), "fps": round(steps / max(seconds, 1e-9), 1),
              "episodes": len(returns), "mean_return_last_200": round(float(np.mean(tail)), 4) if tail else None,
              "snapshots": len(league.snapshots()), "league": league_results,
              "settings": {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(args).items()}}
    log(f"PPO: {steps:,} steps in {seconds:.0f} s ({record['fps']:,.0f} steps/s), {len(returns)} episodes")
    return export_layers(model.policy), record
