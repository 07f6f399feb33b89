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
from trpg_arena.rules.kiai.context import action
from trpg_arena.rules.kiai.state import Hex, KiaiState

if TYPE_CHECKING:
    from trpg_arena.rules.core.battlefield import Battlefield
    from trpg_arena.rules.kiai.context import Ctx

CACHE_LIMIT = 16384
MOVES_LIMIT = 32  # searches are rarely repeated except by the move that follows them: keep few (memory stays hot)
ROW_PATTERNS_LIMIT = 4096  # per dict row table of `moves_and_runs` (a 16-hex row has 65536 patterns)
Movement = tuple[int, int, tuple[int, ...]]  # move mask, run mask, cost layers (bit masks)


class _Patterns(dict[int, "tuple[Action, ...] | None"]):
    """A row pattern memo for wide rows: a dict that answers None for a pattern not seen yet."""

    def __missing__(self, key: int) -> None:
        return None


RowTable = list["tuple[Action, ...] | None"] | _Patterns
DENSE_ROW_WIDTH = 12  # rows up to this wide memoise in a list indexed by pattern (4096 slots): no hashing


def _row_table(width: int) -> RowTable:
    """An empty row pattern -> actions memo (indexed by pattern: a list for narrow rows, else a dict)."""
    return [None] * (1 << width) if width <= DENSE_ROW_WIDTH else _Patterns()


def _row_actions(table: RowTable, row: int, base: int, actions: list[Action]) -> tuple[Action, ...]:
    """Memoise and return the actions of the set bits of `row` (a map row whose first hex has index `base`)."""
    if isinstance(table, _Patterns) and len(table) >= ROW_PATTERNS_LIMIT:
        table.clear()
    hit = table[row] = tuple(actions[base + i] for i in range(row.bit_length()) if row >> i & 1)
    return hit


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
        # Bit masks: hex (c, r) is bit r * (width + 1) + c; each row has one spare "guard" bit after its last
        # column, never set in a mask of hexes, so a shift by one that leaves a row lands on a guard bit.
        w = width
        self.stride = s = w + 1
        self.pos = [r * s + c for (c, r) in self.hexes]  # bit position by hex index
        self.all_bits = sum(1 << p for p in self.pos)
        self.even_rows = sum(((1 << s) - 1) << (r * s) for r in range(0, height, 2))
        odd_rows = sum(((1 << s) - 1) << (r * s) for r in range(1, height, 2))
        # the same rows one bit over, to pick the shifted copies of a mask whose bits started in even rows (after a
        # shift right) or in odd rows (after a shift left): see `movement`
        self.even_right, self.odd_left = self.even_rows >> 1, odd_rows << 1
        self.difficult_bits = sum(1 << self.pos[i] for i, c in enumerate(self.cost) if c == 2)
        self.nbr_bits = [tuple((u, 1 << self.pos[u]) for u in nbrs) for nbrs in self.nbrs]
        self.bit = {h: 1 << self.pos[i] for i, h in enumerate(self.hexes)}
        self.blocked = frozenset(h for h in self.hexes if g.nodes[h].get("blocks_los"))
        self.blocked_bits = sum(self.bit[h] for h in self.blocked)
        self.axial = {h: to_axial(h) for h in self.hexes}
        self.move_actions = {h: action("move", dest=h) for h in self.hexes}
        self.run_actions = {h: action("run", dest=h) for h in self.hexes}
        self.move_list = [self.move_actions[h] for h in self.hexes]
        self.run_list = [self.run_actions[h] for h in self.hexes]
        self.moved_texts = {h: f" moves to {list(h)} (cost " for h in self.hexes}  # the `moved` event's text
        self.los: dict[tuple[Hex, Hex], bool] = {}
        self.moves: dict[tuple[Hex, int, int], Movement] = {}
        self.discs: dict[tuple[Hex, int], frozenset[Hex]] = {}
        self.sight: dict[tuple[Hex, int], frozenset[Hex]] = {}  # see `in_sight`
        self.centres: dict[tuple[Hex, int, str], list[Action]] = {}
        self.attacks: dict[tuple[object, ...], list[Action]] = {}
        self.dm = [[self.dist(a, b) for b in self.hexes] for a in self.hexes]  # distances by index pair
        self.row_bits = (1 << w) - 1
        # per map row: (hex index of its first column, row bit pattern -> the actions of its set bits)
        self.move_parts = [(r * w, _row_table(w)) for r in range(height)]
        self.run_parts = [(r * w, _row_table(w)) for r in range(height)]
        self.charges: dict[tuple[Hex, int], tuple[tuple[int, int], ...]] = {}  # see `legal._charge_spots`

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

    def in_sight(self, here: Hex, radius: int) -> frozenset[Hex]:
        """The map hexes within `radius` of `here` with a clear line from it (section 5), cached."""
        row = self.dm[self.idx[here]]
        hit = self.sight[here, radius] = frozenset(h for i, h in enumerate(self.hexes)
                                                   if row[i] <= radius and self.clear(here, h))
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
        """The hexes of `mask` as row-major hex indices, ascending."""
        out: list[int] = []
        full, s, w = self.row_bits, self.stride, self.width
        base = 0
        while mask:
            row = mask & full
            out.extend(base + c for c in range(w) if row >> c & 1)
            mask >>= s
            base += w
        return out

    def moves_and_runs(self, move_mask: int, run_mask: int) -> list[Action]:
        """``move`` to the set bits of `move_mask`, then ``run`` to those of `run_mask`, each ascending.

        Walked one map row at a time; the actions of each row pattern are memoised in `move_parts` / `run_parts`.
        """
        out: list[Action] = []
        extend = out.extend
        full, s = self.row_bits, self.stride
        mask = move_mask
        for base, table in self.move_parts:
            row = mask & full
            if row:  # a memoised tuple is never empty
                extend(table[row] or _row_actions(table, row, base, self.move_list))
            mask >>= s
            if not mask:
                break
        mask = run_mask
        for base, table in self.run_parts:
            row = mask & full
            if row:
                extend(table[row] or _row_actions(table, row, base, self.run_list))
            mask >>= s
            if not mask:
                break
        return out

    def mask(self, hexes: Iterable[Hex | None]) -> int:
        """The bit mask of some hexes (None ignored)."""
        bit = self.bit
        m = 0
        for h in hexes:
            if h is not None:
                m |= bit[h]
        return m

    def movement(self, start: Hex, agility: int, blocked: int) -> Movement:
        """KIA-8.1 / KIA-8.2 / KIA-8.3: the hexes a move and a run can reach, and the cost layers.

        Returns (move mask: path cost <= agility // 2, run mask: <= agility, layers) as bit masks (see
        `bit`); `layers[d]` holds the hexes at cost exactly d. Paths avoid `blocked` (a
        mask: enemies that are not out) and blocked hexes; entering a difficult hex costs 2. A
        breadth-first search on bit masks, cached per (start, agility, blocked).
        """
        key = (start, agility, blocked)
        hit = self.moves.get(key)
        if hit is not None:
            return hit
        start_bit = self.bit[start]
        diff = self.difficult_bits
        s, even_right, odd_left = self.stride, self.even_right, self.odd_left
        avail0 = avail = self.all_bits & ~(start_bit | self.blocked_bits | blocked)  # not yet seen
        layers = [start_bit]
        x = start_bit  # layers[d]
        nxt = nxt2 = 0  # what is known so far of layers[d + 1] and layers[d + 2]
        d = 0
        half = agility // 2  # KIA-0.5
        half_mask = 0  # layers[1..half]
        while d < agility:
            if x and avail:
                # section 5 neighbours of every hex in x: the same row's (shift by 1); in the rows above and
                # below, the same columns and, for even rows, the column to the left (odd rows: to the right).
                # Whatever leaves the map lands on a guard bit or past the last row, outside `avail`.
                left, right = x >> 1, x << 1
                v = x | (left & even_right) | (right & odd_left)
                new = (left | right | (v << s) | (v >> s)) & avail
                if new:
                    avail ^= new
                    two = new & diff
                    if two:
                        nxt |= new ^ two
                        nxt2 |= two
                    else:
                        nxt |= new
            elif not x and not nxt:
                break  # entering costs 1 or 2: nothing further can be reached
            d += 1
            x, nxt, nxt2 = nxt, nxt2, 0  # layer d is complete: only layers d - 1 and d - 2 feed it
            layers.append(x)
            if d == half:  # seen so far: layers[1..d] and the part of layer d + 1 in nxt
                half_mask = avail0 ^ avail ^ nxt
        run_mask = avail0 ^ avail ^ nxt  # every hex seen, but those of layer d + 1 (in nxt): layers[1..d]
        if d < half:  # stopped early: every later layer is empty
            half_mask = run_mask
        if len(layers) <= agility:
            layers.extend([0] * (agility + 1 - len(layers)))
        if len(self.moves) > MOVES_LIMIT:
            self.moves.clear()
        self.moves[key] = hit = (half_mask, run_mask, tuple(layers))
        return hit

    def path(self, start: Hex, goal: Hex, agility: int, blocked: int) -> list[Hex]:
        """A cheapest path (walked back through the cost layers; first neighbour in section 5 order)."""
        return self.path_and_cost(start, goal, agility, blocked)[0]

    def path_and_cost(self, start: Hex, goal: Hex, agility: int, blocked: int) -> tuple[list[Hex], int]:
        """`path` and its cost (the sum of the entered hexes' costs, which is the goal's layer)."""
        hit = self.moves.get((start, agility, blocked))  # the search of the legal list just offered, as a rule
        layers = (hit or self.movement(start, agility, blocked))[2]
        b = self.bit[goal]
        total = 0
        while not layers[total] & b:
            total += 1
        g = self.idx[goal]
        hexes, cost, nbrs = self.hexes, self.cost, self.nbr_bits
        path = [goal]
        d = total
        while d:
            d -= cost[g]
            m = layers[d]
            for u, ub in nbrs[g]:
                if m & ub:
                    g = u
                    break
            path.append(hexes[g])
        path.reverse()
        return path, total


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
    fighters = st.fighters
    bit = (ctx.geo or geo_of(ctx)).bit
    m = 0
    for i in ctx.foes_of[cid]:
        f = fighters[i]
        if not f.out and f.hex is not None:
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
