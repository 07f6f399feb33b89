"""`SparseInputLinear`: the policy's first layers read only the observation entries a batch fills.

- On real canonical observations (most entries zero) it gives the dense layer's outputs and gradients.
- A batch whose columns are mostly filled, and a batch of a few rows, take the dense product unchanged.
- `LegalActionsPolicy` uses it for the first layer of both networks, with the same parameters.
"""

from __future__ import annotations

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from torch import nn

from trpg_arena.envs.gym_env import TrpgArenaEnv
from trpg_arena.experiments.legal_head import LegalActionsPolicy
from trpg_arena.experiments.policy_ppo import EncounterMix
from trpg_arena.experiments.sparse_input import SparseInputLinear


def _observations(encounter: str, n: int) -> torch.Tensor:
    """Observations of one side's decisions in games of ``encounter`` played at random."""
    env = TrpgArenaEnv(encounter.split("/")[0], encounter=encounter, side="both")
    rng = np.random.default_rng(4)
    obs, _ = env.reset(seed=4)
    rows = []
    while len(rows) < n:
        rows.append(obs)
        obs, _, done, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if done or truncated:
            obs, _ = env.reset(seed=int(rng.integers(1000)))
    return torch.tensor(np.array(rows))


def _pair(inputs: int) -> tuple[nn.Linear, SparseInputLinear]:
    torch.manual_seed(0)
    dense = nn.Linear(inputs, 32)
    sparse = SparseInputLinear(inputs, 32)
    sparse.load_state_dict(dense.state_dict())
    return dense, sparse


def test_the_same_outputs_and_gradients_as_the_dense_layer_on_real_observations() -> None:
    x = _observations("kiai/duel", 64)
    filled = int((x != 0).any(dim=0).sum())
    assert filled * 4 < x.shape[1]  # a duel fills a small share of the layout's entries
    dense, sparse = _pair(x.shape[1])
    y1, y2 = dense(x), sparse(x)
    assert torch.allclose(y1, y2, atol=1e-5)
    (y1.square().sum()).backward()
    (y2.square().sum()).backward()
    assert dense.weight.grad is not None and sparse.weight.grad is not None
    assert torch.allclose(dense.weight.grad, sparse.weight.grad, atol=1e-4)
    assert dense.bias.grad is not None and sparse.bias.grad is not None
    assert torch.allclose(dense.bias.grad, sparse.bias.grad, atol=1e-4)
    empty = (x == 0).all(dim=0)
    assert float(sparse.weight.grad[:, empty].abs().sum()) == 0.0  # an unread column gets no gradient, as densely


def test_mostly_filled_or_small_batches_take_the_dense_product() -> None:
    dense, sparse = _pair(40)
    full = torch.randn(64, 40)
    few = torch.zeros(3, 40)
    few[:, :4] = torch.randn(3, 4)
    for x in (full, few):
        assert torch.equal(dense(x), sparse(x))  # the same kernel on the same numbers: bit for bit


def test_the_policy_reads_its_observations_through_it() -> None:
    env = EncounterMix([TrpgArenaEnv("kiai", encounter="kiai/duel", side="both")])
    model = MaskablePPO(LegalActionsPolicy, env, device="cpu", seed=0)
    stock = MaskablePPO("MlpPolicy", env, device="cpu", seed=0)
    firsts = [model.policy.mlp_extractor.policy_net[0], model.policy.mlp_extractor.value_net[0]]
    assert all(isinstance(m, SparseInputLinear) for m in firsts)
    assert set(model.policy.state_dict()) == set(stock.policy.state_dict())  # the same parameters, by name
    stock.policy.load_state_dict(model.policy.state_dict())
    x = _observations("kiai/duel", 32)
    with torch.no_grad():
        assert torch.allclose(model.policy.predict_values(x), stock.policy.predict_values(x), atol=1e-5)
