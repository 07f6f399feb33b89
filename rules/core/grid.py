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

Tie-break of `path`: walking back from the goal, each step goes to the first neighbour, in the read-back
order (the graph's adjacency order unless a `Moves` names one), that lies in the layer of the cost before
entering the current cell; so the path is one of the cheapest, and always the same one for the same inputs.

Hooks for a system's movement rules, all optional (the defaults are the graph's):
- `Moves`, compiled once per rule (a cost mode): entering costs per cell instead of the ``cost`` attributes,
  the read-back order as steps ``(dx, dy)``, and the alternating diagonal rule of squares (every second
  diagonal step of one movement costs 1 more; searched over (cell, parity) pairs).
- ``corners``, per call (a state's closed doors, say): cells that no diagonal step may pass, as a mask. A
  diagonal between two orthogonal neighbours of such a cell is left out, as `square_grid`'s
  ``corner_blocks`` leaves it out of the graph for good.
- ``blocked``, per call: cells a path may not enter.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from itertools import accumulate
from operator import or_
from typing import TYPE_CHECKING, Generic, NamedTuple, TypeVar

from trpg_arena.rules.core.battlefield import bresenham, chebyshev, crossed_squares, hex_distance, hex_line, to_axial
from trpg_arena.rules.core.values import remember

if TYPE_CHECKING:
    from trpg_arena.rules.core.battlefield import Battlefield

Cell = tuple[int, int]
Item = TypeVar("Item")
REACH_CACHE = 20000  # searches repeat within a decision, between a legal list and its move, across rollouts and games
LINE_CACHE = 65536


class Reach(NamedTuple):
    """A movement search: ``layers[d]`` = cells at cheapest cost exactly d, ``within[d]`` = at cost <= d.

    Both have ``budget + 1`` entries; the start is in ``layers[0]`` and in every ``within``.
    """

    layers: tuple[int, ...]
    within: tuple[int, ...]


_new_reach = tuple.__new__  # a `Reach` without the generated __new__'s keyword handling
# an alternating search: layers, each reached cell's best (cell, parity) state, each state's predecessor state
Alternated = tuple[list[int], dict[int, int], dict[int, int]]
DIAGONALS: tuple[Cell, ...] = ((1, 1), (-1, 1), (-1, -1), (1, -1))  # SE, SW, NW, NE: the order of `Adjacency.diagonals`


class Adjacency(NamedTuple):
    """How cells grow into their neighbours: by lattice shifts, or (odd cells) by their own neighbour masks.

    On squares a diagonal step left out of the graph (a wall's corner, a corner blocker) does not make a cell
    odd: `diagonals` holds, per direction SE, SW, NW, NE, the cells whose step that way is kept, and the
    cells of `cornered` (some diagonal left out) grow by the eight shifts instead of their 3 x 3 block.
    """

    odd_bits: int  # cells that grow by their own neighbour masks
    odd_neighbours: list[int]  # those masks, by bit position
    neighbour_mask: list[int]  # every cell's neighbour mask, by cell index (path read-back)
    diagonals: tuple[int, int, int, int]  # squares: cells whose diagonal step is kept, per direction
    cornered: int  # squares: cells with a diagonal step left out


class Moves:
    """One way of moving on a grid (a system's cost mode), compiled once and passed to `Grid.reach`/`path`.

    `costs`: the entering cost of each cell (positive integers; None or a missing cell: cannot be entered),
    by default the graph's ``cost`` attributes. A cell without edges cannot be entered whatever its cost.
    `order`: steps ``(dx, dy)``, from a cell to the next cell of a path, in the order the path read-back tries
    a cell's predecessors (and the alternating search expands a cell's neighbours); neighbours that no step
    of the list reaches (custom edges) come after them, in the graph's order. Default: the graph's order.
    `alternating` (squares only): every second diagonal step of one movement costs 1 more; such searches
    are exact Dijkstra searches over (cell, parity of diagonals so far), ties broken by fewer steps, then
    by the first found in `order`.
    """

    def __init__(self, grid: Grid, costs: Mapping[Cell, int | None] | None = None, *,
                 order: Sequence[Cell] | None = None, alternating: bool = False) -> None:
        if alternating and grid.kind != "square":
            raise ValueError("the alternating diagonal rule needs a square grid")
        if costs is None:
            cost = list(grid.cost)
        else:
            cost = [costs.get(c) or 0 for c in grid.cells]
            if any(not isinstance(k, int) or k < 0 for k in cost):
                raise ValueError("grid entering costs must be positive integers (None: cannot be entered)")
        self.cost: list[int] = cost  # by cell index; 0: cannot be entered
        bits = grid.bits
        self.enterable = grid.enterable & sum(b for b, k in zip(bits, cost) if k)
        # cells by entering cost above 1 (a layer's new cells of cost k join layer d + k)
        dearer = tuple((k, sum(b for b, c in zip(bits, cost) if c == k)) for k in sorted(set(cost) - {0, 1}))
        self.dear_bits = sum(m for _, m in dearer)
        self.two_bits = sum(m for k, m in dearer if k == 2)
        self.dearest = tuple((k, m) for k, m in dearer if k > 2)
        self.top_cost = max(cost, default=1)  # an unbounded search's bound: no path costs more than cells x this
        self.alternating = alternating
        # each cell's graph neighbours as (index, bit): by the step from them (read-back) and to them (expansion)
        if order is None:
            self.ordered = self.forward = grid.neighbour_bits
        else:
            rank = {step: i for i, step in enumerate(order)}
            self.ordered = [_sorted_by_step(grid, i, rank, -1) for i in range(len(grid.cells))]
            self.forward = [_sorted_by_step(grid, i, rank, 1) for i in range(len(grid.cells))]


def _sorted_by_step(grid: Grid, i: int, rank: dict[Cell, int], sign: int) -> tuple[tuple[int, int], ...]:
    """Cell i's neighbours by the rank of the step from them to it (sign -1) or from it to them (sign 1)."""
    x, y = grid.cells[i]
    last = len(rank)

    def key(jb: tuple[int, int]) -> int:
        nx_, ny = grid.cells[jb[0]]
        return rank.get((sign * (nx_ - x), sign * (ny - y)), last)

    return tuple(sorted(grid.neighbour_bits[i], key=key))


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
        self.index_at: list[int] = [-1] * (s * h)  # by bit position: the cell index (guard bits: -1)
        for i, p in enumerate(self.pos):
            self.index_at[p] = i
        self.all_bits = sum(self.bits)
        nodes = g.nodes
        self.cost: list[int] = [nodes[c].get("cost", 1) for c in self.cells]
        if any(not isinstance(k, int) or k < 1 for k in self.cost):
            raise ValueError("grid entering costs must be positive integers")
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
        # squares: per diagonal direction, the cells whose step that way is an edge or leads to no enterable
        # cell (kept: the shift is masked anyway); a cell with an enterable diagonal neighbour but no edge to it
        # is cornered
        kept = [0, 0, 0, 0]
        cornered = 0
        if self.kind == "square":
            for i, (x, y) in enumerate(self.cells):
                for k, (dx, dy) in enumerate(DIAGONALS):
                    j = self.index.get((x + dx, y + dy))
                    if j is None:
                        continue
                    if self.neighbour_mask[i] & self.bits[j] or not self.bits[j] & self.enterable:
                        kept[k] |= self.bits[i]
                    else:
                        cornered |= self.bits[i]
        diagonals = (kept[0], kept[1], kept[2], kept[3])
        self.plain = 0  # cells whose graph neighbours are their (kept) lattice neighbours that can be entered
        self.odd_neighbours = [0] * (s * h)  # by bit position: the neighbour mask of every other cell
        for i, b in enumerate(self.bits):
            if self._grow(b, diagonals, cornered) & ~b & self.enterable == self.neighbour_mask[i]:
                self.plain |= b
            else:
                self.odd_neighbours[self.pos[i]] = self.neighbour_mask[i]
        self.odd_bits = self.all_bits & ~self.plain
        self.moves = Moves(self)  # the graph's own costs and order
        self._reach: dict[tuple[Cell, int | None, int, Moves, int], Reach] = {}
        self._alternating: dict[tuple[Cell, int, Moves, int], Alternated] = {}
        self._adjacency: dict[int, Adjacency] = {  # by corner mask
            0: Adjacency(self.odd_bits, self.odd_neighbours, self.neighbour_mask, diagonals, cornered)}
        self._lines: dict[tuple[Cell, Cell], int] = {}  # hexes: the cells between two cells, by the pair
        self._patterns: dict[int, int] = {}  # squares: the cells between, by offset (see `between`)
        self._crossings: dict[int, int] = {}  # squares: the cells a segment crosses, by offset (see `crossing`)
        self._crossed: dict[tuple[Cell, Cell], int] = {}  # and by the pair
        self._offset_rows = 2 * h + 1  # offsets (dx, dy) as one int: dx * this + dy
        self._dist: list[list[int]] | None = None
        self._discs: dict[tuple[Cell, int], int] = {}
        self._seen: dict[tuple[Cell, int, int], int] = {}

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
        if mask.bit_count() <= 12:  # sparse: peel the lowest bit
            at = self.index_at
            out = []
            while mask:
                low = mask & -mask
                out.append(at[low.bit_length() - 1])
                mask ^= low
            return out
        out = []
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

    def _grow(self, x: int, diagonals: tuple[int, int, int, int], cornered: int) -> int:
        """`_lattice` with the diagonal steps of `diagonals` only, for the cornered cells of `x` (squares)."""
        if not x & cornered:
            return self._lattice(x)
        s = self.stride
        se, sw, nw, ne = diagonals
        return (x | x << 1 | x >> 1 | x << s | x >> s | (x & se) << (s + 1) | (x & sw) << (s - 1)
                | (x & nw) >> (s + 1) | (x & ne) >> (s - 1))

    def corner_cut(self, corners: int) -> Adjacency:
        """The adjacency with no diagonal step past a cell of `corners` (squares; cached per mask)."""
        hit = self._adjacency.get(corners)
        if hit is None:
            if self.kind != "square":
                raise ValueError("corner blockers need a square grid")
            base = self._adjacency[0]
            s = self.stride
            east, west, south, north = corners >> 1, corners << 1, corners >> s, corners << s  # c + step in corners
            cut = (east | south, west | south, west | north, east | north)  # SE, SW, NW, NE: a corner in the way
            diagonals = (base.diagonals[0] & ~cut[0], base.diagonals[1] & ~cut[1], base.diagonals[2] & ~cut[2],
                         base.diagonals[3] & ~cut[3])
            cornered = base.cornered
            for k in range(4):
                cornered |= base.diagonals[k] & cut[k] & self.all_bits
            by_pos, nmask = list(base.odd_neighbours), list(base.neighbour_mask)
            index, bits, pos, odd_bits = self.index, self.bits, self.pos, base.odd_bits
            for x, y in self.cells_of(corners):  # a corner cell cuts the diagonals between its orthogonal neighbours
                for a, b in (((x + 1, y), (x, y + 1)), ((x + 1, y), (x, y - 1)), ((x - 1, y), (x, y + 1)),
                             ((x - 1, y), (x, y - 1))):
                    i, j = index.get(a), index.get(b)
                    if i is None or j is None or not nmask[i] & bits[j]:
                        continue
                    nmask[i] &= ~bits[j]
                    nmask[j] &= ~bits[i]
                    for k in (i, j):
                        if odd_bits & bits[k]:  # plain cells take the cut from `diagonals`
                            by_pos[pos[k]] = nmask[k]
            hit = self._adjacency[corners] = Adjacency(odd_bits, by_pos, nmask, diagonals, cornered)
        return hit

    def reach(self, start: Cell, budget: int | None, blocked: int = 0, moves: Moves | None = None,
              corners: int = 0) -> Reach:
        """Cheapest entering costs from `start` up to `budget`, avoiding the cells of `blocked` (cached).

        `budget` None: every reachable cell, and the layers end at the dearest one. `moves` and `corners`:
        see the module docstring. A cell is first seen from the cheapest layer that touches it (its entering
        cost does not depend on where it is entered from), so each cell is placed once, in its final layer.
        """
        if moves is None:
            moves = self.moves
        key = (start, budget, blocked, moves, corners)
        hit = self._reach.get(key)
        if hit is not None:
            return hit
        if moves.alternating:
            layers = self._alternate(start, blocked, moves, corners)[0]
            if budget is not None:
                layers = (layers + [0] * budget)[:budget + 1]
        else:
            layers = self._layers(start, budget, blocked, moves, corners)
        hit = _new_reach(Reach, (tuple(layers), tuple(accumulate(layers, or_))))
        return remember(self._reach, key, hit, REACH_CACHE)

    def _layers(self, start: Cell, budget: int | None, blocked: int, moves: Moves, corners: int) -> list[int]:
        """The layers of `reach` (budget None: up to the last non-empty one)."""
        sb = self.bit[start]
        s, hexes, even_right, odd_left = self.stride, self.kind == "hex", self._even_right, self._odd_left
        odd_bits, odd_neighbours, _, (se, sw, nw, ne), cornered = self._adjacency.get(corners) or self.corner_cut(
            corners)
        s1, s2 = s + 1, s - 1
        dear_bits, two, dearest = moves.dear_bits, moves.two_bits, moves.dearest
        avail = moves.enterable & ~(sb | blocked)  # cells not yet placed that a path may enter
        x = sb  # layer d - 1
        layers = [sb]
        nxt = nxt2 = 0  # what is known so far of layers d and d + 1
        later: dict[int, int] = {}  # cells of entering cost 3 or more, by layer
        top = len(self.cells) * moves.top_cost if budget is None else budget  # >= any path's cost
        for d in range(1, top + 1):
            if x and avail:
                # a layer's graph neighbours as a mask, inline: this loop is what reach masks cost
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
                elif x & cornered:  # a diagonal left out: the eight shifts, diagonals from the cells that keep them
                    new = (x << 1 | x >> 1 | x << s | x >> s | (x & se) << s1 | (x & sw) << s2 | (x & nw) >> s1
                           | (x & ne) >> s2 | extra) & avail
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
                if budget is not None:
                    layers.extend([0] * (budget + 1 - d))
                break
            x = nxt | later.pop(d, 0) if later else nxt
            nxt, nxt2 = nxt2, 0
            layers.append(x)
        if budget is None:
            while not layers[-1]:  # the start's layer is never empty
                layers.pop()
        return layers

    def _alternate(self, start: Cell, blocked: int, moves: Moves, corners: int) -> Alternated:
        """Every reachable cell under the alternating diagonal rule: (layers, each cell's best state, predecessors).

        A Dijkstra search over (cell, parity of the diagonal steps so far) on (cost, steps), neighbours in
        `moves.forward` order, a state's predecessor the first that reached it best; a cell takes its best
        state, the first found among equals (cached per start, blockers, moves and corners).
        """
        key = (start, blocked, moves, corners)
        hit = self._alternating.get(key)
        if hit is not None:
            return hit
        nmask = (self._adjacency.get(corners) or self.corner_cut(corners)).neighbour_mask
        cost, forward, bits, cells = moves.cost, moves.forward, self.bits, self.cells
        enter = moves.enterable & ~blocked
        s0 = 2 * self.index[start]  # a state is 2 * cell index + parity
        best: dict[int, tuple[int, int]] = {s0: (0, 0)}
        pred: dict[int, int] = {}
        heap: list[tuple[int, int, int, int]] = [(0, 0, 0, s0)]
        seq = 1
        done: set[int] = set()
        while heap:
            dist, steps, _, state = heapq.heappop(heap)
            if state in done:
                continue
            done.add(state)
            i, par = state >> 1, state & 1
            x, y = cells[i]
            for j, b in forward[i]:
                if not enter & b or not nmask[i] & b:
                    continue
                step, npar = cost[j], par
                nx_, ny = cells[j]
                if nx_ != x and ny != y and abs(nx_ - x) == 1 and abs(ny - y) == 1:  # a diagonal step
                    step += par
                    npar = 1 - par
                nstate = 2 * j + npar
                val = (dist + step, steps + 1)
                old = best.get(nstate)
                if old is None or val < old:
                    best[nstate] = val
                    pred[nstate] = state
                    heapq.heappush(heap, (val[0], val[1], seq, nstate))
                    seq += 1
        chosen: dict[int, tuple[int, int, int]] = {}  # cell -> (cost, steps, state)
        for state, (dist, steps) in best.items():
            prev = chosen.get(state >> 1)
            if prev is None or (dist, steps) < prev[:2]:
                chosen[state >> 1] = (dist, steps, state)
        layers = [0] * (max(v[0] for v in chosen.values()) + 1)
        for i, (dist, _, _) in chosen.items():
            layers[dist] |= bits[i]
        return remember(self._alternating, key, (layers, {i: state for i, (_, _, state) in chosen.items()}, pred),
                        REACH_CACHE)

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

    def path(self, start: Cell, goal: Cell, budget: int | None, blocked: int = 0, moves: Moves | None = None,
             corners: int = 0) -> tuple[list[Cell], int] | None:
        """A cheapest path from `start` to `goal` (both included) and its cost, or None (module tie-break)."""
        if moves is None:
            moves = self.moves
        found = self.reach(start, budget, blocked, moves, corners)
        total = self.cost_in(found, goal)
        if total is None:
            return None
        cells = self.cells
        if moves.alternating:
            return self._alternating_path(start, goal, blocked, moves, corners), total
        layers, cost, nbrs = found.layers, moves.cost, moves.ordered
        nmask = (self._adjacency.get(corners) or self.corner_cut(corners)).neighbour_mask
        g = self.index[goal]
        out = [goal]
        d = total
        while d:
            d -= cost[g]
            m = layers[d] & nmask[g]
            for j, b in nbrs[g]:
                if m & b:
                    g = j
                    break
            out.append(cells[g])
        out.reverse()
        return out, total

    def _alternating_path(self, start: Cell, goal: Cell, blocked: int, moves: Moves, corners: int) -> list[Cell]:
        """The path of an alternating search: the goal's best state, followed back through its predecessors."""
        _, chosen, pred = self._alternate(start, blocked, moves, corners)
        cells = self.cells
        state = chosen[self.index[goal]]
        out = [goal]
        while state in pred:
            state = pred[state]
            out.append(cells[state >> 1])
        out.reverse()
        return out

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
        """The cells strictly between `a` and `b` on the board's line (Bresenham / hex line), as a mask.

        A Bresenham line depends only on the offset ``b - a``: on squares its inner cells are kept once per
        offset, relative to the line's lower corner, and shifted onto that corner's bit (hex lines: per pair).
        """
        ax, ay = a
        bx, by = b
        if self.kind == "square":
            key = (bx - ax) * self._offset_rows + by - ay
            pat = self._patterns.get(key)
            if pat is None:
                pat = self._patterns[key] = self._pattern(a, b, bresenham(a, b)[1:-1])
            return pat << ((ay if ay < by else by) * self.stride + (ax if ax < bx else bx))
        hit = self._lines.get((a, b))
        if hit is None:
            bit = self.bit
            hit = 0
            for c in hex_line(a, b)[1:-1]:
                hit |= bit.get(c, 0)
            remember(self._lines, (a, b), hit, LINE_CACHE)
        return hit

    def _pattern(self, a: Cell, b: Cell, line: Iterable[Cell]) -> int:
        """The cells of a line from `a` to `b` (in their box), as a mask relative to (min x, min y)."""
        x0, y0 = min(a[0], b[0]), min(a[1], b[1])
        s = self.stride
        pat = 0
        for x, y in line:
            pat |= 1 << ((y - y0) * s + x - x0)
        return pat

    def crossing(self, a: Cell, b: Cell) -> int:
        """The squares the segment between the centres of `a` and `b` crosses (`crossed_squares`), as a mask.

        Squares only: the other line of sight, for rules that read a line as a segment. Kept by the pair, and
        once per offset for the pairs of that offset: shifting both ends by whole squares shifts every clipping
        bound alike, and `crossed_squares` decides by coordinates relative to the start, so the squares crossed
        depend on the offset alone (`tests/kernel/test_grid.py` compares shifted lines with lines drawn in place).
        """
        hit = self._crossed.get((a, b))
        if hit is None:
            if self.kind != "square":
                raise ValueError("a segment's crossed squares need a square grid")
            (ax, ay), (bx, by) = a, b
            key = (bx - ax) * self._offset_rows + by - ay
            pat = self._crossings.get(key)
            if pat is None:
                pat = self._crossings[key] = self._pattern(a, b, crossed_squares(a, b))
            hit = pat << ((ay if ay < by else by) * self.stride + (ax if ax < bx else bx))
            remember(self._crossed, (a, b), hit, LINE_CACHE)
        return hit

    def clear(self, a: Cell, b: Cell, blockers: int | None = None) -> bool:
        """Line of sight: no cell strictly between blocks (default blockers: the ``blocks_los`` cells)."""
        return not self.between(a, b) & (self.sight_blockers if blockers is None else blockers)

    def disc(self, centre: Cell, radius: int) -> int:
        """Every cell within `radius` of `centre` in the board's metric, as a mask (cached)."""
        key = (centre, radius)
        hit = self._discs.get(key)
        if hit is None:
            hit = self._discs[key] = self._disc(centre, radius)
        return hit

    def _disc(self, centre: Cell, radius: int) -> int:
        bit = self.bit
        m = 0
        if self.kind == "square":  # a square clipped to the board: one run of bits per row
            x0, y0 = centre
            lo, hi = max(0, x0 - radius), min(self.width - 1, x0 + radius)
            if lo > hi:
                return 0
            run = ((1 << (hi - lo + 1)) - 1) << lo
            for y in range(max(0, y0 - radius), min(self.height - 1, y0 + radius) + 1):
                m |= run << (y * self.stride)
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


    def seen_from(self, target: Cell, radius: int, blockers: int | None = None) -> int:
        """The cells within `radius` of `target` whose line *to* `target` is clear, as a mask (cached).

        Lines are drawn from each cell to the target: Bresenham lines are not symmetric, so this differs
        from `in_sight(target, ...)` where a system draws its lines from the acting cell.
        """
        if blockers is None:
            blockers = self.sight_blockers
        key = (target, radius, blockers)
        hit = self._seen.get(key)
        if hit is None:
            hit = 0
            bits, clear = self.bits, self.clear
            for i in self.indices(self.disc(target, radius)):
                if clear(self.cells[i], target, blockers):
                    hit |= bits[i]
            remember(self._seen, key, hit, LINE_CACHE)
        return hit


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
