"""Space: occupancy, one-step and long-move destinations, long-move paths and lines (INV-1.4, 1.5, 4.4-4.6, 6.6).

Reachability goes through `Battlefield.reachable`, cached by (start, budget, blocked set), so masks never
search an unchanged situation twice; destination lists are cached by the occupancy as well.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

from trpg_arena.rules.investigator.compiled import Setup
from trpg_arena.rules.investigator.state import Fighter, InvState

if TYPE_CHECKING:
    from trpg_arena.rules.core.battlefield import Battlefield

Cell = tuple[int, int]


def cheb(a: Cell, b: Cell) -> int:
    """Chebyshev distance in squares (INV-1.4)."""
    dx = a[0] - b[0]
    dy = a[1] - b[1]
    return max(dx if dx >= 0 else -dx, dy if dy >= 0 else -dy)


def occupancy(st: InvState) -> dict[Cell, Fighter]:
    """Square -> the combatant standing there (dead and fled combatants occupy nothing)."""
    return {f.pos: f for f in st.fighters if f.pos is not None and not f.dead and not f.fled}


def hostile_blocks(setup: Setup, st: InvState, mover: Fighter) -> frozenset[Cell]:
    """Squares blocked for `mover`: those holding a hostile able to act (section 5)."""
    side = setup.side_of[mover.id]
    return frozenset(f.pos for f in st.fighters
                     if f.pos is not None and f.able and setup.side_of[f.id] != side)


def step_dests(bf: Battlefield, pos: Cell, occ: dict[Cell, Fighter]) -> list[Cell]:
    """Legal one-step squares from `pos` (INV-4.4): graph neighbours (passable, no wall-cut diagonal), free."""
    return [c for c in bf.graph.adj[pos] if c not in occ]


def move_dests(setup: Setup, bf: Battlefield, st: InvState, f: Fighter, occ: dict[Cell, Fighter]) -> list[Cell]:
    """Legal long-move destinations (INV-4.5): distance >= 2, free, reachable within MOV avoiding blocked squares."""
    assert f.pos is not None
    blocked = hostile_blocks(setup, st, f)
    mov = setup.prof(f.id).mov
    occ_key = frozenset(occ)
    key = (f.pos, mov, blocked, occ_key)
    cache = setup.lines_cache_moves
    hit = cache.get(key)
    if hit is not None:
        return hit
    reach = reachable(setup, bf, f.pos, mov, blocked)
    pos = f.pos
    out = sorted(c for c in reach if c not in occ_key and cheb(c, pos) >= 2)
    if len(cache) > 20000:
        cache.clear()
    cache[key] = out
    return out


def reachable(setup: Setup, bf: Battlefield, start: Cell, budget: int, blocked: frozenset[Cell]) -> dict[Cell, int]:
    """Cheapest entering cost to every square within `budget` (costs 1 or 2), avoiding `blocked` squares.

    Same result as `Battlefield.reachable` on the movement graph, computed with a two-bucket Dijkstra over a
    precomputed adjacency and cached by (start, budget, blocked) like the kernel's cache.
    """
    key = (start, budget, blocked)
    cache = setup.reach_cache
    hit = cache.get(key)
    if hit is not None:
        return hit
    adj = setup.adjacency(bf)
    dist = {start: 0}
    buckets: list[list[Cell]] = [[] for _ in range(budget + 1)]
    buckets[0].append(start)
    for c in range(budget + 1):
        for u in buckets[c]:
            if dist[u] != c:
                continue
            for v, w in adj[u]:
                nc = c + w
                if nc <= budget and v not in blocked and nc < dist.get(v, 1 << 30):
                    dist[v] = nc
                    buckets[nc].append(v)
    if len(cache) > 20000:
        cache.clear()
    cache[key] = dist
    return dist


def best_path(setup: Setup, bf: Battlefield, start: Cell, goal: Cell, mov: int, blocked: frozenset[Cell],
              reactors: list[tuple[Cell, bool, bool]]) -> list[Cell] | None:
    """The long-move path of INV-4.6: fewest trigger events, then lowest cost, then smallest square sequence.

    `reactors` holds (square, counts_leave, counts_enter) for each eligible reactor fixed at the start of the
    move. A* on the key (triggers, cost, squares) with consistent lower bounds (one trigger per reactor whose
    nine-grid still has to be entered or left in a counted direction; Chebyshev distance for cost) pops the
    goal first with the exact minimum; a state (square, cost) is expanded once, by its best prefix.
    """
    adj = setup.adjacency(bf)
    gx, gy = goal
    zones = []
    for (rx, ry), lv, en in reactors:
        zone = frozenset((rx + dx, ry + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy)
        zones.append((zone, lv, en, goal in zone))

    def h_trig(c: Cell) -> int:
        n = 0
        for zone, lv, en, g_in in zones:
            c_in = c in zone
            if c_in != g_in and (en if g_in else lv):
                n += 1
        return n

    h0 = h_trig(start)
    heap: list[tuple[int, int, tuple[Cell, ...], int, int]] = [
        (h0, max(abs(start[0] - gx), abs(start[1] - gy)), (start,), 0, 0)]
    seen: set[tuple[Cell, int]] = set()
    while heap:
        _, _, seq, trig, cost = heapq.heappop(heap)
        here = seq[-1]
        if here == goal:
            return list(seq[1:])
        if (here, cost) in seen:
            continue
        seen.add((here, cost))
        for nxt, w in adj[here]:
            if nxt in blocked:
                continue
            c2 = cost + w
            hc = max(abs(nxt[0] - gx), abs(nxt[1] - gy))
            if c2 + hc > mov or (nxt, c2) in seen:
                continue
            t2 = trig
            if zones:
                for zone, lv, en, _g in zones:
                    a_in = here in zone
                    if a_in != (nxt in zone) and (lv if a_in else en):
                        t2 += 1
                heapq.heappush(heap, (t2 + h_trig(nxt), c2 + hc, seq + (nxt,), t2, c2))
            else:
                heapq.heappush(heap, (0, c2 + hc, seq + (nxt,), 0, c2))
    return None


def line_status(setup: Setup, st: InvState, a: Cell, b: Cell, ends: tuple[str, str]) -> str:
    """``blocked`` (a wall is crossed), ``obstructed`` (an obstacle or a standing body) or ``clear`` (INV-6.6)."""
    crossed = setup.crossed(a, b)
    if not crossed:
        return "clear"
    terrain = setup.terrain
    obstructed = False
    for c in crossed:
        t = terrain.get(c)
        if t == "wall":
            return "blocked"
        if t == "obstacle":
            obstructed = True
    if obstructed:
        return "obstructed"
    cs = set(crossed)
    for f in st.fighters:
        if f.pos in cs and f.id not in ends and not (f.dead or f.fled or f.prone or f.unconscious or f.dying):
            return "obstructed"
    return "clear"


def line_blocked(setup: Setup, a: Cell, b: Cell) -> bool:
    """Whether a wall blocks the line between `a` and `b`."""
    return setup.wall_between(a, b)
