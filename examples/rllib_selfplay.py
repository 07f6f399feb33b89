"""Self-play PPO on RLlib over trpg-arena's PettingZoo AEC env: training that scales past one machine.

Every combatant of the encounter is a PettingZoo agent; one shared policy plays all of them (both
sides: observations are from the agent's own side), so the run is self-play. RLlib's
`PettingZooEnv` wrapper turns the AEC env into a multi-agent env, and an action-masking RL module
(PPO's default MLP with the log of the env's ``action_mask`` added to its logits) keeps every sampled
action legal. Needs the ``ray`` extra (``pip install 'trpg-arena[ray]'``; part of ``make install``)::

    python examples/rllib_selfplay.py --encounter kiai/duel --workers 2 --iterations 20
    python examples/rllib_selfplay.py --encounter moonlit/skirmish --workers 8 --iterations 200 --save runs/rllib

On a local machine Ray starts by itself. To use an existing cluster, start its head
(``ray start --head``) and workers (``ray start --address HEAD:6379``), then run this script on a
machine of the cluster with ``--address auto`` (or ``RAY_ADDRESS=HEAD:6379``), or from outside it
through Ray Client with ``--address ray://HEAD:10001``; ``--workers`` then counts the env runners
spread over the cluster. trpg-arena must be installed on every node.

One line per iteration: the iteration, env steps so far, episodes, the mean episode length and the
policy's loss. Exits non-zero with one line when Ray (or RLlib's dependencies) is missing.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

SHARED = "shared"  # the one policy every combatant maps to


def masked_module_class() -> type:
    """PPO's default torch module over the ``observations`` part, with the ``action_mask`` added to its logits.

    A masked action gets a logit near -inf (log 0, clamped to the smallest float), so it is never sampled
    and PPO's ratios never see it.
    """
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    def split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        obs = batch[Columns.OBS]
        return obs["action_mask"], {**batch, Columns.OBS: obs["observations"]}

    class MaskedPPOModule(DefaultPPOTorchRLModule):
        def __init__(self, *, observation_space: Any = None, **kwargs: Any) -> None:
            self.observation_space_with_mask = observation_space
            super().__init__(observation_space=observation_space["observations"], **kwargs)

        def setup(self) -> None:
            super().setup()  # the networks are built for the observations alone
            self.observation_space = self.observation_space_with_mask

        def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask, batch = split(batch)
            return self._masked(super()._forward(batch, **kwargs), mask)

        def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask, batch = split(batch)
            return self._masked(super()._forward_train(batch, **kwargs), mask)

        def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
            if isinstance(batch[Columns.OBS], dict):
                batch = split(batch)[1]
            return super().compute_values(batch, embeddings)

        @staticmethod
        def _masked(out: dict[str, Any], mask: Any) -> dict[str, Any]:
            out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask),
                                                                                            min=FLOAT_MIN)
            return out

    return MaskedPPOModule


def make_env(config: dict[str, Any]) -> Any:
    """The RLlib multi-agent env over trpg-arena's AEC env (a function each env runner calls)."""
    import gymnasium as gym
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from trpg_arena.envs import aec_env

    class MaskedPettingZooEnv(PettingZooEnv):
        """RLlib's PettingZoo wrapper with the observation key its masking module reads (``observations``)."""

        def __init__(self, env: Any) -> None:
            super().__init__(env)
            renamed = {aid: self._rename_space(space) for aid, space in self.observation_spaces.items()}
            self.observation_spaces = renamed
            self.observation_space = gym.spaces.Dict(renamed)

        @staticmethod
        def _rename_space(space: Any) -> Any:
            # the masking module takes log(mask): a float mask (the AEC env's is int8, PettingZoo's convention)
            mask = gym.spaces.Box(0.0, 1.0, space["action_mask"].shape, "float32")
            return gym.spaces.Dict({"observations": space["observation"], "action_mask": mask})

        @staticmethod
        def _rename(obs: dict[str, Any]) -> dict[str, Any]:
            return {aid: {"observations": o["observation"], "action_mask": o["action_mask"].astype("float32")}
                    for aid, o in obs.items()}

        def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
            obs, info = super().reset(seed=seed, options=options)
            return self._rename(obs), info

        def step(self, action: Any) -> Any:
            obs, rewards, terminated, truncated, infos = super().step(action)
            return self._rename(obs), rewards, terminated, truncated, infos

    # the mask keeps every sampled action legal: an illegal one would be a bug, so it raises instead of losing
    return MaskedPettingZooEnv(aec_env(config["ruleset"], encounter=config["encounter"], illegal_action="raise"))


def build_config(encounter: str, workers: int, batch: int, minibatch: int, epochs: int, seed: int) -> Any:
    """RLlib's PPO config: one shared action-masking policy for every combatant, `workers` env runners."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from trpg_arena.rules import load_encounter

    ruleset = load_encounter(encounter).ruleset
    register_env("trpg_arena_aec", make_env)
    return (
        PPOConfig()
        # RLlib's env check steps unmasked random actions, which this env (illegal_action="raise") refuses
        .environment("trpg_arena_aec", env_config={"ruleset": ruleset, "encounter": encounter},
                     disable_env_checking=True)
        .env_runners(num_env_runners=workers, num_envs_per_env_runner=1, num_cpus_per_env_runner=1,
                     rollout_fragment_length="auto")
        .multi_agent(policies={SHARED}, policy_mapping_fn=lambda agent_id, episode, **kw: SHARED)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            SHARED: RLModuleSpec(module_class=masked_module_class(),
                                 model_config={"head_fcnet_hiddens": [128, 128]})}))
        .training(train_batch_size_per_learner=batch, minibatch_size=minibatch, num_epochs=epochs, lr=3e-4)
        .learners(num_learners=0)
        .debugging(seed=seed)
    )


def main(argv: list[str] | None = None) -> int:
    """Train for ``--iterations`` and print one line per iteration; 0 on success."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--encounter", default="kiai/duel", help="built-in name or encounter file")
    p.add_argument("--workers", type=int, default=2, help="RLlib env runners (processes that play games)")
    p.add_argument("--iterations", type=int, default=10, help="training iterations")
    p.add_argument("--batch", type=int, default=2000, help="env steps per iteration")
    p.add_argument("--minibatch", type=int, default=256, help="SGD minibatch size")
    p.add_argument("--epochs", type=int, default=4, help="SGD passes over each batch")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--address", default=os.environ.get("RAY_ADDRESS"),
                   help="an existing Ray cluster ('auto', HEAD:6379 or ray://HEAD:10001); default: a local Ray")
    p.add_argument("--save", default=None, help="folder for the final checkpoint")
    args = p.parse_args(argv)
    if args.workers < 1 or args.iterations < 1 or args.batch < 1 or args.minibatch < 1 or args.epochs < 1:
        print("error: --workers, --iterations, --batch, --minibatch and --epochs must be at least 1", file=sys.stderr)
        return 2
    from trpg_arena.rules import TrpgArenaError, load_encounter

    try:
        load_encounter(args.encounter)  # a bad name is one line, before Ray and any worker start
    except (TrpgArenaError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        import ray
        from ray.rllib.algorithms.ppo import PPOConfig  # noqa: F401 - RLlib and its dependencies are there
    except ImportError as e:
        print(f"error: this example needs Ray's RLlib ({e.name or e}): pip install 'trpg-arena[ray]'", file=sys.stderr)
        return 1
    config = build_config(args.encounter, args.workers, args.batch, min(args.minibatch, args.batch), args.epochs,
                          args.seed)
    # a local Ray with one CPU per env runner plus the driver; an existing cluster brings its own
    init: dict[str, Any] = {"address": args.address} if args.address else {"num_cpus": args.workers + 1}
    ray.init(**init, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        algo = config.build_algo()
        start = time.perf_counter()
        for i in range(1, args.iterations + 1):
            result = algo.train()
            runners = result.get("env_runners", {})
            learner = result.get("learners", {}).get(SHARED, {})
            print(f"iteration {i}: {int(runners.get('num_env_steps_sampled_lifetime', 0)):,} env steps, "
                  f"{int(runners.get('num_episodes_lifetime', 0)):,} episodes, mean episode length "
                  f"{runners.get('episode_len_mean', float('nan')):.1f}, policy loss "
                  f"{learner.get('policy_loss', float('nan')):.4f} ({time.perf_counter() - start:.0f} s)",
                  flush=True)
        if args.save:
            print(f"checkpoint: {algo.save_to_path(os.path.abspath(args.save))}")
        algo.stop()
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
