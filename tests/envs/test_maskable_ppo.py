"""sb3-contrib MaskablePPO trains on every registered env for a few thousand steps."""

from __future__ import annotations

from pathlib import Path

import gymnasium
import pytest

import trpg_arena.envs  # noqa: F401 - registers the envs
from tests.conftest import SYSTEMS
from trpg_arena.rules import get_ruleset

sb3_contrib = pytest.importorskip("sb3_contrib")


@pytest.mark.slow
@pytest.mark.parametrize("rid", SYSTEMS)
def test_maskable_ppo_trains(rid: str) -> None:
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy

    torch.set_num_threads(1)
    env = gymnasium.make(get_ruleset(rid).info.env_id, encounter=f"{rid}/duel", shaping=0.5)
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=2, seed=0, verbose=0, device="cpu")
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    mean, _ = evaluate_policy(model, env, n_eval_episodes=3, warn=False)
    assert -1.0 - 1e-6 <= mean <= 5.0


@pytest.mark.slow
def test_a_short_training_learns_to_beat_random(tmp_path: Path) -> None:
    """8,192 steps on moonlit/duel against `random`: the policy must win often, the untrained one never does.

    Measured (seeds 0, 1, 2; 60 games each): trained 77 %, 53 %, 58 %; the untrained policy 0 % (its
    near-uniform logits pick the same passive action every time). The bar sits well below the worst
    seed and far above the untrained policy, so only a broken recipe (reward sign, masks, codec) fails.
    """
    from rich.console import Console
    from sb3_contrib import MaskablePPO

    from trpg_arena.experiments.train import TrainArgs, evaluate_model, make_vec_env, run_training
    from trpg_arena.rules import load_encounter

    args = TrainArgs(encounter="moonlit/duel", steps=8192, opponent="random", seed=0, eval_opponent="random",
                     eval_games=40, out=tmp_path)
    card = run_training(args, Console(quiet=True))
    trained = card["evaluations"][-1]
    untrained = evaluate_model(MaskablePPO("MlpPolicy", make_vec_env(args, load_encounter(args.encounter)), seed=0,
                                           device="cpu"), card, load_encounter(args.encounter), "random", 40)
    assert trained["win_rate"] >= 0.4, trained
    assert trained["win_rate"] >= untrained["win_rate"] + 0.3, (trained, untrained)
