"""Section 5: the kernel's hex helpers against the spec (odd-r neighbours, axial distance, line of sight)."""

from __future__ import annotations

import pytest

from tests.nx_oracle import reachable
from trpg_arena.rules.core.battlefield import hex_distance, hex_grid, hex_line, hex_neighbours


def test_neighbour_order_matches_spec() -> None:
    """Even rows: [c±1,r], [c-1,r-1], [c,r-1], [c-1,r+1], [c,r+1]; odd rows shifted right."""
    assert hex_neighbours(4, 2) == [(5, 2), (3, 2), (3, 1), (4, 1), (3, 3), (4, 3)]
    assert hex_neighbours(4, 3) == [(5, 3), (3, 3), (4, 2), (5, 2), (4, 4), (5, 4)]


@pytest.mark.parametrize("a, b, d", [((0, 0), (5, 0), 5), ((0, 0), (1, 1), 2), ((0, 0), (2, 1), 3),
                                     ((2, 0), (3, 1), 2), ((3, 1), (3, 0), 1), ((0, 0), (0, 2), 2)])
def test_hex_distance(a, b, d) -> None:
    """Axial q = col - (row - row mod 2) / 2; distance = (|dq| + |dr| + |dq + dr|) / 2."""
    assert hex_distance(a, b) == d == hex_distance(b, a)


def _spec_line(a, b):
    def axial(h):
        return h[0] - (h[1] - (h[1] % 2)) // 2, h[1]
    n = hex_distance(a, b)
    (q1, r1), (q2, r2) = axial(a), axial(b)
    out = []
    for i in range(n + 1):
        t = i / n if n else 0.0
        q = q1 + (q2 - q1) * t + 1e-6
        r = r1 + (r2 - r1) * t + 2e-6
        s = (-q1 - r1) + ((-q2 - r2) - (-q1 - r1)) * t - 3e-6
        rq, rr, rs = round(q), round(r), round(s)
        dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
        if dq > dr and dq > ds:
            rq = -rr - rs
        elif dr > ds:
            rr = -rq - rs
        h = (rq + (rr - (rr % 2)) // 2, rr)
        if not out or out[-1] != h:
            out.append(h)
    return out


def test_line_of_sight_nudge_matches_spec() -> None:
    """The cube lerp with the (+1e-6, +2e-6, -3e-6) nudge, over every pair of a 7 x 6 map."""
    cells = [(c, r) for r in range(6) for c in range(7)]
    for a in cells:
        for b in cells:
            assert list(hex_line(a, b)) == list(_spec_line(a, b)), (a, b)


def test_blocked_hex_blocks_sight_not_adjacent() -> None:
    """A blocked hex in between blocks the line; at distance <= 1 sight is always clear."""
    bf = hex_grid(10, 6, {(4, 0): {"blocked": True, "blocks_los": True}}, impassable=lambda a: bool(a.get("blocked")))
    assert not bf.line_of_sight((2, 0), (6, 0)) and bf.line_of_sight((2, 1), (6, 1))
    assert bf.line_of_sight((3, 0), (4, 0)) and not list(bf.neighbours((4, 0)))


@pytest.mark.parametrize("name", ["kiai/skirmish", "kiai/brawl"])
def test_movement_search_matches_networkx(name) -> None:
    """KIA-8.1 / KIA-8.3: the kernel grid's layered search agrees with networkx's Dijkstra (costs and paths)."""
    import random

    from trpg_arena.rules import Combat

    c = Combat(name, seed=1)
    grid = c.tables.grid
    g = c.battlefield.graph
    rnd = random.Random(2)
    starts = [h for h in grid.cells if not grid.bit[h] & grid.sight_blockers]
    for _ in range(300):
        s = rnd.choice(starts)
        blocked = frozenset(rnd.sample([h for h in starts if h != s], 5))
        agility = rnd.choice([0, 1, 5, 10, 12, 13, 17])
        bits = grid.mask(blocked)
        within = grid.reach(s, agility, bits).within
        ref = reachable(c.battlefield, s, agility, blocked)
        assert set(grid.cells_of(within[agility])) == set(ref)
        assert set(grid.cells_of(within[agility // 2])) == {h for h, d in ref.items() if d <= agility // 2}
        for h in ref:
            found = grid.path(s, h, agility, bits)
            assert found is not None
            path, cost = found
            assert path[0] == s and path[-1] == h
            assert all(b in g.adj[a] for a, b in zip(path, path[1:]))
            assert sum(g.nodes[x].get("cost", 1) for x in path[1:]) == ref[h] == cost
            assert not blocked & set(path)
