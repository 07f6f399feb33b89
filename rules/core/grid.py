"""The compiled grid: a square or hex battlefield as bit masks, for reach, paths, sight, distances and areas.

The networkx `Battlefield` stays the source of truth (terrain, costs, sight blockers, doors, custom edges);
`Grid` reads it once per compiled encounter and answers the questions rules ask on every call with a
few integer operations. Cell ``(x, y)`` (hexes: ``(col, row)``, odd-r) is bit ``y * (width + 1) + x``:
each row has one spare guard bit after its last cell, never set in a mask of cells, so a shift that
leaves a row lands on a guard bit and falls out of the next ``&`` with real cells. Row-major bit order
is the order of `cells` (the grid's index of a cell).

Movement is a layered search in entering costs (positive integers, the node attribute ``cost``): layer
``d`` holds the cells whose cheapest path costs exactly ``d``. Neighbours are the graph's: cells whose
graph neighbours are exactly their lattice neighbours (8 on squares, 6 on hexes, less the cells that
cannot be entered) grow by shifts; any other cell (a wall-cut diagonal, a door edge, a custom edge) adds
its own neighbour mask. Systems supply the rest as masks: what a path may not enter (`blocked`), what
blocks sight (`clear(..., blockers=)`), and their own rules on top of the layers.

Tie-break of `path`: walking back from the goal, each step goes to the first neighbour, in the graph's
adjacency order, that lies in the layer of the cost before entering the current cell; so the path is one
of the cheapest, and always the same one for the same inputs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import accumulate
from operator import or_
from typing import TYPE_CHECKING, Generic, NamedTuple, TypeVar

from trpg_arena.rules.core.battlefield import bresenham, chebyshev, hex_distance, hex_line, to_axial

if TYPE_CHECKING:
    from trpg_arena.rules.core.battlefield import Battlefield

Cell = tuple[int, int]
Item = TypeVar("Item")
REACH_CACHE = 4096  # searches repeat within a decision, between a legal list and its move, and across search rollouts
LINE_CACHE = 65536


class Reach(NamedTuple):
    """A movement search: ``layers[d]`` = cells at cheapest cost exactly d, ``within[d]`` = at cost <= d.

    Both have ``budget + 1`` entries; the start is in ``layers[0]`` and in every ``within``.
    """

    layers: tuple[int, ...]
    within: tuple[int, ...]


_new_reach = tuple.__new__  # a `Reach` without the generated __new__'s keyword handling


class Grid:
    """A square (8-neighbour) or hex (odd-r) battlefield compiled to bit masks; see the module docstring."""

    def __init__(self, bf: Battlefield) -> None:
        if bf.kind not in ("square", "hex"):
            raise ValueError(f"a grid needs a square or hex battlefield, not {bf.kind!r}")
        g = bf.graph
        self.kind = bf.kind
        self.width = w = bf.width
        self.height = h = bf.height
        self.stride = s = w + 1
        self.cells: list[Cell] = [(x, y) for y in range(h) for x in range(w)]
        if set(g.nodes) != set(self.cells):
            raise ValueError(f"a {w} x {h} grid needs exactly the cells (x, y), 0 <= x < {w}, 0 <= y < {h}")
        self.index: dict[Cell, int] = {c: i for i, c in enumerate(self.cells)}
        self.pos: list[int] = [y * s + x for (x, y) in self.cells]
        self.bits: list[int] = [1 << p for p in self.pos]  # by cell index
        self.bit: dict[Cell, int] = dict(zip(self.cells, self.bits))
        self.all_bits = sum(self.bits)
        nodes = g.nodes
        self.cost: list[int] = [nodes[c].get("cost", 1) for c in self.cells]
        if any(not isinstance(k, int) or k < 1 for k in self.cost):
            raise ValueError("grid entering costs must be positive integers")
        # cells by entering cost above 1 (a layer's new cells of cost k join layer d + k)
        self.dearer: tuple[tuple[int, int], ...] = tuple(
            (k, sum(b for b, c in zip(self.bits, self.cost) if c == k)) for k in sorted(set(self.cost) - {1}))
        self.dear_bits = sum(m for _, m in self.dearer)
        self.two_bits = sum(m for k, m in self.dearer if k == 2)
        self.dearest = tuple((k, m) for k, m in self.dearer if k > 2)
        self.sight_blockers = sum(b for c, b in self.bit.items() if nodes[c].get("blocks_los", False))
        # graph neighbours by cell index, in the graph's adjacency order (the path tie-break), and as masks
        adj = g.adj
        self.neighbours: list[tuple[int, ...]] = [tuple(self.index[m] for m in adj[c]) for c in self.cells]
        self.neighbour_bits: list[tuple[tuple[int, int], ...]] = [
            tuple((j, self.bits[j]) for j in nbrs) for nbrs in self.neighbours]
        self.neighbour_mask: list[int] = [sum(b for _, b in nb) for nb in self.neighbour_bits]
        self.enterable = 0
        for m in self.neighbour_mask:
            self.enterable |= m
        # lattice shifts: hex rows alternate, so the shifted copies are picked by the rows they started in
        even_rows = sum(((1 << s) - 1) << (r * s) for r in range(0, h, 2))
        odd_rows = sum(((1 << s) - 1) << (r * s) for r in range(1, h, 2))
        self._even_right, self._odd_left = even_rows >> 1, odd_rows << 1
        self.plain = 0  # cells whose graph neighbours are their lattice neighbours that can be entered
        self.odd_neighbours = [0] * (s * h)  # by bit position: the neighbour mask of every other cell
        for i, b in enumerate(self.bits):
            if self._lattice(b) & ~b & self.enterable == self.neighbour_mask[i]:
                self.plain |= b
            else:
                self.odd_neighbours[self.pos[i]] = self.neighbour_mask[i]
        self.odd_bits = self.all_bits & ~self.plain
        self._reach: dict[tuple[Cell, int, int], Reach] = {}
        # what `reach` reads, in one attribute (its set-up is a fair part of a search's cost)
        self._search = (s, self.kind == "hex", self.odd_bits, self.odd_neighbours, self._even_right, self._odd_left,
                        self.dear_bits, self.two_bits, self.dearest, self.enterable)
        self._lines: dict[tuple[Cell, Cell], int] = {}
        self._dist: list[list[int]] | None = None

    # --- masks ------------------------------------------------------------------------------
    def mask(self, cells: Iterable[Cell | None]) -> int:
        """The mask of some cells (None is skipped)."""
        bit = self.bit
        m = 0
        for c in cells:
            if c is not None:
                m |= bit[c]
        return m

    def indices(self, mask: int) -> list[int]:
        """The cells of `mask` as ascending cell indices (row-major)."""
        out: list[int] = []
        full, s, w = (1 << self.width) - 1, self.stride, self.width
        base = 0
        while mask:
            row = mask & full
            if row:
                out.extend(base + x for x in range(w) if row >> x & 1)
            mask >>= s
            base += w
        return out

    def cells_of(self, mask: int) -> list[Cell]:
        """The cells of `mask`, row-major."""
        cells = self.cells
        return [cells[i] for i in self.indices(mask)]

    # --- neighbours and movement ------------------------------------------------------------
    def _lattice(self, x: int) -> int:
        """Every lattice neighbour of the cells of `x` (with guard bits and `x` itself; the caller masks)."""
        s = self.stride
        left, right = x >> 1, x << 1
        if self.kind == "square":
            row = x | left | right
            return row | (row << s) | (row >> s)
        v = x | (left & self._even_right) | (right & self._odd_left)
        return left | right | (v << s) | (v >> s)

    def expand(self, x: int) -> int:
        """The graph neighbours of the cells of `x`, as a mask (may include `x`'s own cells)."""
        odd = x & self.odd_bits
        if not odd:
            return self._lattice(x) & self.enterable
        out = self._lattice(x & ~odd) & self.enterable if x ^ odd else 0
        by_pos = self.odd_neighbours
        while odd:  # each odd cell of x adds its own neighbours
            low = odd & -odd
            out |= by_pos[low.bit_length() - 1]
            odd ^= low
        return out

    def reach(self, start: Cell, budget: int, blocked: int = 0) -> Reach:
        """Cheapest entering costs from `start` up to `budget`, avoiding the cells of `blocked` (cached).

        A cell is first seen from the cheapest layer that touches it (its entering cost does not depend on
        where it is entered from), so each cell is placed once, in its final layer.
        """
        key = (start, budget, blocked)
        hit = self._reach.get(key)
        if hit is not None:
            return hit
        sb = self.bit[start]
        s, hexes, odd_bits, odd_neighbours, even_right, odd_left, dear_bits, two, dearest, enterable = self._search
        avail = enterable & ~(sb | blocked)  # cells not yet placed that a path may enter
        x = sb  # layer d - 1
        layers = [sb]
        nxt = nxt2 = 0  # what is known so far of layers d and d + 1
        later: dict[int, int] = {}  # cells of entering cost 3 or more, by layer
        for d in range(1, budget + 1):
            if x and avail:
                # `expand`, inlined: this loop is what reach masks cost
                odd = x & odd_bits
                extra = 0
                if odd:  # odd cells add their own neighbours; the rest grow by the lattice shifts
                    x ^= odd
                    while odd:
                        low = odd & -odd
                        extra |= odd_neighbours[low.bit_length() - 1]
                        odd ^= low
                if hexes:
                    left, right = x >> 1, x << 1
                    v = x | (left & even_right) | (right & odd_left)
                    new = (left | right | (v << s) | (v >> s) | extra) & avail  # avail: enterable cells only
                else:
                    row = x | (x >> 1) | (x << 1)
                    new = (row | (row << s) | (row >> s) | extra) & avail
                if new:
                    avail ^= new
                    dear = new & dear_bits
                    if dear:
                        nxt |= new ^ dear
                        nxt2 |= dear & two
                        for k, m in dearest:
                            if dear & m:
                                later[d - 1 + k] = later.get(d - 1 + k, 0) | (dear & m)
                    else:
                        nxt |= new
            elif not x and not nxt and not later:  # nothing more can be reached: the later layers are empty
                layers.extend([0] * (budget + 1 - d))
                break
            x = nxt | later.pop(d, 0) if later else nxt
            nxt, nxt2 = nxt2, 0
            layers.append(x)
        hit = _new_reach(Reach, (tuple(layers), tuple(accumulate(layers, or_))))
        if len(self._reach) >= REACH_CACHE:
            self._reach.clear()
        self._reach[key] = hit
        return hit

    def cost_in(self, found: Reach, goal: Cell) -> int | None:
        """The cheapest cost of `goal` in a search, or None when it was not reached."""
        b = self.bit[goal]
        if not found.within[-1] & b:
            return None
        d = 0
        layers = found.layers
        while not layers[d] & b:
            d += 1
        return d

    def path(self, start: Cell, goal: Cell, budget: int, blocked: int = 0) -> tuple[list[Cell], int] | None:
        """A cheapest path from `start` to `goal` (both included) and its cost, or None (module tie-break)."""
        found = self.reach(start, budget, blocked)
        total = self.cost_in(found, goal)
        if total is None:
            return None
        layers, cells, cost, nbrs = found.layers, self.cells, self.cost, self.neighbour_bits
        g = self.index[goal]
        out = [goal]
        d = total
        while d:
            d -= cost[g]
            m = layers[d]
            for j, b in nbrs[g]:
                if m & b:
                    g = j
                    break
            out.append(cells[g])
        out.reverse()
        return out, total

    def path_cost(self, path: Sequence[Cell]) -> int:
        """The sum of the entering costs of a path's cells after the first."""
        cost, index = self.cost, self.index
        return sum(cost[index[c]] for c in path[1:])

    # --- metric, sight and areas ------------------------------------------------------------
    def distance(self, a: Cell, b: Cell) -> int:
        """The board's metric: Chebyshev on squares, hex distance on hexes (walls and costs ignored)."""
        index = self.index
        return (self._dist or self.distances)[index[a]][index[b]]

    @property
    def distances(self) -> list[list[int]]:
        """``distances[i][j]``: `distance` between the cells of indices i and j (built on first use)."""
        table = self._dist
        if table is None:
            cells = self.cells
            metric = chebyshev if self.kind == "square" else hex_distance
            table = self._dist = [[metric(a, b) for b in cells] for a in cells]
        return table

    def between(self, a: Cell, b: Cell) -> int:
        """The cells strictly between `a` and `b` on the board's line (Bresenham / hex line), as a mask."""
        key = (a, b)
        hit = self._lines.get(key)
        if hit is None:
            line = bresenham(a, b) if self.kind == "square" else hex_line(a, b)
            bit = self.bit
            hit = 0
            for c in line[1:-1]:
                hit |= bit.get(c, 0)
            if len(self._lines) >= LINE_CACHE:
                self._lines.clear()
            self._lines[key] = hit
        return hit

    def clear(self, a: Cell, b: Cell, blockers: int | None = None) -> bool:
        """Line of sight: no cell strictly between blocks (default blockers: the ``blocks_los`` cells)."""
        return not self.between(a, b) & (self.sight_blockers if blockers is None else blockers)

    def disc(self, centre: Cell, radius: int) -> int:
        """Every cell within `radius` of `centre` in the board's metric, as a mask."""
        bit = self.bit
        m = 0
        if self.kind == "square":
            x0, y0 = centre
            for y in range(y0 - radius, y0 + radius + 1):
                for x in range(x0 - radius, x0 + radius + 1):
                    m |= bit.get((x, y), 0)
            return m
        q0, r0 = to_axial(centre)
        for dq in range(-radius, radius + 1):
            for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
                r = r0 + dr
                m |= bit.get((q0 + dq + (r - (r & 1)) // 2, r), 0)
        return m

    def in_sight(self, here: Cell, radius: int, blockers: int | None = None) -> int:
        """The cells within `radius` of `here` with a clear line from it, as a mask."""
        row = self.distances[self.index[here]]
        m = 0
        for i, c in enumerate(self.cells):
            if row[i] <= radius and self.clear(here, c, blockers):
                m |= self.bits[i]
        return m


class Picker(Generic[Item]):
    """Reads a mask back as the items of its cells (one item per cell index), in cell order.

    Legal lists name one prebuilt action per destination cell; a picker turns a reach mask into that list a
    byte at a time: per byte of the mask, the items of its set bits are memoised by the byte's value.
    """

    def __init__(self, grid: Grid, items: Sequence[Item]) -> None:
        self.nbytes = (grid.stride * grid.height + 7) // 8
        self.at: dict[int, Item] = {p: items[i] for i, p in enumerate(grid.pos)}  # by bit position (guards: none)
        self.tables: list[list[tuple[Item, ...] | None]] = [[None] * 256 for _ in range(self.nbytes)]

    def extend(self, out: list[Item], mask: int) -> None:
        """Append the items of `mask`'s cells to `out`, ascending."""
        j = 0
        for table, b in zip(self.tables, mask.to_bytes(self.nbytes, "little")):
            if b:
                out += table[b] or self._byte(j, b)
            j += 1

    def _byte(self, j: int, b: int) -> tuple[Item, ...]:
        """The items of the set bits of byte `j` holding `b` (memoised; never empty: a cell's bit is set)."""
        at = self.at
        hit = self.tables[j][b] = tuple(at[8 * j + k] for k in range(8) if b >> k & 1)
        return hit
