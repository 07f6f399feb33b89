"""The open-loop search tree: nodes are sequences of actions, not states.

Chance is sampled afresh in every simulation, so one node stands for every state its action sequence
can lead to. A child is therefore only selectable when its action is legal in the state the simulation
has reached; the children are created in the prior's order (progressive widening), so a child's rank
is its prior. Statistics are kept from the point of view of the side that chose the edge.
"""

from __future__ import annotations

import math
from typing import Any

from trpg_arena.rules import Action


class Node:
    """One action sequence: the action into it, who chose it, and the playout values seen through it."""

    __slots__ = ("action", "side", "n", "w", "w2", "children", "order", "closed")

    def __init__(self, action: Action | None, side: str | None) -> None:
        self.action = action
        self.side = side  # the side that chose `action` (None at the root)
        self.n = 0
        self.w = 0.0  # sum of values for `side`
        self.w2 = 0.0  # sum of their squares (for the standard error of `q`)
        self.children: list[Node] = []
        # The prior's order of candidate actions, cached from the first state met here (not saved: a
        # search rebuilds it, so a restored agent and an uninterrupted one see the same order).
        self.order: list[Action] | None = None
        # Whether `order` is the whole set of candidates here (a root given by the trained agent), not a
        # prefix that widening may extend with the rest of the legal actions.
        self.closed = False

    @property
    def taken(self) -> Action:
        """`action` of a node below the root (the root alone has none)."""
        assert self.action is not None
        return self.action

    @property
    def q(self) -> float:
        """Mean value for the side that chose this node's action (0 before any visit)."""
        return self.w / self.n if self.n else 0.0

    @property
    def se(self) -> float:
        """Standard error of `q` (large while there are fewer than two visits)."""
        if self.n < 2:
            return 1.0
        var = max(self.w2 / self.n - (self.w / self.n) ** 2, 0.0)
        return math.sqrt(var / self.n)

    def child(self, action: Action) -> Node | None:
        """The child reached by `action`, if it was ever expanded."""
        for c in self.children:
            if c.action == action:
                return c
        return None

    def select(self, legal: set[Action], c: float, prior_weight: float) -> Node | None:
        """The child to descend to among those legal now: UCB1 plus a rank prior that fades with visits."""
        best, best_score = None, -math.inf
        total = sum(ch.n for ch in self.children if ch.action in legal)
        log_total = math.log(total + 1)
        for rank, ch in enumerate(self.children):
            if ch.action not in legal:
                continue
            if ch.n == 0:
                return ch  # a created child is visited before any is visited twice
            score = ch.w / ch.n + c * math.sqrt(log_total / ch.n) + prior_weight / ((rank + 1) * (1 + ch.n))
            if score > best_score:
                best, best_score = ch, score
        return best

    def to_json(self) -> list[Any]:
        """Nested JSON-safe form of the statistics (the order caches are left out)."""
        return [None if self.action is None else self.action.to_json(), self.side, self.n, self.w, self.w2,
                [ch.to_json() for ch in self.children]]

    @classmethod
    def from_json(cls, data: list[Any]) -> Node:
        """Inverse of `to_json`."""
        action, side, n, w, w2, children = data
        node = cls(None if action is None else Action.from_json(action), side)
        node.n, node.w, node.w2 = int(n), float(w), float(w2)
        node.children = [cls.from_json(ch) for ch in children]
        return node

    def clear_orders(self) -> None:
        """Forget the cached prior orders below this node (they belong to states of an earlier search)."""
        stack = [self]
        while stack:
            node = stack.pop()
            node.order = None
            node.closed = False
            stack.extend(node.children)


def width(visits: int, widen: float, alpha: float) -> int:
    """How many children a node with `visits` visits may have (progressive widening: widen * n^alpha)."""
    return max(1, int(widen * (visits + 1) ** alpha))
