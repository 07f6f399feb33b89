"""Hex geometry used by the rules: reach, line of sight, occupancy and movement (section 5, KIA-8).

Everything here depends only on the map, so one `MapGeo` (read from the kernel's battlefield graph) is
shared by every encounter with the same map and keeps its caches across combats: paths are searched
once per (start, budget, blocked set) and never again while that situation repeats.
"""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING

from trpg_arena.rules.core.battlefield import hex_line, to_axial
from trpg_arena.rules.core.values import Action
from trpg_arena.rules.kiai.state import Hex, KiaiState

if TYPE_CHECKING:
    from trpg_arena.rules.core.battlefield import Battlefield
    from trpg_arena.rules.kiai.context import Ctx

CACHE_LIMIT = 16384
Movement = tuple[dict[Hex, Action], dict[Hex, Action], list[int]]  # move, run, predecessor index


class MapGeo:
    """Static geometry of one map (odd-r hexes): indices, neighbours with entering costs, caches."""

    def __init__(self, bf: Battlefield, width: int, height: int) -> None:
        g = bf.graph
        self.width, self.height = width, height
        self.hexes: list[Hex] = [(c, r) for r in range(height) for c in range(width)]
        self.idx = {h: i for i, h in enumerate(self.hexes)}
        self.cost = [int(g.nodes[h].get("cost", 1)) for h in self.hexes]
        nbrs = [tuple(self.idx[m] for m in g.adj[h]) for h in self.hexes]
        self.nbrs1 = [tuple(v for v in n if self.cost[v] == 1) for n in nbrs]  # entering cost 1
        self.nbrs2 = [tuple(v for v in n if self.cost[v] == 2) for n in nbrs]  # entering cost 2 (difficult)
        if any(c not in (1, 2) for c in self.cost):  # pragma: no cover - the map model only makes 1 and 2
            raise ValueError("kiai hex costs must be 1 or 2")
        self.blocked = frozenset(h for h in self.hexes if g.nodes[h].get("blocks_los"))
        self.axial = {h: to_axial(h) for h in self.hexes}
        self.move_actions = {h: Action("move", dest=h) for h in self.hexes}
        self.run_actions = {h: Action("run", dest=h) for h in self.hexes}
        self.move_list = [self.move_actions[h] for h in self.hexes]
        self.run_list = [self.run_actions[h] for h in self.hexes]
        self.los: dict[tuple[Hex, Hex], bool] = {}
        self.moves: dict[tuple[Hex, int, frozenset[Hex]], Movement] = {}
        self.discs: dict[tuple[Hex, int], frozenset[Hex]] = {}
        self.centres: dict[tuple[Hex, int, str], list[Action]] = {}
        self.attacks: dict[tuple[object, ...], list[Action]] = {}

    def dist(self, a: Hex, b: Hex) -> int:
        """Section 5 hex distance through axial coordinates."""
        q1, r1 = self.axial[a]
        q2, r2 = self.axial[b]
        dq, dr = q1 - q2, r1 - r2
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def clear(self, a: Hex, b: Hex) -> bool:
        """Section 5 line of sight: clear at distance <= 1; else no sampled hex between the ends is blocked."""
        key = (a, b)
        hit = self.los.get(key)
        if hit is None:
            blocked = self.blocked
            hit = not any(h in blocked for h in hex_line(a, b)[1:-1])
            if len(self.los) > 4 * CACHE_LIMIT:
                self.los.clear()
            self.los[key] = hit
        return hit

    def disc(self, center: Hex, radius: int) -> frozenset[Hex]:
        """Every map hex within `radius` of `center` (walked in axial coordinates, cached)."""
        key = (center, radius)
        hit = self.discs.get(key)
        if hit is None:
            q0, r0 = self.axial[center]
            out = []
            for dq in range(-radius, radius + 1):
                for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
                    r = r0 + dr
                    h = (q0 + dq + (r - (r & 1)) // 2, r)
                    if h in self.idx:
                        out.append(h)
            hit = self.discs[key] = frozenset(out)
        return hit

    def movement(self, start: Hex, agility: int, blocked: frozenset[Hex]) -> Movement:
        """KIA-8.1 / KIA-8.2 / KIA-8.3: move and run actions by destination, and cheapest-path predecessors.

        Move: path cost <= agility // 2; run: <= agility; paths avoid `blocked` (enemies that are not out).
        Dial's algorithm (entering costs are 1 or 2), cached per (start, agility, blocked set).
        """
        key = (start, agility, blocked)
        hit = self.moves.get(key)
        if hit is not None:
            return hit
        idx, cost = self.idx, self.cost
        nb1, nb2 = self.nbrs1, self.nbrs2
        far = agility + 1
        dist = [far] * len(cost)
        prev = [-1] * len(cost)
        for h in blocked:
            dist[idx[h]] = -1
        s0 = idx[start]
        dist[s0] = 0
        buckets: list[list[int]] = [[] for _ in range(far + 2)]
        buckets[0].append(s0)
        done: list[int] = []
        half = agility // 2  # KIA-0.5
        n_half = 1
        for d in range(far):
            d1, d2 = d + 1, d + 2
            b1, b2 = buckets[d1], buckets[d2]
            for u in buckets[d]:
                if dist[u] != d:
                    continue
                done.append(u)
                for v in nb1[u]:
                    if d1 < dist[v]:
                        dist[v] = d1
                        prev[v] = u
                        b1.append(v)
                for v in nb2[u]:
                    if d2 < dist[v]:
                        dist[v] = d2
                        prev[v] = u
                        b2.append(v)
            if d == half:
                n_half = len(done)
        if half >= far - 1:
            n_half = len(done)
        reached = done[1:]  # nondecreasing cost: the move destinations are a prefix
        rn = dict(zip(map(self.hexes.__getitem__, reached), map(self.run_list.__getitem__, reached)))
        mv = dict(islice(zip(rn, map(self.move_list.__getitem__, reached)), n_half - 1))
        if len(self.moves) > CACHE_LIMIT:
            self.moves.clear()
        self.moves[key] = hit = (mv, rn, prev)
        return hit


_GEOS: dict[tuple[object, ...], MapGeo] = {}


def geo_of(ctx: Ctx) -> MapGeo:
    """The shared `MapGeo` of an encounter's map."""
    if ctx.geo is None:
        m = ctx.enc.map
        sig = (m.width, m.height, tuple(map(tuple, m.difficult)), tuple(map(tuple, m.blocked)))
        geo = _GEOS.get(sig)
        if geo is None:
            assert ctx.bf is not None
            if len(_GEOS) > 32:
                _GEOS.clear()
            geo = _GEOS[sig] = MapGeo(ctx.bf, m.width, m.height)
        ctx.geo = geo
    return ctx.geo


def clear_line(ctx: Ctx, a: Hex, b: Hex) -> bool:
    """Section 5: line of sight (always clear at distance <= 1; blocked hexes block)."""
    return geo_of(ctx).clear(a, b)


def in_reach(ctx: Ctx, a: Hex | None, b: Hex | None, reach: int) -> bool:
    """KIA-2.2: hex distance <= reach; reach >= 2 also needs a clear line."""
    if a is None or b is None:
        return False
    geo = geo_of(ctx)
    d = geo.dist(a, b)
    if d > reach:
        return False
    return d <= 1 or geo.clear(a, b)


def enemy_hexes(ctx: Ctx, st: KiaiState, cid: str) -> frozenset[Hex]:
    """Hexes a path may not enter (KIA-8.3): those of enemies that are not out."""
    side = ctx.side[cid]
    return frozenset(f.hex for i, f in st.fighters.items()
                     if f.hex is not None and not f.out and ctx.side[i] != side)


def movement_actions(ctx: Ctx, start: Hex, agility: int,
                     blocked: frozenset[Hex]) -> tuple[dict[Hex, Action], dict[Hex, Action]]:
    """`move` and `run` actions by destination (occupied destinations are removed by the caller)."""
    mv, rn, _ = geo_of(ctx).movement(start, agility, blocked)
    return mv, rn


def path_of(ctx: Ctx, start: Hex, goal: Hex, blocked: frozenset[Hex], budget: int) -> list[Hex]:
    """A cheapest path from `start` to `goal` (from the cached search)."""
    geo = geo_of(ctx)
    _, _, prev = geo.movement(start, budget, blocked)
    i, s0 = geo.idx[goal], geo.idx[start]
    path = [goal]
    while i != s0:
        i = prev[i]
        path.append(geo.hexes[i])
    return path[::-1]


def path_cost(ctx: Ctx, path: list[Hex]) -> int:
    """Sum of the entered hexes' costs."""
    assert ctx.bf is not None
    nodes = ctx.bf.graph.nodes
    return int(sum(nodes[h].get("cost", 1) for h in path[1:]))
