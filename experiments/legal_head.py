"""A MaskablePPO policy whose action head scores the legal actions only.

The canonical action layouts are large (thousands of indices: verbs x target rows x options x squares)
while a decision offers tens of them. sb3-contrib's masked categorical computes a logit for every index,
sets the masked ones to -1e8 and normalises over all of them, several times per call; with thousands
of indices that, and its backward pass, is most of a training step (profiled on reincarnator/duel:
the log-sum-exp over the masked logits and the head's backward took about half of MaskablePPO's time, the
env a tenth).

`LegalActionsPolicy` is `MaskableActorCriticPolicy` (sb3-contrib's ``MlpPolicy``) with the same
networks and parameters, whose distribution computes the head's rows for the legal indices alone:
``logit[a] = W[a] . h + b[a]`` for each legal ``a``, normalised over those. The distribution is the same
one (a masked action's probability is exactly 0 either way, a legal one's the same softmax), so the
policy trains, saves, loads and exports like the stock one, at a cost set by the legal actions rather
than by the layout's size. The ``ppo`` agent plays the same way in numpy (`PolicyNet.legal_logits`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples
from sb3_contrib.common.maskable.distributions import MaskableCategorical, MaskableCategoricalDistribution, MaybeMasks
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from trpg_arena.experiments.head_adam import HeadRowsAdam, ScoredRows
from trpg_arena.experiments.sparse_input import sparsify_first_layers

_DENSE_SHARE = 4  # with a quarter of the indices or more scored, gathering rows costs more than the whole head
_MASKED = -1e8  # what sb3-contrib gives a masked logit: exp(_MASKED - max) is exactly 0 in float32


class LegalActionsDistribution(MaskableCategoricalDistribution):
    """A masked categorical over a `Discrete(n)` space whose logits are computed for the legal actions only.

    `from_latent` keeps the actor's latent and the head; `apply_masking` scores the batch's legal columns
    (the indices legal in at least one row) with one product against those rows of the head, and
    normalises each row over its own legal ones.
    """

    def __init__(self, action_dim: int) -> None:
        super().__init__(action_dim)
        self._latent: torch.Tensor | None = None
        self._head: nn.Linear | None = None
        self.columns = torch.zeros(0, dtype=torch.long)  # (L,) the indices scored, ascending (the batch's columns)
        self.legal = torch.zeros((0, 0), dtype=torch.long)  # (batch, L): the same for every row (a view)
        self.valid = torch.zeros((0, 0), dtype=torch.bool)  # (batch, L): the index is legal in this row
        self.log_p = torch.zeros((0, 0))  # (batch, L) log-probabilities (not valid: about _MASKED)
        self._pending = False  # a latent waits for its mask
        self.scored: ScoredRows | None = None  # told which head rows get a gradient (the policy's `HeadRowsAdam`)

    def from_latent(self, latent: torch.Tensor, head: nn.Linear) -> LegalActionsDistribution:
        """The distribution of a batch of actor latents, every action legal until `apply_masking`."""
        self._latent, self._head = latent.reshape(-1, latent.shape[-1]), head
        self._pending = True  # the full head is computed only if no mask comes (`_ready`)
        return self

    def proba_distribution(self, action_logits: torch.Tensor) -> LegalActionsDistribution:
        """The stock entry point (logits of every action given): every index counts as legal."""
        logits = action_logits.reshape(-1, self.action_dim)
        self._latent, self._head, self._pending = None, None, False
        self._set(torch.arange(self.action_dim), torch.ones_like(logits, dtype=torch.bool), logits)
        return self

    def apply_masking(self, masks: MaybeMasks) -> None:
        """Keep the legal indices of each row (all of them for None) and normalise over those."""
        latent, head = self._latent, self._head
        self._pending = False
        if latent is None or head is None:  # built from full logits: mask them the stock way
            if masks is not None:
                mask = torch.as_tensor(masks, dtype=torch.bool).reshape(self.valid.shape)
                self._set(self.columns, mask, self.log_p)
            return
        batch = len(latent)
        if masks is None:
            self._mark_scored(None)
            self._set(torch.arange(self.action_dim), torch.ones((batch, self.action_dim), dtype=torch.bool),
                      head(latent))
            return
        mask = torch.as_tensor(np.asarray(masks) if not isinstance(masks, torch.Tensor) else masks,
                               device=latent.device).reshape(batch, self.action_dim).bool()
        # The columns legal in some row of the batch: one matrix product scores them all for every row
        # (rows of a batch share most of their legal actions), and each row keeps its own legal ones.
        # (A byte-wise max over the rows: torch's `any` along the batch is some fifty times slower.)
        legal_somewhere = mask.contiguous().view(torch.uint8).amax(dim=0) if batch else mask.new_zeros(0)
        columns = legal_somewhere.nonzero().reshape(-1)
        if not len(columns) or len(columns) * _DENSE_SHARE >= self.action_dim:  # mostly legal: the full head is cheaper
            self._mark_scored(None)
            self._set(torch.arange(self.action_dim, device=latent.device), mask, head(latent))
            return
        self._mark_scored(columns)
        logits = nn.functional.linear(latent, head.weight.index_select(0, columns), head.bias.index_select(0, columns))
        self._set(columns, mask.index_select(1, columns), logits)

    def _mark_scored(self, columns: torch.Tensor | None) -> None:
        """Tell the optimiser which head rows this pass may give a gradient (None: all of them)."""
        if self.scored is not None and self._head is not None and torch.is_grad_enabled() \
                and self._head.weight.requires_grad:
            self.scored.add(columns)

    def _ready(self) -> None:
        if self._pending:  # no mask was applied: every action is legal
            self.apply_masking(None)

    def _set(self, columns: torch.Tensor, valid: torch.Tensor, logits: torch.Tensor) -> None:
        self.columns, self.legal, self.valid = columns, columns.expand(len(valid), -1), valid
        self.log_p = torch.log_softmax(logits.masked_fill(~valid, _MASKED), dim=-1)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        """Log-probability of each row's action (an action that is not legal has none: about _MASKED)."""
        self._ready()
        wanted = actions.reshape(-1).long()
        rows = torch.arange(len(wanted), device=wanted.device)
        if len(self.columns) == self.action_dim:  # every index scored: an action is its own slot
            return torch.where(self.valid[rows, wanted], self.log_p[rows, wanted], _MASKED)
        slot = torch.searchsorted(self.columns, wanted).clamp(max=len(self.columns) - 1)  # columns ascend
        hit = (self.columns[slot] == wanted) & self.valid[rows, slot]
        return torch.where(hit, self.log_p[rows, slot], _MASKED)

    def entropy(self) -> torch.Tensor:
        """Entropy over the legal actions."""
        self._ready()
        legal_log_p = self.log_p.masked_fill(~self.valid, 0.0)  # exp(0) * 0 adds nothing, and exp stays fast
        return -(legal_log_p.exp() * legal_log_p).sum(dim=1)

    def sample(self) -> torch.Tensor:
        """One action per row, drawn from the legal ones."""
        self._ready()
        slot = torch.multinomial(self.log_p.exp(), 1)
        return self.legal.gather(1, slot).reshape(-1)

    def mode(self) -> torch.Tensor:
        """The most probable legal action of each row."""
        self._ready()
        return self.legal.gather(1, self.log_p.argmax(dim=1, keepdim=True)).reshape(-1)

    @property  # the parent's attribute, built on demand here
    def distribution(self) -> MaskableCategorical:
        """The distribution over every index (masked ones at probability 0), for callers that read ``probs``."""
        self._ready()
        full = torch.full((len(self.legal), self.action_dim), _MASKED, dtype=self.log_p.dtype,
                          device=self.log_p.device)
        full.scatter_(1, torch.where(self.valid, self.legal, self.legal[:, :1]),
                      torch.where(self.valid, self.log_p, self.log_p[:, :1]))
        return MaskableCategorical(logits=full)

    @distribution.setter
    def distribution(self, value: Any) -> None:  # the parent's constructor assigns nothing; kept for symmetry
        del value


class LegalActionsPolicy(MaskableActorCriticPolicy):
    """sb3-contrib's masked actor-critic MLP whose action head scores only the legal actions (same parameters)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Adam's fused kernel: one pass over the parameters instead of one per operation (the head is large)
        kwargs["optimizer_kwargs"] = {"fused": True, **(kwargs.get("optimizer_kwargs") or {})}
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule: Any) -> None:
        if isinstance(self.action_space, spaces.Discrete):
            self.action_dist = LegalActionsDistribution(int(self.action_space.n))
        super()._build(lr_schedule)
        # the first layers read only the observation entries that are filled in the batch (`experiments.sparse_input`)
        sparsify_first_layers(self.mlp_extractor.policy_net, self.mlp_extractor.value_net)
        if isinstance(self.action_dist, LegalActionsDistribution) and self.optimizer_class is torch.optim.Adam:
            # Adam over the head's rows that have had a gradient: the same updates, without touching the
            # thousands of rows no decision has offered yet (`experiments.head_adam`)
            assert isinstance(self.action_net, nn.Linear)
            self.action_dist.scored = ScoredRows(self.action_dist.action_dim)
            self.optimizer = HeadRowsAdam(self.parameters(), head=self.action_net, scored=self.action_dist.scored,
                                          lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_action_dist_from_latent(self, latent_pi: torch.Tensor) -> Any:
        if isinstance(self.action_dist, LegalActionsDistribution):
            assert isinstance(self.action_net, nn.Linear)  # built by the distribution's proba_distribution_net
            return self.action_dist.from_latent(latent_pi, self.action_net)
        return super()._get_action_dist_from_latent(latent_pi)


class BoolMaskRolloutBuffer(MaskableRolloutBuffer):
    """sb3-contrib's masked rollout buffer holding the masks as booleans instead of float32.

    A mask row is as long as the action layout (thousands of indices): float32 rows cost four times the
    memory, and every minibatch converted them back to booleans before the head could use them.
    """

    def reset(self) -> None:
        """Empty the buffer, its masks boolean (every action legal until a step writes its mask)."""
        super().reset()
        self.action_masks = np.ones(self.action_masks.shape, dtype=bool)

    # the base buffer declares its own samples type; sb3-contrib's override returns the masked samples (another
    # NamedTuple) under the same ignore, and this one returns what sb3-contrib's does
    def _get_samples(self, batch_inds: np.ndarray, env: Any = None) -> MaskableRolloutBufferSamples:  # type: ignore[override]
        """A minibatch, as sb3-contrib's; its arrays become tensors without a second copy.

        Indexing by ``batch_inds`` already copies every array, so the tensors can share those copies (the
        stock buffer copies each once more: a minibatch's masks are as long as the layout, up to 800 kB).
        """
        data = (self.observations[batch_inds], self.actions[batch_inds], self.values[batch_inds].flatten(),
                self.log_probs[batch_inds].flatten(), self.advantages[batch_inds].flatten(),
                self.returns[batch_inds].flatten(), self.action_masks[batch_inds].reshape(-1, self.mask_dims))
        return MaskableRolloutBufferSamples(*(self.to_torch(a, copy=False) for a in data))


def trainer_options() -> dict[str, Any]:
    """The MaskablePPO options that go with `LegalActionsPolicy` (its policy class and boolean-mask buffer)."""
    return {"policy": LegalActionsPolicy, "rollout_buffer_class": BoolMaskRolloutBuffer}


__all__ = ["BoolMaskRolloutBuffer", "LegalActionsDistribution", "LegalActionsPolicy", "trainer_options"]
