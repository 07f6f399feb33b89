"""The compiled grid answers as the networkx battlefield does, on random square and hex maps.

The battlefield's queries (`reachable`, `path`, `line_of_sight`, `distance`, `neighbours`) are the oracle;
maps carry random costs, impassable and sight-blocking cells, wall-cut diagonals and custom edges. The
system hooks are checked the same way: a `Moves` cost table and per-call corner blockers through the
battlefield's cost function, the alternating diagonal rule through a networkx search over (cell, parity)
states, and the read-back order by walking each path back. A segment's crossed squares (the other line
of sight) are checked against their definition in exact fractions.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import nx_oracle
from trpg_arena.rules.core.battlefield import (
    SQUARE_DIRS,
    Battlefield,
    crossed_squares,
    hex_grid,
    square_grid,
    zone_line,
)
from trpg_arena.rules.core.grid import Grid, Moves, Picker

Cell = tuple[int, int]


@st.composite
def maps(draw: st.DrawFn) -> Battlefield:
    """A random square or hex battlefield, sometimes with edges added or taken away."""
    kind = draw(st.sampled_from(["square", "hex"]))
    w, h = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    cells = {}
    for y in range(h):
        for x in range(w):
            cells[(x, y)] = {"cost": draw(st.sampled_from([1, 1, 1, 2, 3])),
                             "impassable": draw(st.integers(0, 6)) == 0,
                             "blocks_los": draw(st.integers(0, 4)) == 0,
                             "wall": draw(st.integers(0, 5)) == 0}
    if kind == "square":
        corners = draw(st.booleans())
        bf = square_grid(w, h, cells, corner_blocks=(lambda a: bool(a.get("wall"))) if corners else None)
    else:
        bf = hex_grid(w, h, cells)
    nodes = list(bf.graph.nodes)
    for _ in range(draw(st.integers(0, 3))):  # custom topology: a door or a tunnel between any two cells
        a, b = draw(st.sampled_from(nodes)), draw(st.sampled_from(nodes))
        if a != b:
            bf.graph.add_edge(a, b)
    edges = list(bf.graph.edges)
    if edges:
        for _ in range(draw(st.integers(0, 2))):  # a wall across an edge
            e = draw(st.sampled_from(edges))
            if bf.graph.has_edge(*e):
                bf.graph.remove_edge(*e)
    return bf


@settings(max_examples=150, deadline=None)
@given(bf=maps(), data=st.data())
def test_grid_matches_the_networkx_battlefield(bf: Battlefield, data: st.DataObject) -> None:
    """Neighbours, reach with costs and blockers, paths, sight, distances and discs equal the graph's."""
    grid = Grid(bf)
    cells = grid.cells
    for i, c in enumerate(cells):
        assert set(grid.neighbours[i]) == {grid.index[m] for m in bf.neighbours(c)}
    for _ in range(4):
        start = data.draw(st.sampled_from(cells))
        budget = data.draw(st.integers(0, 9))
        blocked = frozenset(data.draw(st.lists(st.sampled_from(cells), max_size=4)))
        mask = grid.mask(blocked)
        ref = nx_oracle.reachable(bf, start, budget, blocked)
        found = grid.reach(start, budget, mask)
        assert len(found.layers) == len(found.within) == budget + 1
        got = {c: d for d, layer in enumerate(found.layers) for c in grid.cells_of(layer)}
        assert got == ref
        for d in range(budget + 1):
            assert set(grid.cells_of(found.within[d])) == {c for c, k in ref.items() if k <= d}
        goal = data.draw(st.sampled_from(cells))
        far = sum(grid.cost) + 1
        nx_path = nx_oracle.path(bf, start, goal, blocked)
        mine = grid.path(start, goal, far, mask)
        assert (mine is None) == (nx_path is None)
        if mine is not None and nx_path is not None:
            path, cost = mine
            assert path[0] == start and path[-1] == goal
            assert all(bf.graph.has_edge(a, b) for a, b in zip(path, path[1:]))
            assert not blocked & set(path[1:])
            assert cost == _path_cost(grid, path) == _path_cost(grid, nx_path)
            assert grid.path(start, goal, far, mask) == mine  # deterministic
    for _ in range(6):
        a, b = data.draw(st.sampled_from(cells)), data.draw(st.sampled_from(cells))
        assert grid.clear(a, b) == bf.line_of_sight(a, b)
        walls = frozenset(data.draw(st.lists(st.sampled_from(cells), max_size=5)))
        assert grid.clear(a, b, grid.mask(walls)) == bf.line_of_sight(a, b, walls.__contains__)
        assert grid.distances[grid.index[a]][grid.index[b]] == grid.distance(a, b) == bf.distance(a, b)
        r = data.draw(st.integers(0, 4))
        assert set(grid.cells_of(grid.disc(a, r))) == {c for c in cells if bf.distance(a, c) <= r}
        assert set(grid.cells_of(grid.in_sight(a, r))) == {
            c for c in cells if bf.distance(a, c) <= r and bf.line_of_sight(a, c)}


def _path_cost(grid: Grid, path: list[Cell]) -> int:
    """The sum of the entering costs of a path's cells after the first: what a path costs, read plainly."""
    return sum(grid.cost[grid.index[c]] for c in path[1:])


def _diagonal(u: Cell, v: Cell) -> bool:
    return abs(u[0] - v[0]) == 1 and abs(u[1] - v[1]) == 1


def _cut(u: Cell, v: Cell, corners: frozenset[Cell]) -> bool:
    """Whether the step u -> v is a diagonal past a corner cell."""
    return _diagonal(u, v) and ((v[0], u[1]) in corners or (u[0], v[1]) in corners)


def _oracle(bf: Battlefield, start: Cell, budget: int, blocked: frozenset[Cell], costs: dict[Cell, int | None],
            corners: frozenset[Cell], alternating: bool) -> dict[Cell, int]:
    """Cheapest costs by networkx: the battlefield's own search, or one over (cell, parity) states."""
    def weight(u: Cell, v: Cell) -> int | None:
        k = costs[v]
        return None if k is None or _cut(u, v, corners) else k

    if not alternating:
        return nx_oracle.reachable(bf, start, budget, blocked, weight)
    g: nx.DiGraph = nx.DiGraph()
    g.add_node((start, 0))
    for u, v in bf.graph.edges:
        for a, b in ((u, v), (v, u)):
            k = weight(a, b)
            if k is None or b in blocked:
                continue
            for par in (0, 1):
                if _diagonal(a, b):
                    g.add_edge((a, par), (b, 1 - par), weight=k + par)
                else:
                    g.add_edge((a, par), (b, par), weight=k)
    out: dict[Cell, int] = {}
    for (c, _), d in nx.single_source_dijkstra_path_length(g, (start, 0), cutoff=budget).items():
        out[c] = min(d, out.get(c, d))
    return out


@settings(max_examples=150, deadline=None)
@given(w=st.integers(1, 7), h=st.integers(1, 7), data=st.data())
def test_system_hooks_match_networkx(w: int, h: int, data: st.DataObject) -> None:
    """Cost tables, corner blockers, the alternating rule and the read-back order, on random square maps."""
    cells = {(x, y): {"impassable": data.draw(st.integers(0, 6)) == 0, "wall": data.draw(st.integers(0, 5)) == 0}
             for y in range(h) for x in range(w)}
    bf = square_grid(w, h, cells, corner_blocks=lambda a: bool(a.get("wall")))
    grid = Grid(bf)
    every = grid.cells
    costs: dict[Cell, int | None] = {c: data.draw(st.sampled_from([1, 1, 2, 3, None])) for c in every}
    alternating = data.draw(st.booleans())
    order = data.draw(st.permutations(SQUARE_DIRS))
    moves = Moves(grid, costs, order=order, alternating=alternating)
    for _ in range(3):
        start = data.draw(st.sampled_from(every))
        budget = data.draw(st.integers(0, 9))
        blocked = frozenset(data.draw(st.lists(st.sampled_from(every), max_size=3))) - {start}
        corners = frozenset(data.draw(st.lists(st.sampled_from(every), max_size=3)))
        bmask, cmask = grid.mask(blocked), grid.mask(corners)
        want = _oracle(bf, start, budget, blocked, costs, corners, alternating)
        found = grid.reach(start, budget, bmask, moves, cmask)
        assert len(found.layers) == budget + 1
        assert {c: d for d, layer in enumerate(found.layers) for c in grid.cells_of(layer)} == want
        whole = grid.reach(start, None, bmask, moves, cmask)  # no budget: every reachable cell
        assert whole.layers[-1]  # the layers end at the dearest cell
        everything = _oracle(bf, start, 10**6, blocked, costs, corners, alternating)
        assert set(grid.cells_of(whole.within[-1])) == set(everything)
        goal = data.draw(st.sampled_from(every))
        got = grid.path(start, goal, None, bmask, moves, cmask)
        assert (got is None) == (goal not in everything)
        if got is None:
            continue
        path, cost = got
        assert path[0] == start and path[-1] == goal and cost == everything[goal]
        for a, b in zip(path, path[1:]):
            assert bf.graph.has_edge(a, b) and not _cut(a, b, corners) and b not in blocked and costs[b] is not None
        if alternating:
            continue
        assert sum(costs[c] or 0 for c in path[1:]) == cost
        rank = {step: i for i, step in enumerate(order)}
        for a, b in zip(path, path[1:]):  # each step back took the first predecessor, in `order`, one layer down
            before = everything[b] - (costs[b] or 0)
            for p in bf.neighbours(b):
                if everything.get(p) == before and not _cut(p, b, corners) and p not in blocked:
                    assert rank[(b[0] - a[0], b[1] - a[1])] <= rank[(b[0] - p[0], b[1] - p[1])], (path, p)


def test_hooks_refuse_what_they_cannot_mean() -> None:
    """Corner blockers and the alternating rule need squares; costs must be whole and positive."""
    hexes = Grid(hex_grid(3, 3))
    with pytest.raises(ValueError, match="square"):
        hexes.reach((0, 0), 2, 0, None, hexes.mask([(1, 1)]))
    with pytest.raises(ValueError, match="square"):
        Moves(hexes, alternating=True)
    squares: Any = Grid(square_grid(2, 2))
    with pytest.raises(ValueError, match="positive integers"):
        Moves(squares, {(0, 0): -1})


@given(w=st.integers(1, 16), h=st.integers(1, 4), data=st.data())
def test_picker_reads_a_mask_back_in_cell_order(w: int, h: int, data: st.DataObject) -> None:
    """A picker lists one item per set cell, ascending by cell index, for narrow and wide rows alike."""
    grid = Grid(square_grid(w, h))
    picker = Picker(grid, [f"item{i}" for i in range(w * h)])
    for _ in range(3):
        chosen = sorted(set(data.draw(st.lists(st.integers(0, w * h - 1), max_size=12))))
        out: list[str] = []
        picker.extend(out, grid.mask(grid.cells[i] for i in chosen))
        assert out == [f"item{i}" for i in chosen]
        assert grid.indices(grid.mask(grid.cells[i] for i in chosen)) == chosen


def test_zones_and_bad_costs_are_refused() -> None:
    """Only square and hex boards of positive integer costs compile; the error says why."""
    with pytest.raises(ValueError, match="square or hex"):
        Grid(zone_line(["a", "b"]))
    with pytest.raises(ValueError, match="positive integers"):
        Grid(square_grid(2, 2, {(0, 0): {"cost": 1.5}}))


def _segment_crosses(a: Cell, b: Cell, c: Cell) -> bool:
    """Whether the segment between the centres of `a` and `b` runs through the inside of square `c` (exact)."""
    lo, hi = Fraction(0), Fraction(1)
    for p, d, m in ((a[0], b[0] - a[0], c[0]), (a[1], b[1] - a[1], c[1])):
        if d == 0:
            if not m - Fraction(1, 2) < p < m + Fraction(1, 2):
                return False
            continue
        t1, t2 = (m - Fraction(1, 2) - p) / d, (m + Fraction(1, 2) - p) / d
        lo, hi = max(lo, min(t1, t2)), min(hi, max(t1, t2))
    return lo < hi


def test_crossed_squares_are_the_squares_the_segment_runs_through() -> None:
    """A segment's line by its definition: the squares (ends aside) the centre-to-centre segment passes inside."""
    rng = random.Random(5)
    pairs = [((x0, y0), (x1, y1)) for x0 in range(6) for y0 in range(6) for x1 in range(6) for y1 in range(6)]
    pairs += [((rng.randint(0, 30), rng.randint(0, 30)), (rng.randint(0, 30), rng.randint(0, 30)))
              for _ in range(300)]
    for a, b in pairs:
        box = [(x, y) for x in range(min(a[0], b[0]), max(a[0], b[0]) + 1)
               for y in range(min(a[1], b[1]), max(a[1], b[1]) + 1)]
        want = {c for c in box if c not in (a, b) and _segment_crosses(a, b, c)}
        assert set(crossed_squares(a, b)) == want, (a, b)


def test_grid_crossing_shifts_one_line_per_offset() -> None:
    """`Grid.crossing` keeps one line per offset and shifts it: the squares of the line drawn in place."""
    rng = random.Random(3)
    grid = square_grid(61, 61).grid
    pairs = [((x0, y0), (x1, y1)) for x0 in range(9) for y0 in range(9) for x1 in range(9) for y1 in range(9)]
    pairs += [((rng.randint(0, 60), rng.randint(0, 60)), (rng.randint(0, 60), rng.randint(0, 60)))
              for _ in range(20_000)]
    for a, b in pairs:
        assert grid.crossing(a, b) == grid.mask(crossed_squares(a, b)), (a, b)
    with pytest.raises(ValueError, match="square grid"):
        hex_grid(4, 4).grid.crossing((0, 0), (3, 2))
