"""A first layer that reads only the observation entries that are not zero: the same layer at a fraction of the cost.

A canonical observation has a row of features for every entity slot of the layout (hundreds of entries, 700 to 800
on the duels), while an encounter fills a few of those rows: a minibatch of duel decisions has about 70 entries
that are not zero in any of its rows. MaskablePPO's policy and value networks both start with a dense layer over
the whole observation, so their forward and backward passes (ten epochs over every step) cost what 700 inputs
cost.

`SparseInputLinear` is `nn.Linear` with the same parameters whose forward multiplies only the columns that are
not zero somewhere in the batch: ``x[:, cols] @ W[:, cols].T + b``. A column that is zero in every row adds
exactly zero to the output and receives exactly zero gradient either way, so the layer computes the same
function and the same gradients (up to the order of the float sums); weights, saving and export are unchanged.
When most columns are filled (a skirmish late in training, or a one-hot yardstick) the dense product is
cheaper and is used instead.
"""

from __future__ import annotations

import torch
from torch import nn

_DENSE_SHARE = 2  # with half of the columns filled or more, gathering them costs more than it saves
_SPARSE_ROWS = 16  # a few rows (a rollout's one decision per env): the dense product is cheaper than finding columns


class SparseInputLinear(nn.Linear):
    """`nn.Linear` over the columns of its input that are not zero in some row (see the module docstring)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x @ W.T + b``, reading only ``x``'s filled columns when few are."""
        if x.dim() != 2 or len(x) < _SPARSE_ROWS:
            return super().forward(x)
        # A column is empty when the sum of its absolute values is zero (a sum of non-negative numbers is zero
        # only if each one is); one pass, faster than comparing and reducing booleans.
        cols = x.abs().sum(dim=0).nonzero().reshape(-1)
        if len(cols) * _DENSE_SHARE >= self.in_features:
            return super().forward(x)
        return nn.functional.linear(x.index_select(1, cols), self.weight.index_select(1, cols), self.bias)


def sparsify_first_layers(*networks: nn.Sequential) -> None:
    """Turn the first `nn.Linear` of each network into a `SparseInputLinear` (the same parameter objects)."""
    for network in networks:
        first = next((m for m in network if isinstance(m, nn.Linear)), None)
        if first is not None and type(first) is nn.Linear:
            first.__class__ = SparseInputLinear


__all__ = ["SparseInputLinear", "sparsify_first_layers"]
