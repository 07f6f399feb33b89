"""Battlefield builders and sight, and the networkx queries the kernel grid is tested against (`tests.nx_oracle`)."""

from __future__ import annotations

from tests.nx_oracle import path, reachable
from trpg_arena.rules.core.battlefield import (
    bresenham,
    chebyshev,
    hex_distance,
    hex_grid,
    hex_line,
    square_grid,
    zone_line,
)


def test_zone_line_is_a_path_with_hop_distance() -> None:
    bf = zone_line(["A_rear", "A_front", "B_front", "B_rear"])
    assert bf.distance("A_rear", "B_rear") == 3
    assert sorted(bf.neighbours("A_front")) == ["A_rear", "B_front"]
    assert bf.line_of_sight("A_rear", "B_rear")


def test_square_grid_costs_walls_and_corner_cutting() -> None:
    cells = {(1, 0): {"cost": 2, "terrain": "difficult"}, (1, 1): {"impassable": True, "blocks_los": True}}
    bf = square_grid(4, 4, cells, corner_blocks=lambda a: bool(a.get("impassable")))
    reach = reachable(bf, (0, 0), 2)
    assert reach[(1, 0)] == 2  # entering difficult costs 2
    assert (1, 1) not in reach  # wall
    assert not bf.graph.has_edge((0, 1), (1, 2))  # corner of the wall cannot be cut
    assert bf.distance((0, 0), (3, 2)) == chebyshev((0, 0), (3, 2)) == 3
    assert not bf.line_of_sight((0, 1), (2, 1))
    assert bf.line_of_sight((0, 0), (3, 0))


def test_reachable_avoids_the_blocked_set() -> None:
    bf = square_grid(6, 6)
    a = reachable(bf, (0, 0), 3, frozenset({(1, 1)}))
    c = reachable(bf, (0, 0), 3, frozenset())
    assert (1, 1) in c and (1, 1) not in a and c[(2, 2)] == 2 and a[(2, 2)] == 3  # around the blocked square


def test_path_avoids_blocked_nodes() -> None:
    bf = square_grid(3, 3)
    p = path(bf, (0, 1), (2, 1), frozenset({(1, 1)}))
    assert p is not None and (1, 1) not in p and p[0] == (0, 1) and p[-1] == (2, 1)
    assert path(bf, (0, 0), (2, 2), frozenset({(1, 0), (1, 1), (1, 2)})) is None


def test_bresenham_classic() -> None:
    assert bresenham((0, 0), (3, 1)) == ((0, 0), (1, 0), (2, 1), (3, 1))
    assert bresenham((2, 2), (2, 2)) == ((2, 2),)


def test_hex_grid_odd_r_neighbours_and_distance() -> None:
    bf = hex_grid(5, 5)
    assert sorted(bf.neighbours((2, 2))) == sorted([(3, 2), (1, 2), (1, 1), (2, 1), (1, 3), (2, 3)])
    assert sorted(bf.neighbours((2, 1))) == sorted([(3, 1), (1, 1), (2, 0), (3, 0), (2, 2), (3, 2)])
    assert hex_distance((0, 0), (4, 0)) == 4
    assert hex_distance((0, 0), (0, 4)) == 4
    line = hex_line((0, 0), (3, 0))
    assert line[0] == (0, 0) and line[-1] == (3, 0) and len(line) == 4
