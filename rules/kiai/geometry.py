"""Hex geometry used by the rules: reach, line of sight, occupancy and movement (section 5, KIA-8).

Everything here depends only on the map, so one `MapGeo` (read from the kernel's battlefield graph) is
shared by every encounter with the same map and keeps its caches across combats: paths are searched
once per (start, budget, blocked set) and never again while that situation repeats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.battlefield import hex_line, to_axial
from trpg_arena.rules.core.values import Action
from trpg_arena.rules.kiai.state import Hex, KiaiState

if TYPE_CHECKING:
    from trpg_arena.rules.core.battlefield import Battlefield
    from trpg_arena.rules.kiai.context import Ctx

CACHE_LIMIT = 16384
Movement = tuple[dict[Hex, Action], dict[Hex, Action], list[int]]  # move, run, cost layers (bit masks)


class MapGeo:
    """Static geometry of one map (odd-r hexes): indices, neighbours with entering costs, caches."""

    def __init__(self, bf: Battlefield, width: int, height: int) -> None:
        g = bf.graph
        self.width, self.height = width, height
        self.hexes: list[Hex] = [(c, r) for r in range(height) for c in range(width)]
        self.idx = {h: i for i, h in enumerate(self.hexes)}
        self.cost = [int(g.nodes[h].get("cost", 1)) for h in self.hexes]
        self.nbrs = [tuple(self.idx[m] for m in g.adj[h]) for h in self.hexes]
        if any(c not in (1, 2) for c in self.cost):  # pragma: no cover - the map model only makes 1 and 2
            raise ValueError("kiai hex costs must be 1 or 2")
        w, n = width, width * height
        self.all_bits = (1 << n) - 1
        self.not_col0 = self.all_bits & ~sum(1 << (r * w) for r in range(height))
        self.not_col_last = self.all_bits & ~sum(1 << (r * w + w - 1) for r in range(height))
        self.even_rows = sum(((1 << w) - 1) << (r * w) for r in range(0, height, 2))
        self.difficult_bits = sum(1 << i for i, c in enumerate(self.cost) if c == 2)
        self.chunks: dict[tuple[int, int], tuple[int, ...]] = {}
        self.blocked = frozenset(h for h in self.hexes if g.nodes[h].get("blocks_los"))
        self.blocked_bits = sum(1 << self.idx[h] for h in self.blocked)
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

    def _spread(self, x: int) -> int:
        """Every neighbour of the hexes in bit mask `x` (section 5 odd-r neighbours, inside the map)."""
        w, nc0, ncl = self.width, self.not_col0, self.not_col_last
        e = x & self.even_rows
        o = x ^ e
        r = ((x << 1) & nc0) | ((x >> 1) & ncl)
        r |= (e >> w) | ((e >> (w + 1)) & ncl) | (o >> w) | ((o >> (w - 1)) & nc0)
        r |= (e << w) | ((e << (w - 1)) & ncl) | (o << w) | ((o << (w + 1)) & nc0)
        return r & self.all_bits

    def _indices(self, mask: int) -> list[int]:
        """The set bits of `mask`, ascending (row-major hex indices), eight bits at a time."""
        out: list[int] = []
        chunks = self.chunks
        k = 0
        while mask:
            byte = mask & 255
            if byte:
                key = (k, byte)
                part = chunks.get(key)
                if part is None:
                    part = chunks[key] = tuple(8 * k + i for i in range(8) if byte >> i & 1)
                out.extend(part)
            mask >>= 8
            k += 1
        return out

    def movement(self, start: Hex, agility: int, blocked: frozenset[Hex]) -> Movement:
        """KIA-8.1 / KIA-8.2 / KIA-8.3: move and run actions by destination, and the cost layers.

        Move: path cost <= agility // 2; run: <= agility; paths avoid `blocked` (enemies that are not out)
        and blocked hexes. A breadth-first search on bit masks (entering a difficult hex costs 2),
        cached per (start, agility, blocked set); `layers[d]` is the mask of hexes at cost exactly d.
        """
        key = (start, agility, blocked)
        hit = self.moves.get(key)
        if hit is not None:
            return hit
        idx = self.idx
        start_bit = 1 << idx[start]
        seen = start_bit | self.blocked_bits
        for h in blocked:
            seen |= 1 << idx[h]
        diff = self.difficult_bits
        layers = [0] * (agility + 2)
        layers[0] = start_bit
        spread = self._spread
        for d in range(agility):
            cur = layers[d]
            if not cur:
                continue
            new = spread(cur) & ~seen
            if new:
                seen |= new
                two = new & diff
                layers[d + 1] |= new ^ two
                layers[d + 2] |= two
        del layers[agility + 1:]
        run_mask = half_mask = 0
        half = agility // 2  # KIA-0.5
        for d in range(1, agility + 1):
            run_mask |= layers[d]
            if d == half:
                half_mask = run_mask
        if half >= agility:
            half_mask = run_mask
        hexes, ra, ma = self.hexes, self.run_list, self.move_list
        ri = self._indices(run_mask)
        mi = self._indices(half_mask)
        rn = dict(zip(map(hexes.__getitem__, ri), map(ra.__getitem__, ri)))
        mv = dict(zip(map(hexes.__getitem__, mi), map(ma.__getitem__, mi)))
        if len(self.moves) > CACHE_LIMIT:
            self.moves.clear()
        self.moves[key] = hit = (mv, rn, layers)
        return hit

    def path(self, start: Hex, goal: Hex, agility: int, blocked: frozenset[Hex]) -> list[Hex]:
        """A cheapest path (walked back through the cost layers; first neighbour in section 5 order)."""
        _, _, layers = self.movement(start, agility, blocked)
        idx, hexes = self.idx, self.hexes
        g = idx[goal]
        d = next(k for k, m in enumerate(layers) if m >> g & 1)
        path = [goal]
        while d:
            d -= self.cost[g]
            g = next(u for u in self.nbrs[g] if layers[d] >> u & 1)
            path.append(hexes[g])
        return path[::-1]


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
    return geo_of(ctx).path(start, goal, budget, blocked)


def path_cost(ctx: Ctx, path: list[Hex]) -> int:
    """Sum of the entered hexes' costs."""
    assert ctx.bf is not None
    nodes = ctx.bf.graph.nodes
    return int(sum(nodes[h].get("cost", 1) for h in path[1:]))
