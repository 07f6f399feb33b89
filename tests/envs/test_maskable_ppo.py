"""sb3-contrib MaskablePPO trains on every registered env for a few thousand steps."""

from __future__ import annotations

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
