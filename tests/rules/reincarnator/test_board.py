"""The board's section 5 rules on the kernel grid agree with the plain definitions they stand for.

Sight is checked against the cell-by-cell Bresenham test; reach and paths against networkx Dijkstra searches
that spell the rules out: costs by mode, closed doors neither entered nor cut at a corner, walls and objects
cut at no corner, and for the alternating option a search over (cell, parity of diagonal steps).
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import pytest

from tests.rules.reincarnator.helpers import H, encounter
from trpg_arena.rules import Combat
from trpg_arena.rules.core.battlefield import bresenham
from trpg_arena.rules.reincarnator.board import DIRS, MODES, Board, mode_costs

Cell = tuple[int, int]

WALLED = [{"at": [x, 3], "terrain": "wall"} for x in range(2, 9)] + [
    {"at": [4, 6], "object": {"name": "pillar", "cover": 4, "blocks_los": True}},
    {"at": [9, 3], "door": "closed"}, {"at": [6, 8], "object": {"name": "crate", "cover": 3}},
    {"area": [[9, 5], [11, 7]], "terrain": "difficult"}, {"at": [0, 8], "terrain": "climbable"},
    {"at": [1, 8], "terrain": "gap"}, {"at": [10, 1], "door": "open"}]


def _board(name: str, **options: Any) -> Board:
    if name == "walled":
        enc: Any = encounter(H("A", "P", (0, 0)), H("D", "N", (10, 8)), width=13, height=9, cells=WALLED,
                             options=options or None)
    else:
        assert not options
        enc = f"reincarnator/{name}"
    return Combat(enc, seed=0).tables.board


def _door_sets(field: Board) -> list[frozenset[Cell]]:
    return [frozenset(), frozenset(field.doors0), frozenset([(1, 1), (field.width - 2, field.height - 2)])]


@pytest.mark.parametrize("name", ["duel", "skirmish", "brawl", "walled"])
def test_line_of_sight_is_the_plain_bresenham_test(name: str) -> None:
    """`los` equals the cell-by-cell test (walls, blocking objects, closed doors), with doors open and closed."""
    field = _board(name)
    blocks = {c for c in field.grid.cells if field.grid.sight_blockers & field.bit[c]}
    cells = field.grid.cells
    every = max(1, len(cells) // 100)  # about 100 lines' starts per door set, each to every cell
    for doors in _door_sets(field):
        mask = field.grid.mask(doors)
        for a in cells[::every]:
            for b in cells:
                plain = not any(c in blocks or c in doors for c in bresenham(a, b)[1:-1])
                assert field.los(a, b, mask) == plain, (a, b, doors)
        for tc in cells[::7 * every]:
            for r in (1, 3):
                want = {c for c in cells if max(abs(c[0] - tc[0]), abs(c[1] - tc[1])) <= r
                        and not any(x in blocks or x in doors for x in bresenham(c, tc)[1:-1])}
                assert set(field.grid.cells_of(field.los_to(tc, r, mask))) == want


@pytest.mark.parametrize("name", ["skirmish", "walled"])
def test_sight_from_an_origin_is_los_cell_by_cell(name: str) -> None:
    """`sight` (lines kept per origin and doors, drawn as cells are asked) answers as `los` on each cell asked."""
    field = _board(name)
    cells = field.grid.cells
    every = max(1, len(cells) // 40)
    for doors in _door_sets(field):
        mask = field.grid.mask(doors)
        for a in cells[::every]:
            for part in (cells[::3], cells[1::2], cells):  # overlapping questions: later ones reuse earlier lines
                asked = field.grid.mask(part)
                want = field.grid.mask(c for c in part if field.los(a, c, mask))
                assert field.sight(a, asked, mask) == want, (a, doors)


def _plain_graph(field: Board, mode: str, doors: frozenset[Cell], blocked: frozenset[Cell],
                 alternating: bool) -> nx.DiGraph:
    """Section 5 as a networkx graph of (cell, parity) states; parity stays 0 without the alternating option."""
    solid = field.solid | doors
    g: nx.DiGraph = nx.DiGraph()
    for c in field.grid.cells:
        for par in (0, 1):
            for dx, dy in DIRS:
                n = (c[0] + dx, c[1] + dy)
                if n not in field.terrain or n in solid or n in blocked:
                    continue
                step = mode_costs(field.terrain[n], mode)
                if step is None:
                    continue
                diagonal = bool(dx and dy)
                if diagonal and ((c[0] + dx, c[1]) in solid or (c[0], c[1] + dy) in solid):
                    continue
                npar = par
                if alternating and diagonal:
                    step += par
                    npar = 1 - par
                g.add_edge((c, par), (n, npar), weight=step)
    return g


@pytest.mark.parametrize("name", ["skirmish", "brawl", "walled", "walled-alternating"])
def test_reach_and_paths_follow_section_5(name: str) -> None:
    """Cheapest costs by mode, doors and blockers equal a plain Dijkstra; each path costs what it should."""
    alternating = name.endswith("alternating")
    field = _board(name.removesuffix("-alternating"), **({"diagonal_rule": "alternating"} if alternating else {}))
    grid = field.grid
    free = [c for c in grid.cells if c not in field.solid]
    every = max(9, len(free) // 12)  # about a dozen starts per search
    for doors in _door_sets(field)[:2]:
        dmask = grid.mask(doors)
        for mode in MODES:
            moves = field.moves[mode]
            for blocked in (frozenset(), frozenset(free[5::17])):
                g = _plain_graph(field, mode, doors, blocked, alternating)
                for start in free[::every]:
                    if start in blocked or start in doors:
                        continue
                    dist = nx.single_source_dijkstra_path_length(g, (start, 0)) if (start, 0) in g else {}
                    want: dict[Cell, int] = {start: 0}
                    for (c, _par), d in dist.items():
                        want[c] = min(d, want.get(c, d))
                    found = grid.reach(start, None, grid.mask(blocked) | dmask, moves, dmask)
                    got = {c: d for d, layer in enumerate(found.layers) for c in grid.cells_of(layer)}
                    assert got == want, (start, mode, blocked, doors)
                    for goal in list(want)[::11]:
                        path, cost = grid.path(start, goal, None, grid.mask(blocked) | dmask, moves, dmask) or ([], -1)
                        assert path[0] == start and path[-1] == goal and cost == want[goal]
                        states = [(start, 0)]
                        for c in path[1:]:  # the path is a walk of the plain graph
                            nxt = [s for s in g.successors(states[-1]) if s[0] == c]
                            assert nxt, (path, c)
                            states.append(nxt[0])
                        if not alternating:
                            assert sum(g.edges[a, b]["weight"] for a, b in zip(states, states[1:])) == cost


def test_paths_read_back_in_section_5_order() -> None:
    """Among equally cheap paths, each step back goes to the first predecessor in E, S, W, N, SE, SW, NW, NE."""
    field = _board("walled")
    grid = field.grid
    path, cost = grid.path((0, 0), (4, 2), None, 0, field.moves["walk"]) or ([], -1)
    assert cost == 4
    # read back from (4, 2): the predecessor reached by a step E comes first, so the walk runs along row 2
    assert path == [(0, 0), (1, 1), (2, 2), (3, 2), (4, 2)]


@pytest.mark.parametrize("name", ["skirmish", "brawl"])
def test_observe_combatants_rows_equal_single_rows(name: str) -> None:
    """The batched `observe_combatants` gives `observe_combatant`'s rows at every decision of a random game."""
    from trpg_arena.agents import make_agent

    c = Combat(f"reincarnator/{name}", seed=3)
    agent = make_agent("random", "reincarnator", seed=3)
    ids = [v.id for v in c.combatants]
    for _ in range(400):
        if c.over:
            break
        assert c.system.observe_combatants(c, ids) == [c.system.observe_combatant(c, i) for i in ids]
        c.act(agent.act(c))


def test_dest_actions_row_by_row() -> None:
    """`dest_actions` gives ``Action(verb, dest=cell)`` for the mask's cells in row order, sparse or dense."""
    import random

    from trpg_arena.rules.core.values import Action

    field = _board("skirmish")
    rng = random.Random(11)
    for density in (0.02, 0.3, 0.8, 1.0):
        for _ in range(100):
            m = field.grid.mask(c for c in field.grid.cells if rng.random() < density)
            for verb in ("move", "acro_move"):
                got = field.dest_actions(verb, m)
                assert list(got) == [Action(verb, dest=c) for c in field.grid.cells_of(m)]
                assert field.dest_actions(verb, m) is got
