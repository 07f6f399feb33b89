"""The battlefield: a networkx graph of places, with its builders, metrics and line helpers.

Nodes are zones (strings) or cells (``(x, y)`` / ``(col, row)`` tuples). Every node has a ``pos``
(x, y) for drawing and a ``cost`` (cost of entering it); terrain lives in node attributes. The graph is
the source of truth; the rules ask reach, paths and lines of the grid compiled from it (`Battlefield.grid`,
`core.grid`), which the tests hold to the graph's own answers. Line of sight between two nodes, which the
feature layout asks of every board (zones included), is cached here by the pair.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import networkx as nx

if TYPE_CHECKING:
    from trpg_arena.rules.core.grid import Grid

Cell = tuple[int, int]

SQUARE_DIRS: tuple[Cell, ...] = ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))


class Battlefield:
    """A battlefield graph with its metric, neighbours, node attributes and line of sight, and its compiled grid."""

    def __init__(self, graph: nx.Graph, kind: str) -> None:
        self.graph = graph
        self.kind = kind  # "zones", "square" or "hex"
        self._los_cache: dict[tuple[Any, Any], bool] = {}
        self._hops: dict[Any, dict[Any, int]] | None = None
        self.width = int(graph.graph.get("width", 0))
        self.height = int(graph.graph.get("height", 0))
        self._grid: Grid | None = None

    @property
    def grid(self) -> Grid:
        """The compiled grid of a square or hex battlefield (`core.grid`), built on first use.

        The compiled encounter owns the battlefield, so this is one grid per encounter content; the graph
        must not change once the grid is read.
        """
        grid = self._grid
        if grid is None:
            from trpg_arena.rules.core.grid import Grid  # the grid reads this module's line helpers

            grid = self._grid = Grid(self)
        return grid

    # --- metric -----------------------------------------------------------------------------
    def distance(self, a: Any, b: Any) -> int:
        """Distance in the board's own metric: hops for zones, Chebyshev for squares, hex distance for hexes."""
        if self.kind == "square":
            return chebyshev(a, b)
        if self.kind == "hex":
            return hex_distance(a, b)
        if self._hops is None:
            self._hops = dict(nx.all_pairs_shortest_path_length(self.graph))
        return self._hops[a][b]

    def neighbours(self, node: Any) -> Iterator[Any]:
        """Adjacent nodes (graph edges)."""
        return iter(self.graph.adj[node])

    def attr(self, node: Any, name: str, default: Any = None) -> Any:
        """A node attribute, or `default`."""
        return self.graph.nodes[node].get(name, default)

    # --- sight ------------------------------------------------------------------------------
    def line_of_sight(self, a: Any, b: Any, blocks: Callable[[Any], bool] | None = None) -> bool:
        """Whether no node strictly between `a` and `b` blocks sight (zones: always clear).

        The default blocker is the node attribute ``blocks_los``; with a custom `blocks` the
        result is not cached.
        """
        if self.kind == "zones":
            return True
        if blocks is None:
            hit = self._los_cache.get((a, b))
            if hit is not None:
                return hit
        between = bresenham(a, b)[1:-1] if self.kind == "square" else hex_line(a, b)[1:-1]
        if blocks is not None:
            return not any(blocks(c) for c in between if c in self.graph)
        nodes = self.graph.nodes
        hit = not any(nodes[c].get("blocks_los", False) for c in between if c in self.graph)
        self._los_cache[(a, b)] = hit
        return hit


# --- builders -------------------------------------------------------------------------------
def zone_line(names: Iterable[str], **attrs: dict[str, Any]) -> Battlefield:
    """Zones laid in a line (``A_rear - A_front - B_front - B_rear``); `attrs` gives per-zone attributes."""
    g: nx.Graph[str] = nx.Graph(kind="zones")
    names = list(names)
    for i, n in enumerate(names):
        g.add_node(n, pos=(i, 0), cost=1, **attrs.get(n, {}))
    for a, b in zip(names, names[1:]):
        g.add_edge(a, b, cost=1)
    g.graph["width"], g.graph["height"] = len(names), 1
    return Battlefield(g, "zones")


def _cells(kind: str, width: int, height: int, cells: dict[Cell, dict[str, Any]] | None,
           pos: Callable[[int, int], tuple[float, float]]) -> nx.Graph[Cell]:
    """A board's cells in row order, open and of cost 1 unless `cells` says otherwise, each drawn at `pos`."""
    g: nx.Graph[Cell] = nx.Graph(kind=kind, width=width, height=height)
    for y in range(height):
        for x in range(width):
            g.add_node((x, y), pos=pos(x, y), **{"cost": 1, "terrain": "open", **(cells or {}).get((x, y), {})})
    return g


def square_grid(width: int, height: int, cells: dict[Cell, dict[str, Any]] | None = None, *,
                impassable: Callable[[dict[str, Any]], bool] = lambda a: bool(a.get("impassable")),
                corner_blocks: Callable[[dict[str, Any]], bool] | None = None) -> Battlefield:
    """A width x height grid of square cells with 8-neighbour adjacency.

    `cells` sets per-cell attributes (``cost``, ``terrain``, ``blocks_los``...). Impassable cells stay
    nodes (for sight and drawing) but get no edges. A diagonal edge is left out when `corner_blocks`
    says either orthogonal cell it passes between blocks the corner.
    """
    g = _cells("square", width, height, cells, lambda x, y: (x, y))
    nodes = g.nodes
    for y in range(height):
        for x in range(width):
            if impassable(nodes[(x, y)]):
                continue
            for dx, dy in SQUARE_DIRS[:2] + SQUARE_DIRS[4:6]:  # E, S, SE, SW: each edge once
                nx_, ny = x + dx, y + dy
                if not (0 <= nx_ < width and 0 <= ny < height) or impassable(nodes[(nx_, ny)]):
                    continue
                if dx and dy and corner_blocks is not None and (
                        corner_blocks(nodes[(x + dx, y)]) or corner_blocks(nodes[(x, y + dy)])):
                    continue
                g.add_edge((x, y), (nx_, ny), diagonal=bool(dx and dy))
    return Battlefield(g, "square")


def hex_neighbours(col: int, row: int) -> list[Cell]:
    """Neighbours of an odd-r offset hex (odd rows shifted half a hex right)."""
    if row % 2 == 0:
        return [(col + 1, row), (col - 1, row), (col - 1, row - 1), (col, row - 1), (col - 1, row + 1), (col, row + 1)]
    return [(col + 1, row), (col - 1, row), (col, row - 1), (col + 1, row - 1), (col, row + 1), (col + 1, row + 1)]


def hex_grid(width: int, height: int, cells: dict[Cell, dict[str, Any]] | None = None, *,
             impassable: Callable[[dict[str, Any]], bool] = lambda a: bool(a.get("impassable"))) -> Battlefield:
    """A width x height map of hexes in odd-r offset coordinates ``(col, row)``."""
    g = _cells("hex", width, height, cells, lambda col, row: (col + 0.5 * (row % 2), row * 0.866))
    nodes = g.nodes
    for row in range(height):
        for col in range(width):
            if impassable(nodes[(col, row)]):
                continue
            for n in hex_neighbours(col, row):
                if n in nodes and not impassable(nodes[n]):
                    g.add_edge((col, row), n)
    return Battlefield(g, "hex")


# --- geometry -------------------------------------------------------------------------------
def chebyshev(a: Cell, b: Cell) -> int:
    """Square-grid distance: ``max(|dx|, |dy|)`` (written out: rules and agents call it in their inner loops)."""
    dx = a[0] - b[0]
    dy = a[1] - b[1]
    if dx < 0:
        dx = -dx
    if dy < 0:
        dy = -dy
    return dx if dx > dy else dy


def to_axial(cell: Cell) -> tuple[int, int]:
    """Odd-r offset ``(col, row)`` to axial ``(q, r)``."""
    col, row = cell
    return col - (row - (row & 1)) // 2, row


def hex_distance(a: Cell, b: Cell) -> int:
    """Hex distance between two odd-r offset hexes."""
    q1, r1 = to_axial(a)
    q2, r2 = to_axial(b)
    return (abs(q1 - q2) + abs(r1 - r2) + abs(q1 + r1 - q2 - r2)) // 2


@lru_cache(maxsize=16384)
def bresenham(a: Cell, b: Cell) -> tuple[Cell, ...]:
    """Cells on the classic integer Bresenham line from `a` to `b`, both ends included."""
    x0, y0 = a
    x1, y1 = b
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx = 1 if x0 < x1 else -1
    sy = 1 if y0 < y1 else -1
    err = dx + dy
    out = []
    while True:
        out.append((x0, y0))
        if x0 == x1 and y0 == y1:
            return tuple(out)
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy


def crossed_squares(a: Cell, b: Cell) -> tuple[Cell, ...]:
    """The squares the segment between the centres of `a` and `b` crosses with positive length, ends left out.

    Liang-Barsky clipping of the segment against each square, exact in integers: a line of sight read as a
    segment (a line grazing a corner crosses neither square), not as a run of cells like `bresenham`.
    Parameters t along the segment are scaled by L = 2|dx||dy| (zero factors read as 1), so every clipping
    bound is an integer and the comparison ``t_enter < t_exit`` is exact. Per column only the rows whose centre
    lies near the line are tried, and the column's own clipping interval is computed once.
    """
    (x0, y0), (x1, y1) = a, b
    dx, dy = x1 - x0, y1 - y0
    big = 2 * (abs(dx) or 1) * (abs(dy) or 1)
    support = abs(dx) + abs(dy)  # twice the unit box's half-extent along the segment's normal
    # per axis with a nonzero delta d: the parameter step per half square, big / (2 d) (exact: 2 d divides big)
    mx = (big // (2 * dx) if dx > 0 else -(big // (-2 * dx))) if dx else 0
    my = (big // (2 * dy) if dy > 0 else -(big // (-2 * dy))) if dy else 0
    out = []
    ylo, yhi = min(y0, y1), max(y0, y1)
    for cx in range(min(x0, x1), max(x0, x1) + 1):
        if dx:
            t1, t2 = (2 * (cx - x0) - 1) * mx, (2 * (cx - x0) + 1) * mx
            if t1 > t2:
                t1, t2 = t2, t1
            xlo, xhi = max(0, t1), min(big, t2)
            # only squares whose centre lies within support / 2 of the line can pass the distance test below
            mid = y0 + dy * (cx - x0) / dx
            spread = support / (2 * abs(dx)) + 1
            rows = range(max(ylo, int(mid - spread)), min(yhi, int(mid + spread)) + 1)
        else:  # a vertical segment: the column is x0 itself
            xlo, xhi = 0, big
            rows = range(ylo, yhi + 1)
        for cy in rows:
            if (cx, cy) == a or (cx, cy) == b or 2 * abs(dy * (cx - x0) - dx * (cy - y0)) >= support:
                continue
            if dy:
                t1, t2 = (2 * (cy - y0) - 1) * my, (2 * (cy - y0) + 1) * my
                if t1 > t2:
                    t1, t2 = t2, t1
                if (xlo if xlo > t1 else t1) < (xhi if xhi < t2 else t2):
                    out.append((cx, cy))
            elif xlo < xhi:  # a horizontal segment: the row is y0 itself
                out.append((cx, cy))
    return tuple(out)


def _cube_round(q: float, r: float, s: float) -> tuple[int, int]:
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return rq, rr


@lru_cache(maxsize=16384)
def hex_line(a: Cell, b: Cell) -> tuple[Cell, ...]:
    """Hexes on the line between two hex centres (cube lerp with the usual epsilon nudge), ends included."""
    n = hex_distance(a, b)
    q1, r1 = to_axial(a)
    q2, r2 = to_axial(b)
    s1, s2 = -q1 - r1, -q2 - r2
    out: list[Cell] = []
    for i in range(n + 1):
        t = i / n if n else 0.0
        q = q1 + (q2 - q1) * t + 1e-6
        r = r1 + (r2 - r1) * t + 2e-6
        s = s1 + (s2 - s1) * t - 3e-6
        rq, rr = _cube_round(q, r, s)
        cell = (rq + (rr - (rr & 1)) // 2, rr)
        if not out or out[-1] != cell:
            out.append(cell)
    return tuple(out)
