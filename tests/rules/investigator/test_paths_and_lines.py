"""Movement and lines agree with the plain definitions they replace (section 5, INV-4.5, INV-4.6)."""

from __future__ import annotations

import heapq
import random
from functools import cache

import pytest

from trpg_arena.rules import Combat
from trpg_arena.rules.core.battlefield import Battlefield, crossed_squares
from trpg_arena.rules.core.grid import Grid
from trpg_arena.rules.investigator.compiled import Setup, compile_setup
from trpg_arena.rules.investigator.paths import best_path

Cell = tuple[int, int]
ENCOUNTERS = ["duel", "skirmish", "brawl"]


def _setup(name: str) -> tuple[Setup, Grid, Combat]:
    c = Combat(f"investigator/{name}", seed=0)
    setup = compile_setup(c.encounter)  # type: ignore[arg-type]
    return setup, c.battlefield.grid, c


@cache
def _adjacency(bf: Battlefield) -> dict[Cell, list[tuple[Cell, int]]]:
    """The battlefield graph's movement edges: square -> (neighbour, entering cost), sorted by square."""
    g = bf.graph
    return {n: sorted((m, int(g.nodes[m].get("cost", 1))) for m in g.adj[n]) for n in g.nodes}


def _plain_reach(setup: Setup, start: Cell, budget: int, blocked: set[Cell]) -> set[Cell]:
    """Dijkstra on the movement graph: entering a square costs its cost (1, or 2 if difficult)."""
    adj = _adjacency(setup.bf)
    dist = {start: 0}
    heap = [(0, start)]
    while heap:
        d, c = heapq.heappop(heap)
        if d > dist[c]:
            continue
        for m, cost in adj[c]:
            if m in blocked or d + cost > budget or d + cost >= dist.get(m, budget + 1):
                continue
            dist[m] = d + cost
            heapq.heappush(heap, (d + cost, m))
    return set(dist)


def _plain_best_path(setup: Setup, start: Cell, goal: Cell, mov: int, blocked: set[Cell],
                     reactors: list[tuple[Cell, bool, bool]]) -> list[Cell] | None:
    """INV-4.6 by an exhaustive label-setting search on (triggers, cost, squares), without bounds."""
    adj = _adjacency(setup.bf)
    relevant = [r for r in reactors if max(abs(r[0][0] - start[0]), abs(r[0][1] - start[1])) <= mov + 1]

    def near(r: Cell, c: Cell) -> bool:
        return max(abs(r[0] - c[0]), abs(r[1] - c[1])) == 1

    heap: list[tuple[int, int, tuple[Cell, ...]]] = [(0, 0, (start,))]
    done: set[tuple[Cell, int]] = set()
    while heap:
        trig, cost, seq = heapq.heappop(heap)
        here = seq[-1]
        if here == goal:
            return list(seq[1:])
        if (here, cost) in done:
            continue
        done.add((here, cost))
        for m, w in adj[here]:
            if m in blocked or cost + w > mov:
                continue
            t = trig
            for r, leave, enter in relevant:
                if leave and near(r, here) and not near(r, m):
                    t += 1
                if enter and near(r, m) and not near(r, here):
                    t += 1
            heapq.heappush(heap, (t, cost + w, seq + (m,)))
    return None


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_reach_matches_dijkstra(name: str) -> None:
    """The kernel grid's reach (shifts, neighbour masks where a wall cuts a diagonal) equals Dijkstra."""
    setup, g, _ = _setup(name)
    cells = [c for c in g.cells if g.bit[c] & g.enterable]
    rnd = random.Random(7)
    for _ in range(1500):
        start = rnd.choice(cells)
        budget = rnd.randint(0, 10)
        blocked = {rnd.choice(cells) for _ in range(rnd.randint(0, 6))} - {start}
        bits = 0
        for c in blocked:
            bits |= g.bit[c]
        got = g.reach(start, budget, bits).within[budget]
        want = _plain_reach(setup, start, budget, blocked)
        assert {c for c, b in g.bit.items() if got & b} == want, (start, budget, blocked)


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_best_path_matches_exhaustive_search(name: str) -> None:
    """`best_path` (A* with dominance and direct children) equals the unbounded search on (triggers, cost, seq)."""
    setup, g, c = _setup(name)
    cells = [x for x in g.cells if g.bit[x] & g.enterable]
    rnd = random.Random(11)
    for _ in range(400):
        start = rnd.choice(cells)
        mov = rnd.randint(2, 9)
        others = rnd.sample(cells, 6)
        blocked = {x for x in others[:rnd.randint(0, 4)] if x != start}
        reactors = [(x, rnd.random() < 0.7, rnd.random() < 0.7) for x in blocked]
        reach = _plain_reach(setup, start, mov, blocked)
        goals = sorted(x for x in reach if max(abs(x[0] - start[0]), abs(x[1] - start[1])) >= 2)
        if not goals:
            continue
        goal = rnd.choice(goals)
        got = best_path(setup, start, goal, mov, list(blocked), reactors)
        assert got == _plain_best_path(setup, start, goal, mov, blocked, reactors), (start, goal, mov, reactors)


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_wall_between_matches_clipping(name: str) -> None:
    """`wall_between` (the grid's crossing against the wall mask) equals the crossed-squares test."""
    setup, _, _ = _setup(name)
    cells = setup.bf.grid.cells  # row-major
    for a in cells[::3]:
        for b in cells:
            want = any(setup.terrain.get(x) == "wall" for x in crossed_squares(a, b))
            assert setup.wall_between(a, b) == want, (a, b)


def test_reaction_and_defense_sets_are_shared() -> None:
    """Memoised reaction/defense legal lists: an unchanged situation hands back the very same list."""
    from trpg_arena.agents import make_agent

    seen: dict[tuple[str, str, tuple[object, ...]], list[object]] = {}
    for seed in range(6):
        c = Combat("investigator/skirmish", seed=seed)
        agents = [make_agent("random", "investigator", seed=seed), make_agent("random", "investigator", seed=seed + 1)]
        i = 0
        while not c.over and i < 400:
            d = c.decision
            assert d is not None
            if d.step in ("reaction", "defense"):
                legal = c.legal_view()
                key = (d.actor, d.step, tuple(legal))
                if key in seen and d.step == "defense":
                    assert seen[key] is legal
                seen.setdefault(key, legal)
            c.act(agents[i % 2].act(c))
            i += 1
    assert seen
