"""Space: occupancy, one-step and long-move destinations, long-move paths and lines (INV-1.4, 1.5, 4.4-4.6, 6.6).

Reachability goes through `Battlefield.reachable`, cached by (start, budget, blocked set), so masks never
search an unchanged situation twice; destination lists are cached by the occupancy as well.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any

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


class Grid:
    """The movement graph as bitboards: square ``(x, y)`` is bit ``y * width + x`` (row-major).

    Built once per setup from the graph's edges: per compass direction, the squares with an edge that way
    (so no wrap-around), the difficult squares, and per square the squares at distance >= 2. A long-move
    destination set is then a few integer operations, read back in row-major order through byte tables.
    """

    def __init__(self, setup: Setup, bf: Battlefield, moves: dict[Cell, Any]) -> None:
        adj = setup.adjacency(bf)
        w, h = setup.width, setup.height
        self.width = w
        self.bit: dict[Cell, int] = {(x, y): 1 << (y * w + x) for y in range(h) for x in range(w)}
        by_off: dict[int, int] = {}
        for (x, y), nbs in adj.items():
            b = self.bit[(x, y)]
            for (nx_, ny), _ in nbs:
                off = (ny - y) * w + (nx_ - x)
                by_off[off] = by_off.get(off, 0) | b
        self.left = tuple((off, m) for off, m in sorted(by_off.items()) if off > 0)
        self.right = tuple((-off, m) for off, m in sorted(by_off.items()) if off < 0)
        self.difficult = 0
        for c in setup.difficult:
            self.difficult |= self.bit[c]
        self.far: dict[Cell, int] = {}
        every = (1 << (w * h)) - 1
        for (x, y) in self.bit:
            near = 0
            for yy in range(max(0, y - 1), min(h, y + 2)):
                for xx in range(max(0, x - 1), min(w, x + 2)):
                    near |= self.bit[(xx, yy)]
            self.far[(x, y)] = every & ~near
        self.nbytes = (w * h + 7) // 8
        cells = setup.cells
        self.tables: list[list[tuple[Any, ...]]] = []
        for j in range(self.nbytes):
            row: list[tuple[Any, ...]] = []
            for v in range(256):
                row.append(tuple(moves[cells[8 * j + k]] for k in range(8) if v >> k & 1 and 8 * j + k < len(cells)))
            self.tables.append(row)
        self.cache: dict[tuple[Cell, int, int], int] = {}

    def reach(self, start: Cell, budget: int, blocked: int) -> int:
        """Bits of the squares reachable within `budget` (entering cost 1, or 2 if difficult), avoiding `blocked`.

        The same layered search as `reachable`, with every layer one round of shifts; cached.
        """
        key = (start, budget, blocked)
        cache = self.cache
        hit = cache.get(key)
        if hit is not None:
            return hit
        s = self.bit[start]
        reached = blocked | s
        frontier = s
        later = [0] * (budget + 2)
        left, right, difficult = self.left, self.right, self.difficult
        for k in range(budget):
            if later[k]:
                frontier |= later[k]
            if not frontier:
                continue
            nb = 0
            for off, m in left:
                nb |= (frontier & m) << off
            for off, m in right:
                nb |= (frontier & m) >> off
            nb &= ~reached
            if difficult:
                hard = nb & difficult
                if hard:
                    nb &= ~hard
                    if k + 2 <= budget:
                        later[k + 2] = hard
                        reached |= hard
            reached |= nb
            frontier = nb
        out = reached & ~blocked
        if len(cache) > 50000:
            cache.clear()
        cache[key] = out
        return out

    def actions(self, bits: int) -> list[Any]:
        """The ``move`` actions of the squares in `bits`, row-major."""
        out: list[Any] = []
        tables = self.tables
        j = 0
        for b in bits.to_bytes(self.nbytes, "little"):
            if b:
                out += tables[j][b]
            j += 1
        return out


def grid_of(setup: Setup, bf: Battlefield, moves: dict[Cell, Any]) -> Grid:
    """The (cached) bitboards of a setup."""
    g = setup.grid
    if g is None:
        g = setup.grid = Grid(setup, bf, moves)
    return g  # type: ignore[no-any-return]


def move_dests(setup: Setup, bf: Battlefield, st: InvState, f: Fighter, occ: dict[Cell, Fighter],
               actions: dict[Cell, Any]) -> list[Any]:
    """Legal long moves (INV-4.5), as ``move`` actions taken from `actions`, in row-major order.

    Destinations are at distance >= 2, free, and reachable within MOV avoiding blocked squares (hostiles able
    to act). Reachability is cached by (square, MOV, blocked squares inside the open-map reach), the only
    blocked squares that can change it.
    """
    assert f.pos is not None
    g = grid_of(setup, bf, actions)
    bit = g.bit
    side = setup.side_of[f.id]
    side_of = setup.side_of
    occ_bits = hostile = 0
    for o in st.fighters:
        p = o.pos
        if p is None or o.dead or o.fled:
            continue
        b = bit[p]
        occ_bits |= b
        if side_of[o.id] != side and not (o.unconscious or o.dying):
            hostile |= b
    pos = f.pos
    mov = setup.prof(f.id).mov
    reach0 = g.reach(pos, mov, 0)
    rel = hostile & reach0
    reach = g.reach(pos, mov, rel) if rel else reach0
    return g.actions(reach & g.far[pos] & ~occ_bits)


def reachable(setup: Setup, bf: Battlefield, start: Cell, budget: int, blocked: frozenset[Cell]) -> frozenset[Cell]:
    """Squares reachable within `budget` movement (entering cost 1, or 2 if difficult), avoiding `blocked`.

    The same set as `Battlefield.reachable` on the movement graph, computed layer by layer with set operations
    over a precomputed adjacency, and cached by (start, budget, blocked) like the kernel's cache.
    """
    key = (start, budget, blocked)
    cache = setup.reach_cache
    hit = cache.get(key)
    if hit is not None:
        return hit
    setup.adjacency(bf)
    nbrs = setup.nbrs
    assert nbrs is not None
    difficult = setup.difficult
    reached = set(blocked)
    reached.add(start)
    frontier = {start}
    later: list[set[Cell]] = [set() for _ in range(budget + 2)]
    get = nbrs.__getitem__
    for k in range(budget):
        if later[k]:
            frontier |= later[k]
        if not frontier:
            continue
        nb = set().union(*map(get, frontier))
        nb -= reached
        if difficult:
            hard = nb & difficult
            if hard:
                nb -= hard
                if k + 2 <= budget:
                    later[k + 2] = hard
                    reached |= hard
        reached |= nb
        frontier = nb
    out = frozenset(reached - blocked)
    if len(cache) > 20000:
        cache.clear()
    cache[key] = out
    return out


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
    # each relevant reactor is one bit; mask[c] = the reactors whose nine-grid holds square c
    mask: dict[Cell, int] = {}
    lv_bits = en_bits = 0
    bit = 1
    for (rx, ry), lv, en in reactors:
        if max(abs(rx - start[0]), abs(ry - start[1])) > mov + 1:
            continue  # too far to be entered or left by this move
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx or dy:
                    c = (rx + dx, ry + dy)
                    mask[c] = mask.get(c, 0) | bit
        if lv:
            lv_bits |= bit
        if en:
            en_bits |= bit
        bit <<= 1
    g_mask = mask.get(goal, 0)
    h_bits = (g_mask & en_bits) | (~g_mask & lv_bits)  # reactors whose crossing towards the goal counts
    get = mask.get
    heap: list[tuple[int, int, tuple[Cell, ...], int, int]] = [
        (((get(start, 0) ^ g_mask) & h_bits).bit_count(), max(abs(start[0] - gx), abs(start[1] - gy)), (start,),
         0, 0)]
    seen: set[tuple[Cell, int]] = set()
    push, pop = heapq.heappush, heapq.heappop
    while heap:
        _, _, seq, trig, cost = pop(heap)
        here = seq[-1]
        if here == goal:
            return list(seq[1:])
        if (here, cost) in seen:
            continue
        seen.add((here, cost))
        m_here = get(here, 0)
        for nxt, w in adj[here]:
            if nxt in blocked:
                continue
            c2 = cost + w
            ex, ey = nxt[0] - gx, nxt[1] - gy
            hc = ex if ex >= 0 else -ex
            if ey > hc or -ey > hc:
                hc = ey if ey >= 0 else -ey
            if c2 + hc > mov or (nxt, c2) in seen:
                continue
            if mask:
                m_nxt = get(nxt, 0)
                t2 = trig + ((m_here & ~m_nxt & lv_bits) | 0).bit_count() + (m_nxt & ~m_here & en_bits).bit_count()
                push(heap, (t2 + ((m_nxt ^ g_mask) & h_bits).bit_count(), c2 + hc, seq + (nxt,), t2, c2))
            else:
                push(heap, (0, c2 + hc, seq + (nxt,), 0, c2))
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
