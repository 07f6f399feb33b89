"""Space: occupancy, one-step and long-move destinations, long-move paths and lines (INV-1.4, 1.5, 4.4-4.6, 6.6).

Reachability is searched here, in layers of bitsets over the compiled setup's squares (`Grid.reach`),
cached by (start, budget, blocked set) so masks never search an unchanged situation twice; destination
lists are cached by the occupancy as well. `reachable` is the plain set-based search the fast paths are
tested against.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from trpg_arena.rules.investigator.catalogue import FORM_INDEX
from trpg_arena.rules.investigator.compiled import DIR_OF, Setup
from trpg_arena.rules.investigator.state import Fighter, InvState

if TYPE_CHECKING:
    from trpg_arena.rules.core.battlefield import Battlefield

Cell = tuple[int, int]


def cheb(a: Cell, b: Cell) -> int:
    """Chebyshev distance in squares (INV-1.4)."""
    dx = a[0] - b[0]
    dy = a[1] - b[1]
    if dx < 0:
        dx = -dx
    if dy < 0:
        dy = -dy
    return dx if dx > dy else dy


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

    Built once per setup from the graph's edges: per square its neighbours' bits, the enterable and the
    difficult squares, the squares where a plain 8-neighbour dilation matches the graph, and per square the
    squares at distance >= 2. A long-move destination set is then a few integer operations, read back in
    row-major order through byte tables.
    """

    def __init__(self, setup: Setup, bf: Battlefield) -> None:
        adj = setup.adjacency(bf)
        w, h = setup.width, setup.height
        self.width = w
        self.bit: dict[Cell, int] = {(x, y): 1 << (y * w + x) for y in range(h) for x in range(w)}
        self.difficult = 0
        for c in setup.difficult:
            self.difficult |= self.bit[c]
        # 8-neighbour dilation without a shift per direction: a row step (x +- 1, kept inside the row), then a
        # column step (y +- 1), then keep the enterable squares. Squares whose graph neighbours differ from
        # that (a wall cuts a diagonal, section 5) are "exceptional" and add their neighbour bits one by one.
        self.nbits = [0] * (w * h)  # per bit index: the bits of the square's graph neighbours
        for c, nbs in adj.items():
            for m, _ in nbs:
                self.nbits[self.bit[c].bit_length() - 1] |= self.bit[m]
        self.enterable = 0
        for b in self.nbits:
            self.enterable |= b
        self.not_last_col = self.not_first_col = 0
        for (x, _y), b in self.bit.items():
            if x < w - 1:
                self.not_last_col |= b
            if x > 0:
                self.not_first_col |= b
        self.plain = 0
        for c in adj:
            b = self.bit[c]
            if self.dilate(b) & ~b == self.nbits[b.bit_length() - 1]:
                self.plain |= b
        self.far: dict[Cell, int] = {}
        self.near: dict[Cell, int] = {}  # the squares within one square (Chebyshev distance <= 1), itself included
        every = (1 << (w * h)) - 1
        for (x, y) in self.bit:
            near = 0
            for yy in range(max(0, y - 1), min(h, y + 2)):
                for xx in range(max(0, x - 1), min(w, x + 2)):
                    near |= self.bit[(xx, yy)]
            self.far[(x, y)] = every & ~near
            self.near[(x, y)] = near
        self.nbytes = (w * h + 7) // 8
        self.cells = setup.cells
        self.tables: list[list[tuple[Any, ...]]] = []
        self.cache: dict[tuple[Cell, int, int], int] = {}
        # per (start, budget): the open search's state at the start of each layer (frontier, reached, squares
        # due at this layer and the next) and the squares that layer adds
        self.layers: dict[tuple[Cell, int], list[tuple[int, int, int, int, int]]] = {}
        # long-move paths: square (x, y) is number x * height + y, so numbers order like the squares
        n = w * h
        self.cell = [(i // h, i % h) for i in range(n)]
        num = self.num = {c: i for i, c in enumerate(self.cell)}
        self.padj: list[tuple[tuple[int, int], ...]] = [()] * n
        for c, nbs in adj.items():
            self.padj[num[c]] = tuple((num[m], cost) for m, cost in nbs)
        self.cheb = [[max(abs(a[0] - b[0]), abs(a[1] - b[1])) for b in self.cell] for a in self.cell]
        self.nine = [tuple(num[(x + dx, y + dy)] for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                           if (dx or dy) and (x + dx, y + dy) in num) for (x, y) in self.cell]
        # one-step moves: per square, (square, bit, STEP_FORMS index of "before:<dir>") in the graph's order
        gadj = bf.graph.adj
        self.steps: dict[Cell, tuple[tuple[Cell, int, int], ...]] = {
            c: tuple((m, self.bit[m], FORM_INDEX[("before", DIR_OF[(m[0] - c[0], m[1] - c[1])])]) for m in gadj[c])
            for c in self.bit}
        self.step_ring: dict[Cell, int] = {c: sum(b for _, b, _ in sts) for c, sts in self.steps.items()}
        # `Legal.step_options` lists, per square and occupied squares among its one-step squares (read only)
        self.forms: dict[Cell, dict[int, list[tuple[int, Cell]]]] = {}
        # `Legal.turn`: the one-step move actions by (square, occupied squares among its one-step squares)
        self.step_moves: dict[tuple[Cell, int], tuple[Any, ...]] = {}

    def dilate(self, bits: int) -> int:
        """The enterable squares within one square of `bits` (themselves included when enterable)."""
        row = bits | ((bits & self.not_last_col) << 1) | ((bits & self.not_first_col) >> 1)
        w = self.width
        return (row | (row << w) | (row >> w)) & self.enterable

    def reach(self, start: Cell, budget: int, blocked: int) -> int:
        """Bits of the squares reachable within `budget` (entering cost 1, or 2 if difficult), avoiding `blocked`.

        The same layered search as `reachable`, with every layer one round of shifts; cached. The open search
        (nothing blocked) keeps the state at the start of each layer: a search with blockers is the same search
        up to the first layer that reaches one of them, so it resumes there.
        """
        key = (start, budget, blocked)
        cache = self.cache
        hit = cache.get(key)
        if hit is not None:
            return hit
        if len(cache) > 50000:
            cache.clear()
            self.layers.clear()
        later = [0] * (budget + 2)
        first = 0
        record: list[tuple[int, int, int, int, int]] | None = None
        if blocked:
            layers = self.layers.get((start, budget))
            if layers is None:
                self.reach(start, budget, 0)
                layers = self.layers.get((start, budget))
            if layers is None:  # another combat cleared the shared caches meanwhile: search from the start
                reached = frontier = self.bit[start]
                reached |= blocked
            else:
                # the first layer that adds a blocked square
                first = next((k for k, layer in enumerate(layers) if layer[4] & blocked), -1)
                if first < 0:  # no blocked square is ever reached: the open search's squares
                    out = self.reach(start, budget, 0) & ~blocked
                    cache[key] = out
                    return out
                frontier, reached, due, due_next, _ = layers[first]
                reached |= blocked
                later[first] = due
                later[first + 1] = due_next
        else:
            reached = frontier = self.bit[start]
            record = []  # published once complete (below): combats in other threads share these layers
        difficult, plain, nbits = self.difficult, self.plain, self.nbits
        w, not_last, not_first, enterable = self.width, self.not_last_col, self.not_first_col, self.enterable
        start_state = (0, 0, 0, 0)
        for k in range(first, budget):
            if record is not None:
                start_state = (frontier, reached, later[k], later[k + 1])
            if later[k]:
                frontier |= later[k]
            if frontier:
                fp = frontier & plain
                row = fp | ((fp & not_last) << 1) | ((fp & not_first) >> 1)  # `dilate`, inlined
                nb = (row | (row << w) | (row >> w)) & enterable
                odd = frontier ^ fp
                while odd:  # exceptional squares: their own neighbour bits
                    low = odd & -odd
                    nb |= nbits[low.bit_length() - 1]
                    odd ^= low
                nb &= ~reached  # (this drops the frontier itself, which `dilate` keeps)
                if difficult:
                    hard = nb & difficult
                    if hard:
                        nb &= ~hard
                        if k + 2 <= budget:
                            later[k + 2] = hard
                            reached |= hard
                reached |= nb
                frontier = nb
            if record is not None:
                record.append((*start_state, reached & ~start_state[1]))
        if record is not None:
            self.layers[(start, budget)] = record
        out = reached & ~blocked
        cache[key] = out
        return out

    def actions(self, bits: int, moves: dict[Cell, Any]) -> list[Any]:
        """The ``move`` actions (square -> action in `moves`) of the squares in `bits`, row-major."""
        out: list[Any] = []
        tables = self.tables
        if not tables:  # built whole, then published: combats in other threads read the same tables
            cells = self.cells
            tables = [[tuple(moves[cells[8 * j + k]] for k in range(8) if v >> k & 1 and 8 * j + k < len(cells))
                       for v in range(256)] for j in range(self.nbytes)]
            self.tables = tables
        for table, b in zip(tables, bits.to_bytes(self.nbytes, "little")):
            if b:
                out += table[b]
        return out


def grid_of(setup: Setup, bf: Battlefield) -> Grid:
    """The (cached) bitboards and path tables of a setup."""
    g = setup.grid
    if g is None:
        g = setup.grid = Grid(setup, bf)
    return g


def move_dests(setup: Setup, bf: Battlefield, f: Fighter, occupied: int, hostile: int,
               actions: dict[Cell, Any]) -> list[Any]:
    """Legal long moves (INV-4.5), as ``move`` actions taken from `actions`, in row-major order.

    Destinations are at distance >= 2, free (not in the bits `occupied`), and reachable within MOV avoiding
    the squares of hostiles able to act (the bits `hostile`). Reachability is cached by (square, MOV, blocked
    squares inside the open-map reach), the only blocked squares that can change it.
    """
    assert f.pos is not None
    g = grid_of(setup, bf)
    pos = f.pos
    mov = setup.prof(f.id).mov
    reach0 = g.reach(pos, mov, 0)
    rel = hostile & reach0
    reach = g.reach(pos, mov, rel) if rel else reach0
    return g.actions(reach & g.far[pos] & ~occupied, actions)


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


def best_path(setup: Setup, bf: Battlefield, start: Cell, goal: Cell, mov: int, blocked: Collection[Cell],
              reactors: list[tuple[Cell, bool, bool]]) -> list[Cell] | None:
    """The long-move path of INV-4.6: fewest trigger events, then lowest cost, then smallest square sequence.

    `reactors` holds (square, counts_leave, counts_enter) for each eligible reactor fixed at the start of the
    move. A* on the key (triggers, cost, squares) with consistent lower bounds (one trigger per reactor whose
    nine-grid still has to be entered or left in a counted direction; Chebyshev distance for cost) pops the
    goal first with the exact minimum. Entries pop in trigger order, so a square reached again at no lower cost
    than the cheapest cost it was expanded at has no fewer triggers either: it is dominated and dropped (at the
    push and at the pop). Squares are searched as their numbers in `Grid` (x * height + y, which order like the
    squares themselves).
    """
    g = grid_of(setup, bf)
    num = g.num
    s = num[start]
    gl = num[goal]
    sx, sy = start
    # each relevant reactor is one bit; mask[c] = the reactors whose nine-grid holds square c
    mask = [0] * len(num)
    nine = g.nine
    lv_bits = en_bits = 0
    bit = 1
    for (rx, ry), lv, en in reactors:
        if max(abs(rx - sx), abs(ry - sy)) > mov + 1:
            continue  # too far to be entered or left by this move
        for c in nine[num[(rx, ry)]]:
            mask[c] |= bit
        if lv:
            lv_bits |= bit
        if en:
            en_bits |= bit
        bit <<= 1
    crow = g.cheb[gl]
    adj = g.padj
    # the cheapest cost each square was expanded at (blocked squares: never entered)
    best = [mov + 1] * len(mask)
    for sq in blocked:
        best[num[sq]] = -1
    push, pop = heapq.heappush, heapq.heappop
    # A child whose key bounds equal its parent's is the next entry to pop when it is the first such child (the
    # neighbours come in square order, so later ones have larger sequences, and every other entry has a larger
    # key or a sequence past the parent's): it is taken at once, without the heap.
    if bit > 1:
        g_mask = mask[gl]
        h_bits = (g_mask & en_bits) | (~g_mask & lv_bits)  # reactors whose crossing towards the goal counts
        heap: list[tuple[int, int, tuple[int, ...], int, int]] = []
        entry: tuple[int, int, tuple[int, ...], int, int] = (
            ((mask[s] ^ g_mask) & h_bits).bit_count(), crow[s], (s,), 0, 0)
        while True:
            ft, fc, seq, trig, cost = entry
            here = seq[-1]
            if here == gl:
                cell = g.cell
                return [cell[i] for i in seq[1:]]
            direct: tuple[int, int, tuple[int, ...], int, int] | None = None
            if cost < best[here]:
                best[here] = cost
                m_here = mask[here]
                h_here = ((m_here ^ g_mask) & h_bits).bit_count()
                for nxt, w in adj[here]:
                    c2 = cost + w
                    if c2 >= best[nxt]:
                        continue
                    fc2 = c2 + crow[nxt]
                    if fc2 > mov:
                        continue
                    m_nxt = mask[nxt]
                    if m_nxt == m_here:  # no nine-grid entered or left: no trigger on this step
                        t2 = trig
                        ft2 = trig + h_here
                    else:
                        t2 = (trig + (m_here & ~m_nxt & lv_bits).bit_count()
                              + (m_nxt & ~m_here & en_bits).bit_count())
                        ft2 = t2 + ((m_nxt ^ g_mask) & h_bits).bit_count()
                    if direct is None and ft2 == ft and fc2 == fc:
                        direct = (ft2, fc2, seq + (nxt,), t2, c2)
                    else:
                        push(heap, (ft2, fc2, seq + (nxt,), t2, c2))
            if direct is not None:
                entry = direct
            elif heap:
                entry = pop(heap)
            else:
                return None
    # no reactor in range: every trigger count is 0
    heap0: list[tuple[int, tuple[int, ...], int]] = []
    entry0: tuple[int, tuple[int, ...], int] = (crow[s], (s,), 0)
    while True:
        fc, seq, cost = entry0
        here = seq[-1]
        if here == gl:
            cell = g.cell
            return [cell[i] for i in seq[1:]]
        direct0: tuple[int, tuple[int, ...], int] | None = None
        if cost < best[here]:
            best[here] = cost
            for nxt, w in adj[here]:
                c2 = cost + w
                if c2 >= best[nxt]:
                    continue
                fc2 = c2 + crow[nxt]
                if fc2 > mov:
                    continue
                if direct0 is None and fc2 == fc:
                    direct0 = (fc2, seq + (nxt,), c2)
                else:
                    push(heap0, (fc2, seq + (nxt,), c2))
        if direct0 is not None:
            entry0 = direct0
        elif heap0:
            entry0 = pop(heap0)
        else:
            return None


def line_status(setup: Setup, st: InvState, a: Cell, b: Cell, ends: tuple[str, str]) -> str:
    """``blocked`` (a wall is crossed), ``obstructed`` (an obstacle or a standing body) or ``clear`` (INV-6.6)."""
    crossed = setup.crossed(a, b)
    if not crossed:
        return "clear"
    key = (a, b)
    by_terrain = setup.line_terrain.get(key)
    if by_terrain is None:  # static: "blocked" (a wall), "obstructed" (an obstacle) or ""
        terrain = setup.terrain
        kinds = {terrain.get(c) for c in crossed}
        by_terrain = setup.line_terrain[key] = ("blocked" if "wall" in kinds else
                                                "obstructed" if "obstacle" in kinds else "")
    if by_terrain:
        return by_terrain
    for f in st.fighters:
        if f.pos in crossed and f.id not in ends and not (f.dead or f.fled or f.prone or f.unconscious or f.dying):
            return "obstructed"
    return "clear"


def line_blocked(setup: Setup, a: Cell, b: Cell) -> bool:
    """Whether a wall blocks the line between `a` and `b`."""
    return setup.wall_between(a, b)
