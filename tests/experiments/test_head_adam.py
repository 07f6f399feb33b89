"""`HeadRowsAdam`: Adam on the action head's active rows only gives the very parameters stock Adam gives.

MaskablePPO trains twice from the same seed on kiai's duel, once with the policy's own optimiser and once with
stock `torch.optim.Adam`: after several updates every parameter and every moment is equal, and the rows that
no decision offered are where they started. A gradient that reaches the head outside the legal-actions
distribution still gets stock Adam's update.
"""

from __future__ import annotations

import torch
from sb3_contrib import MaskablePPO

from trpg_arena.envs.gym_env import TrpgArenaEnv
from trpg_arena.experiments.head_adam import HeadRowsAdam
from trpg_arena.experiments.legal_head import LegalActionsPolicy, trainer_options
from trpg_arena.experiments.policy_ppo import EncounterMix


class _StockAdam(torch.optim.Adam):
    """Plain Adam under another class, so the policy keeps it (the reference run)."""


def _trained(optimizer_class: type[torch.optim.Optimizer] | None) -> MaskablePPO:
    env = EncounterMix([TrpgArenaEnv("kiai", encounter="kiai/duel", side="both")])
    kwargs = {} if optimizer_class is None else {"optimizer_class": optimizer_class}
    model = MaskablePPO(env=env, n_steps=128, batch_size=64, n_epochs=2, seed=4, device="cpu",
                        policy_kwargs=kwargs, **trainer_options())
    model.learn(total_timesteps=256)  # 8 updates
    return model


def test_the_same_parameters_and_moments_as_stock_adam() -> None:
    fast, stock = _trained(None), _trained(_StockAdam)
    assert isinstance(fast.policy.optimizer, HeadRowsAdam)
    assert type(stock.policy.optimizer) is _StockAdam
    for (name, a), b in zip(fast.policy.named_parameters(), stock.policy.parameters(), strict=True):
        assert torch.equal(a, b), name
        sa, sb = fast.policy.optimizer.state[a], stock.policy.optimizer.state[b]
        assert torch.equal(sa["exp_avg"], sb["exp_avg"]) and torch.equal(sa["exp_avg_sq"], sb["exp_avg_sq"]), name
        assert torch.equal(sa["step"], sb["step"]), name
    moved = fast.policy.optimizer.state[fast.policy.action_net.weight]["exp_avg_sq"].abs().amax(dim=1) > 0
    assert 0 < int(moved.sum()) < len(moved) // 4  # a few hundred rows of thousands ever had a gradient


def test_a_gradient_from_outside_the_distribution_gets_a_full_step() -> None:
    env = EncounterMix([TrpgArenaEnv("kiai", encounter="kiai/duel", side="both")])
    policy = MaskablePPO(env=env, device="cpu", seed=0, **trainer_options()).policy
    assert isinstance(policy, LegalActionsPolicy)
    head = policy.action_net
    before = head.weight.detach().clone()
    head(torch.ones(1, head.in_features)).sum().backward()  # every row gets a gradient, none marked as scored
    policy.optimizer.step()
    assert not torch.isclose(head.weight, before).all(dim=1).any()  # every row moved


def test_with_weight_decay_every_row_moves_as_under_stock_adam() -> None:
    from trpg_arena.experiments.head_adam import ScoredRows

    torch.manual_seed(0)
    head, reference = torch.nn.Linear(8, 64), torch.nn.Linear(8, 64)
    reference.load_state_dict(head.state_dict())
    scored = ScoredRows(64)
    fast = HeadRowsAdam(head.parameters(), head=head, scored=scored, lr=0.01, weight_decay=0.1)
    stock = torch.optim.Adam(reference.parameters(), lr=0.01, weight_decay=0.1)
    for layer in (head, reference):
        layer(torch.ones(1, 8))[0, 3].backward()  # a gradient on row 3 only, as a scored column gives
    scored.add(torch.tensor([3]))
    fast.step()
    stock.step()
    assert torch.equal(head.weight, reference.weight)  # decay moved the rows without a gradient too
