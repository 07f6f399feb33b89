"""`LegalActionsPolicy`: MaskablePPO's policy whose action head scores the legal actions only.

- On real decisions of a canonical env it is the stock masked policy: the same values, log-probabilities,
  entropies, most probable actions, probabilities and head gradients from the same parameters; its
  samples are legal.
- It trains, saves and loads as a MaskablePPO policy (the class travels with the model file).
- `trpg-arena train-fps` measures with it by default, and with sb3-contrib's stock head on request.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from trpg_arena.envs.gym_env import TrpgArenaEnv
from trpg_arena.experiments.legal_head import LegalActionsPolicy, trainer_options
from trpg_arena.experiments.policy_ppo import EncounterMix

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def _decisions(n: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Observations, masks and one legal action each from kiai skirmishes played at random (both sides)."""
    env = EncounterMix([TrpgArenaEnv("kiai", encounter="kiai/skirmish", side="both")])
    rng = np.random.default_rng(3)
    obs, _ = env.reset(seed=3)
    rows, masks, actions = [], [], []
    while len(rows) < n:
        mask = env.action_masks()
        action = int(rng.choice(np.flatnonzero(mask)))
        rows.append(obs)
        masks.append(mask)
        actions.append(action)
        obs, _, done, truncated, _ = env.step(action)
        if done or truncated:
            obs, _ = env.reset(seed=int(rng.integers(1000)))
    return torch.tensor(np.array(rows)), torch.tensor(np.array(masks)), torch.tensor(actions)


def test_it_is_the_stock_masked_policy_on_real_decisions() -> None:
    env = EncounterMix([TrpgArenaEnv("kiai", encounter="kiai/duel", side="both")])
    stock = MaskablePPO("MlpPolicy", env, device="cpu", seed=0)
    legal = MaskablePPO(LegalActionsPolicy, env, device="cpu", seed=1)
    legal.policy.load_state_dict(stock.policy.state_dict())
    obs, masks, actions = _decisions(40)
    assert int(masks.sum(dim=1).max()) < masks.shape[1] // 10  # far fewer legal actions than indices

    v1, lp1, e1 = stock.policy.evaluate_actions(obs, actions, action_masks=masks)
    v2, lp2, e2 = legal.policy.evaluate_actions(obs, actions, action_masks=masks)
    assert e1 is not None and e2 is not None
    # the same values up to float rounding (the first layers sum over the filled observation entries only)
    assert torch.allclose(v1, v2, atol=1e-5) and torch.allclose(lp1, lp2, atol=1e-5)
    assert torch.allclose(e1, e2, atol=1e-5)
    (lp1.sum() + e1.sum()).backward()
    (lp2.sum() + e2.sum()).backward()
    g1, g2 = stock.policy.action_net.weight.grad, legal.policy.action_net.weight.grad
    assert g1 is not None and g2 is not None and torch.allclose(g1, g2, atol=1e-5)

    with torch.no_grad():
        d1 = stock.policy.get_distribution(obs, action_masks=masks.numpy())
        d2 = legal.policy.get_distribution(obs, action_masks=masks.numpy())
        assert torch.equal(d1.mode(), d2.mode())
        p1, p2 = d1.distribution.probs, d2.distribution.probs  # type: ignore[attr-defined]
        assert torch.allclose(p1, p2, atol=1e-6) and float(p2[~masks].sum()) == 0.0
        drawn = d2.sample()
        assert bool(masks[torch.arange(len(drawn)), drawn].all())


@pytest.mark.parametrize("legal_share", [0.05, 0.75])  # rows gathered, and the full head of a mostly legal space
def test_it_is_the_stock_masked_policy_on_the_yardstick(legal_share: float) -> None:
    from sb3_contrib.common.envs import InvalidActionEnvDiscrete

    env = InvalidActionEnvDiscrete(dim=80, n_invalid_actions=20)
    stock = MaskablePPO("MlpPolicy", env, device="cpu", seed=0)
    legal = MaskablePPO(LegalActionsPolicy, env, device="cpu", seed=1)
    legal.policy.load_state_dict(stock.policy.state_dict())
    rng = np.random.default_rng(5)
    obs = torch.tensor(rng.integers(0, 80, 16))
    masks = torch.tensor(rng.random((16, 80)) < legal_share)
    masks[:, 7] = True  # every row has a legal action
    actions = torch.tensor([int(rng.choice(np.flatnonzero(m))) for m in masks.numpy()])
    _, lp1, e1 = stock.policy.evaluate_actions(obs, actions, action_masks=masks)
    _, lp2, e2 = legal.policy.evaluate_actions(obs, actions, action_masks=masks)
    assert e1 is not None and e2 is not None
    assert torch.allclose(lp1, lp2, atol=1e-5) and torch.allclose(e1, e2, atol=1e-5)


def test_it_trains_saves_and_loads_as_a_maskable_ppo_policy(tmp_path: Path) -> None:
    env = EncounterMix([TrpgArenaEnv("kiai", encounter="kiai/duel", side="both")])
    model = MaskablePPO(env=env, **trainer_options(), n_steps=64, batch_size=32, n_epochs=1, device="cpu", seed=0)
    before = model.policy.action_net.weight.detach().clone()
    model.learn(total_timesteps=64)
    assert not torch.equal(before, model.policy.action_net.weight)  # the head learned from legal actions
    masks = model.rollout_buffer.action_masks  # booleans, each step's row exactly its decision's mask
    assert masks.dtype == np.bool_ and 0 < int(masks.sum(axis=-1).max()) < masks.shape[-1] // 10
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    assert isinstance(loaded.policy, LegalActionsPolicy)
    obs, masks, _ = _decisions(8)
    for o, m in zip(obs.numpy(), masks.numpy()):
        a1, _ = model.predict(o, action_masks=m, deterministic=True)
        a2, _ = loaded.predict(o, action_masks=m, deterministic=True)
        assert int(a1) == int(a2) and m[int(a1)]


@pytest.mark.parametrize("head", ["legal", "full"])
def test_train_fps_measures_with_either_head(head: str) -> None:
    out = subprocess.run([*CLI, "train-fps", "moonlit/duel", "--envs", "1", "--steps", "64", "--head", head,
                          "--clock", "cpu"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert f"{head} head, cpu clock" in out.stdout
    assert "InvalidActionEnvDiscrete" in out.stdout and "moonlit/duel" in out.stdout


def test_train_fps_refuses_an_unknown_head_in_one_line() -> None:
    out = subprocess.run([*CLI, "train-fps", "--head", "sparse"], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "--head is one of legal, full" in out.stderr
    assert "Traceback" not in out.stderr


def test_train_fps_sections_say_where_a_step_goes(tmp_path: Path) -> None:
    out = subprocess.run([*CLI, "train-fps", "moonlit/duel", "--envs", "1", "--steps", "128", "--sections",
                          "--out", str(tmp_path / "s.json")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "CPU ms per step by section" in out.stdout
    rows = {r["target"]: r for r in json.loads((tmp_path / "s.json").read_text())}
    assert set(rows) == {"InvalidActionEnvDiscrete", "moonlit/duel"}
    env, yard = rows["moonlit/duel"]["ms_per_step"], rows["InvalidActionEnvDiscrete"]["ms_per_step"]
    assert all(v >= 0 for v in [*env.values(), *yard.values()])
    assert env["features"] > 0 and env["mask"] > 0 and env["update"] > 0 and env["policy forward"] > 0
    assert yard["features"] == 0 and yard["mask"] == 0  # the yardstick has no codec
    fps = rows["moonlit/duel"]["fps"]
    assert abs(1000 / sum(env.values()) - fps) < 1e-6 * fps  # the sections add up to the whole step


def test_train_fps_sections_refuse_subprocess_envs_in_one_line() -> None:
    out = subprocess.run([*CLI, "train-fps", "--sections", "--vec", "subproc"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode != 0 and "--sections times the legal head with --vec dummy only" in out.stderr
    assert "Traceback" not in out.stderr
