"""Adam that updates only the rows of the action head that Adam would move: the same result at a fraction of the cost.

A canonical action layout has thousands of indices, so MaskablePPO's action head has thousands of rows, but a
minibatch scores only the columns legal in it (`LegalActionsDistribution`) and gives every other row a zero
gradient. Adam moves a parameter whose gradient and both moments are zero by exactly nothing (its moments stay
zero, its step is ``lr * 0 / (0 + eps)``), so a row that has never had a gradient needs no update at all. Stock
Adam still reads and writes all of them at every step (four arrays as large as the head, about as costly as the
rest of the update on kiai's and reincarnator's layouts).

`HeadRowsAdam` runs the same Adam kernel on the head weight's *active* rows only: the rows that had a gradient at
some step (their moments are no longer zero) and those the distribution scored since the last step. Every
element it updates gets the same arithmetic as under `torch.optim.Adam`, and every element it skips is one
that Adam leaves unchanged, so the parameters and the moments are identical
(`tests/experiments/test_head_adam.py` compares them over a training run).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch
from torch.optim.adam import adam


class ScoredRows:
    """The head rows a distribution scored with gradients since the optimiser's last step (filled by the head)."""

    def __init__(self, rows: int) -> None:
        self.mask = torch.zeros(rows, dtype=torch.bool)
        self.any = False

    def add(self, columns: torch.Tensor | None) -> None:
        """Mark ``columns`` as scored (None: every row)."""
        if columns is None:
            self.mask.fill_(True)
        else:
            self.mask[columns] = True
        self.any = True

    def clear(self) -> None:
        """Forget the marks (after a step)."""
        if self.any:
            self.mask.fill_(False)
            self.any = False


class HeadRowsAdam(torch.optim.Adam):
    """`torch.optim.Adam` that skips the head rows whose gradient and moments are all zero (see the module)."""

    def __init__(self, params: Iterable[Any], head: torch.nn.Linear, scored: ScoredRows, **kwargs: Any) -> None:
        super().__init__(params, **kwargs)
        self.head = head
        self.scored = scored
        self._active: torch.Tensor | None = None  # rows with a moment that is not zero (None: to be read off the state)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Adam's loading; the active rows are read off the loaded moments at the next step."""
        super().load_state_dict(state_dict)
        self._active = None

    def _active_rows(self) -> torch.Tensor:
        if self._active is None:
            state = self.state.get(self.head.weight, {})
            moments = state.get("exp_avg_sq")
            self._active = (moments.abs().amax(dim=1) > 0 if moments is not None
                            else torch.zeros(self.head.weight.shape[0], dtype=torch.bool))
        self._active |= self.scored.mask
        return self._active.nonzero().reshape(-1)

    def _plain(self) -> bool:
        """The options this class implements row by row (any other: stock Adam's step).

        Weight decay moves a row whose gradient is zero too, so with it no row may be skipped.
        """
        return all(not g["amsgrad"] and not g["differentiable"] and not g["capturable"] and not g["maximize"]
                   and not torch.is_tensor(g["lr"]) and not g["weight_decay"] for g in self.param_groups)

    @torch.no_grad()
    def step(self, closure: Any = None) -> Any:
        """One Adam step; the head's weight is updated on its active rows only.

        (The bias, one value per row, is updated whole: it is small, and a gathered 1-D tensor would put its
        values at other offsets of the kernel's vector lanes, where rounding may differ by an ulp; the
        weight's rows are whole multiples of the lane count (64 or 128 values), so a gathered row sits in
        the same lanes.)
        """
        weight = self.head.weight
        if not self._plain() or (weight.grad is not None and not self.scored.any):
            # a gradient reached the head outside the legal-actions distribution: its rows are unknown
            self._active = None
            self.scored.clear()
            return super().step(closure)
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        rows = self._active_rows() if weight.grad is not None else None
        for group in self.param_groups:
            params: list[torch.Tensor] = []
            grads: list[torch.Tensor] = []
            exp_avgs: list[torch.Tensor] = []
            exp_avg_sqs: list[torch.Tensor] = []
            steps: list[torch.Tensor] = []
            self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, [], steps)
            if not params:
                continue
            written: list[tuple[torch.Tensor, torch.Tensor]] = []  # (the whole tensor, its rows updated)
            if rows is not None:
                for i, p in enumerate(params):
                    if p is weight:
                        for lst in (params, exp_avgs, exp_avg_sqs):
                            whole = lst[i]
                            lst[i] = whole.index_select(0, rows)
                            written.append((whole, lst[i]))
                        grads[i] = grads[i].index_select(0, rows)
            beta1, beta2 = group["betas"]
            adam(params, grads, exp_avgs, exp_avg_sqs, [], steps, amsgrad=False, has_complex=False, beta1=beta1,
                 beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"], eps=group["eps"], maximize=False,
                 foreach=group["foreach"], capturable=False, differentiable=False, fused=group["fused"],
                 decoupled_weight_decay=group["decoupled_weight_decay"])
            if rows is not None:
                for whole, part in written:
                    whole.index_copy_(0, rows, part)
        self.scored.clear()
        return loss


__all__ = ["HeadRowsAdam", "ScoredRows"]
