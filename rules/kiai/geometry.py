"""Hex geometry used by the rules: reach, line of sight, occupancy and movement (section 5, KIA-8).

Everything here depends only on the map, so one `MapGeo` (read from the kernel's battlefield graph) is
shared by every encounter with the same map and keeps its caches across combats: paths are searched
once per (start, budget, blocked set) and never again while that situation repeats.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from trpg_arena.rules.core.battlefield import hex_line, to_axial
from trpg_arena.rules.core.values import Action
from trpg_arena.rules.kiai.state import Hex, KiaiState

if TYPE_CHECKING:
    from trpg_arena.rules.core.battlefield import Battlefield
    from trpg_arena.rules.kiai.context import Ctx

CACHE_LIMIT = 16384
MOVES_LIMIT = 2048  # searches are rarely repeated except by the move that follows them: keep few (and GC-light)
Movement = tuple[int, int, tuple[int, ...]]  # move mask, run mask, cost layers (bit masks)


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
        self.moves: dict[tuple[Hex, int, int], Movement] = {}
        self.discs: dict[tuple[Hex, int], frozenset[Hex]] = {}
        self.centres: dict[tuple[Hex, int, str], list[Action]] = {}
        self.attacks: dict[tuple[object, ...], list[Action]] = {}
        self.bit = {h: 1 << i for i, h in enumerate(self.hexes)}
        self.dm = [[self.dist(a, b) for b in self.hexes] for a in self.hexes]  # distances by index pair
        self.move_parts: list[dict[int, tuple[Action, ...]]] = [{} for _ in range(n // 8 + 1)]
        self.run_parts: list[dict[int, tuple[Action, ...]]] = [{} for _ in range(n // 8 + 1)]
        self.charges: dict[tuple[Hex, int], tuple[int, ...]] = {}

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

    def indices(self, mask: int) -> list[int]:
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

    def pick(self, mask: int, actions: list[Action], parts: list[dict[int, tuple[Action, ...]]]) -> list[Action]:
        """`actions[i]` for the set bits i of `mask`, ascending (8 bits at a time, memoised in `parts`)."""
        out: list[Action] = []
        k = 0
        while mask:
            part = mask & 255
            if part:
                table = parts[k]
                hit = table.get(part)
                if hit is None:
                    base = 8 * k
                    hit = table[part] = tuple(actions[base + i] for i in range(8) if part >> i & 1)
                out.extend(hit)
            mask >>= 8
            k += 1
        return out

    def mask(self, hexes: Iterable[Hex | None]) -> int:
        """The bit mask of some hexes (None ignored)."""
        idx = self.idx
        m = 0
        for h in hexes:
            if h is not None:
                m |= 1 << idx[h]
        return m

    def movement(self, start: Hex, agility: int, blocked: int) -> Movement:
        """KIA-8.1 / KIA-8.2 / KIA-8.3: the hexes a move and a run can reach, and the cost layers.

        Returns (move mask: path cost <= agility // 2, run mask: <= agility, layers) as bit masks over
        row-major hex indices; `layers[d]` holds the hexes at cost exactly d. Paths avoid `blocked` (a
        mask: enemies that are not out) and blocked hexes; entering a difficult hex costs 2. A
        breadth-first search on bit masks, cached per (start, agility, blocked).
        """
        key = (start, agility, blocked)
        hit = self.moves.get(key)
        if hit is not None:
            return hit
        start_bit = 1 << self.idx[start]
        diff = self.difficult_bits
        layers = [0] * (agility + 2)
        layers[0] = start_bit
        w, w1, w2 = self.width, self.width + 1, self.width - 1
        nc0, ncl, even = self.not_col0, self.not_col_last, self.even_rows
        avail = self.all_bits & ~(start_bit | self.blocked_bits | blocked)  # not yet seen
        x = start_bit
        d = 0
        while d < agility:
            if x:
                e = x & even  # section 5 neighbours of every hex in x: odd rows are shifted half a hex right
                o = x ^ e
                new = ((((x << 1) | (o >> w2) | (o << w1)) & nc0) | (((x >> 1) | (e >> w1) | (e << w2)) & ncl)
                       | (x >> w) | (x << w)) & avail
                if new:
                    avail ^= new
                    two = new & diff
                    if two:
                        layers[d + 1] |= new ^ two
                        layers[d + 2] |= two
                    else:
                        layers[d + 1] |= new
            elif not layers[d + 1]:
                break  # entering costs 1 or 2: nothing further can be reached
            d += 1
            x = layers[d]
        del layers[agility + 1:]
        run_mask = half_mask = 0
        half = agility // 2  # KIA-0.5
        for d in range(1, agility + 1):
            run_mask |= layers[d]
            if d == half:
                half_mask = run_mask
        if half >= agility:
            half_mask = run_mask
        if len(self.moves) > MOVES_LIMIT:
            self.moves.clear()
        self.moves[key] = hit = (half_mask, run_mask, tuple(layers))
        return hit

    def path(self, start: Hex, goal: Hex, agility: int, blocked: int) -> list[Hex]:
        """A cheapest path (walked back through the cost layers; first neighbour in section 5 order)."""
        _, _, layers = self.movement(start, agility, blocked)
        g = self.idx[goal]
        d = 0
        while not layers[d] >> g & 1:
            d += 1
        hexes, cost, nbrs = self.hexes, self.cost, self.nbrs
        path = [goal]
        while d:
            d -= cost[g]
            m = layers[d]
            for u in nbrs[g]:
                if m >> u & 1:
                    g = u
                    break
            path.append(hexes[g])
        path.reverse()
        return path

    def path_and_cost(self, start: Hex, goal: Hex, agility: int, blocked: int) -> tuple[list[Hex], int]:
        """`path` and its cost (the sum of the entered hexes' costs, which is the goal's distance)."""
        p = self.path(start, goal, agility, blocked)
        cost, idx = self.cost, self.idx
        total = 0
        for h in p[1:]:
            total += cost[idx[h]]
        return p, total


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


def enemy_mask(ctx: Ctx, st: KiaiState, cid: str) -> int:
    """Hexes a path may not enter (KIA-8.3), as a bit mask: those of enemies that are not out."""
    side = ctx.side[cid]
    sides = ctx.side
    bit = geo_of(ctx).bit
    m = 0
    for i, f in st.fighters.items():
        if not f.out and f.hex is not None and sides[i] != side:
            m |= bit[f.hex]
    return m


def occupied_mask(ctx: Ctx, st: KiaiState) -> int:
    """Hexes holding a combatant (incapacitated and dead ones keep theirs; fled ones left the map)."""
    return geo_of(ctx).mask(f.hex for f in st.fighters.values())


def path_of(ctx: Ctx, start: Hex, goal: Hex, blocked: int, budget: int) -> list[Hex]:
    """A cheapest path from `start` to `goal` (from the cached search)."""
    return geo_of(ctx).path(start, goal, budget, blocked)


def path_cost(ctx: Ctx, path: list[Hex]) -> int:
    """Sum of the entered hexes' costs."""
    geo = geo_of(ctx)
    cost, idx = geo.cost, geo.idx
    return sum(cost[idx[h]] for h in path[1:])
