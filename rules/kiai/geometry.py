"""Hex geometry used by the rules: reach, line of sight, occupancy and movement destinations (section 5, KIA-8)."""

from __future__ import annotations

from trpg_arena.rules.core.battlefield import hex_distance
from trpg_arena.rules.kiai.context import Ctx
from trpg_arena.rules.kiai.state import Hex, KiaiState


def clear_line(ctx: Ctx, a: Hex, b: Hex) -> bool:
    """Section 5: line of sight (always clear at distance <= 1; blocked hexes block)."""
    assert ctx.bf is not None
    return ctx.bf.line_of_sight(a, b)


def in_reach(ctx: Ctx, a: Hex | None, b: Hex | None, reach: int) -> bool:
    """KIA-2.2: hex distance <= reach; reach >= 2 also needs a clear line."""
    if a is None or b is None:
        return False
    d = hex_distance(a, b)
    if d > reach:
        return False
    return d <= 1 or clear_line(ctx, a, b)


def enemy_hexes(ctx: Ctx, st: KiaiState, cid: str) -> frozenset[Hex]:
    """Hexes a path may not enter (KIA-8.3): those of enemies that are not out."""
    side = ctx.side[cid]
    return frozenset(f.hex for i, f in st.fighters.items()
                     if f.hex is not None and not f.out and ctx.side[i] != side)


def occupied(st: KiaiState) -> set[Hex]:
    """Hexes holding a combatant (incapacitated and dead ones keep theirs; fled ones left the map)."""
    return {f.hex for f in st.fighters.values() if f.hex is not None}


def _rank(ctx: Ctx) -> dict[Hex, int]:
    """Row-major index of every hex (the stable order of destinations)."""
    r = ctx.cache.get("kiai_rank")
    if r is None:
        r = ctx.cache["kiai_rank"] = {(c, w): w * ctx.width + c for w in range(ctx.height) for c in range(ctx.width)}
    return r  # type: ignore[no-any-return]


def within(ctx: Ctx, center: Hex, radius: int) -> frozenset[Hex]:
    """Every map hex at hex distance <= radius of `center` (cached)."""
    key = ("within", center, radius)
    hit = ctx.cache.get(key)
    if hit is None:
        hit = ctx.cache[key] = frozenset(h for h in _rank(ctx) if hex_distance(center, h) <= radius)
    return hit  # type: ignore[no-any-return]


def _index(ctx: Ctx) -> tuple[list[Hex], dict[Hex, int], list[tuple[tuple[int, int], ...]]]:
    """Hexes as integers (row-major) with neighbour lists ``(index, entering cost)`` (section 5), built once."""
    hit = ctx.cache.get("kiai_index")
    if hit is None:
        assert ctx.bf is not None
        g = ctx.bf.graph
        hexes = [(c, r) for r in range(ctx.height) for c in range(ctx.width)]
        idx = {h: i for i, h in enumerate(hexes)}
        adj = [tuple((idx[m], int(g.nodes[m].get("cost", 1))) for m in g.adj[h]) for h in hexes]
        hit = ctx.cache["kiai_index"] = (hexes, idx, adj)
    return hit  # type: ignore[no-any-return]


def search(ctx: Ctx, start: Hex, budget: int, blocked: frozenset[Hex]) -> tuple[dict[Hex, int], dict[Hex, Hex]]:
    """Cheapest entering-cost paths from `start` within `budget`, avoiding `blocked` (KIA-8.3).

    Returns (cost by hex, predecessor by hex), cached per (start, budget, blocked set), so a mask never
    searches an unchanged situation twice.
    """
    key = (start, budget, blocked)
    cache: dict[object, tuple[dict[Hex, int], dict[Hex, Hex]]] = ctx.cache.setdefault("kiai_search", {})
    hit = cache.get(key)
    if hit is not None:
        return hit
    hexes, idx, adj = _index(ctx)
    n = len(hexes)
    far = budget + 1
    dist = [far] * n
    prev = [-1] * n
    for h in blocked:
        dist[idx[h]] = -1  # never entered
    s0 = idx[start]
    dist[s0] = 0
    buckets: list[list[int]] = [[] for _ in range(budget + 1)]
    buckets[0].append(s0)
    for d in range(budget + 1):  # Dial's algorithm: entering costs are small integers
        for u in buckets[d]:
            if dist[u] != d:
                continue
            for v, c in adj[u]:
                nd = d + c
                if nd < dist[v]:
                    dist[v] = nd
                    prev[v] = u
                    buckets[nd].append(v)
    out = {hexes[i]: d for i, d in enumerate(dist) if 0 <= d <= budget}
    pred = {hexes[i]: hexes[p] for i, p in enumerate(prev) if p >= 0 and 0 <= dist[i] <= budget}
    if len(cache) > 16384:
        cache.clear()
    cache[key] = hit = (out, pred)
    return hit


def destinations(ctx: Ctx, start: Hex, budget: int, blocked: frozenset[Hex]) -> list[tuple[Hex, int]]:
    """Every hex other than `start` within path cost `budget`, in row-major order, with its cost."""
    key = ("d", start, budget, blocked)
    cache: dict[object, list[tuple[Hex, int]]] = ctx.cache.setdefault("kiai_dest", {})
    hit = cache.get(key)
    if hit is None:
        dist, _ = search(ctx, start, budget, blocked)
        hit = [(h, c) for h, c in dist.items() if h != start]  # already row-major
        if len(cache) > 16384:
            cache.clear()
        cache[key] = hit
    return hit


def path_of(ctx: Ctx, start: Hex, goal: Hex, blocked: frozenset[Hex], budget: int) -> list[Hex]:
    """A cheapest path from `start` to `goal` (from the cached search)."""
    _, prev = search(ctx, start, budget, blocked)
    path = [goal]
    while path[-1] != start:
        path.append(prev[path[-1]])
    return path[::-1]


def path_cost(ctx: Ctx, path: list[Hex]) -> int:
    """Sum of the entered hexes' costs."""
    assert ctx.bf is not None
    nodes = ctx.bf.graph.nodes
    return int(sum(nodes[h].get("cost", 1) for h in path[1:]))
