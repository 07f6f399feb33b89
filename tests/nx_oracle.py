"""The graph's own answers to reach and paths: what the kernel grid (`core.grid`) is tested against.

The rules read the compiled grid; these read a battlefield's networkx graph the plain way (Dijkstra over
entering costs), so a test can hold the grid to the graph it was built from (sight: `Battlefield.line_of_sight`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import networkx as nx

from trpg_arena.rules.core.battlefield import Battlefield

Cost = Callable[[Any, Any], float | None]  # the cost of a step u -> v (None: it cannot be taken)


def _weight(bf: Battlefield, blocked: frozenset[Any], cost_fn: Cost | None) -> Callable[..., float | None]:
    """The networkx weight: the cost of entering `v` (its node's ``cost``, or `cost_fn`'s), None where blocked."""
    nodes = bf.graph.nodes

    def weight(u: Any, v: Any, _d: dict[str, Any]) -> float | None:
        if v in blocked:
            return None
        return cost_fn(u, v) if cost_fn is not None else nodes[v].get("cost", 1)

    return weight


def reachable(bf: Battlefield, start: Any, budget: float, blocked: frozenset[Any] = frozenset(),
              cost_fn: Cost | None = None) -> dict[Any, float]:
    """The cheapest entering cost of every node within `budget` from `start`, avoiding `blocked`."""
    return nx.single_source_dijkstra_path_length(bf.graph, start, cutoff=budget, weight=_weight(bf, blocked, cost_fn))


def path(bf: Battlefield, start: Any, goal: Any, blocked: frozenset[Any] = frozenset()) -> list[Any] | None:
    """A cheapest path from `start` to `goal` (both included), or None."""
    try:
        found: list[Any] = nx.dijkstra_path(bf.graph, start, goal, weight=_weight(bf, blocked, None))
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        return None
    return found

