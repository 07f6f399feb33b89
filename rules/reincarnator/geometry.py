"""The 1 m square battlefield (section 5): terrain, deterministic path planning, sight, knockback.

Paths minimise cost, then steps, expanding neighbours E, S, W, N, SE, SW, NW, NE and keeping the
first-found predecessor (section 5). Searches are cached on the battlefield keyed by start, the
blocked set, the closed doors and the cost mode, so an unchanged situation is never searched twice.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable
from typing import Any

from trpg_arena.rules.core.battlefield import Battlefield, bresenham, square_grid
from trpg_arena.rules.reincarnator.encounter import ReincarnatorEncounter
from trpg_arena.rules.reincarnator.interned import act

Cell = tuple[int, int]
DIRS: tuple[Cell, ...] = ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))
BYTE_BITS: tuple[tuple[int, ...], ...] = tuple(tuple(b for b in range(8) if v >> b & 1) for v in range(256))
Search = tuple[dict[Cell, tuple[int, int, Hashable]], dict[Hashable, Hashable]]


class ReiBattlefield(Battlefield):
    """A square grid with the reincarnator movement rules precomputed."""

    def __init__(self, enc: ReincarnatorEncounter) -> None:
        w, h = enc.map.width, enc.map.height
        attrs: dict[Cell, dict[str, Any]] = {}
        for cs in enc.map.cells:
            for c in cs.cells():
                a = attrs.setdefault(c, {})
                if cs.terrain is not None:
                    a["terrain"] = cs.terrain
                if cs.door is not None:
                    a["door"] = cs.door
                if cs.object is not None:
                    a["object"] = cs.object.model_dump()
                    a["blocks_los"] = cs.object.blocks_los
                if cs.exit is not None:
                    a["exit"] = cs.exit
        for a in attrs.values():
            if a.get("terrain") == "wall":
                a["blocks_los"] = True
            a["cost"] = 2 if a.get("terrain") in ("difficult", "climbable") else 1
        g = square_grid(w, h, attrs, impassable=lambda a: a.get("terrain") == "wall" or "object" in a).graph
        super().__init__(g, "square")
        self.terrain: dict[Cell, str] = {}
        self.objects: dict[Cell, dict[str, Any]] = {}
        self.doors0: dict[Cell, str] = {}
        self.exits: set[Cell] = set()
        for y in range(h):
            for x in range(w):
                a = g.nodes[(x, y)]
                self.terrain[(x, y)] = a.get("terrain", "open")
                if "object" in a:
                    self.objects[(x, y)] = a["object"]
                if "door" in a:
                    self.doors0[(x, y)] = a["door"]
                edge = x in (0, w - 1) or y in (0, h - 1)
                if a.get("exit", edge and enc.map.edge_exits):
                    self.exits.add((x, y))
        # cells that never can be entered, and those that stop diagonal corner cutting (with closed doors)
        self.solid: frozenset[Cell] = frozenset(c for c, t in self.terrain.items() if t == "wall") | frozenset(
            self.objects)
        self.cells: list[Cell] = [(x, y) for y in range(h) for x in range(w)]
        self.nbrs: dict[Cell, list[tuple[Cell, bool, Cell, Cell]]] = {}
        for c in self.cells:
            out = []
            for dx, dy in DIRS:
                n = (c[0] + dx, c[1] + dy)
                if 0 <= n[0] < w and 0 <= n[1] < h and n not in self.solid:
                    out.append((n, bool(dx and dy), (c[0] + dx, c[1]), (c[0], c[1] + dy)))
            self.nbrs[c] = out
        edges = frozenset((c, x[0]) for c, xs in self.nbrs.items() for x in xs)
        # path read-back: the possible predecessors of each cell in DIRS order, with the corner cells of a diagonal
        self.preds: dict[Cell, list[tuple[Cell, int, Cell | None, Cell | None]]] = {}
        self.costs: dict[str, dict[Cell, int | None]] = {}
        for mode in ("walk", "walk_i", "climb", "climb_i", "forced"):
            table: dict[Cell, int | None] = {}
            for c, t in self.terrain.items():
                if c in self.solid:
                    table[c] = None
                elif t == "difficult":
                    table[c] = 1 if mode.endswith("_i") or mode == "forced" else 2
                elif t == "climbable":
                    table[c] = 2 if mode.startswith("climb") else None
                elif t == "gap":
                    table[c] = 1 if mode.startswith("climb") else None
                else:
                    table[c] = 1
            self.costs[mode] = table
        self.has_climb = any(t in ("climbable", "gap") for t in self.terrain.values())
        self.door_cells: list[Cell] = sorted(self.doors0, key=lambda c: (c[1], c[0]))
        self._near: dict[Cell, list[tuple[Cell, dict[str, Any]]]] = {}
        for c in self.cells:
            self._near[c] = [(n, self.objects[n]) for n in ((c[0] + dx, c[1] + dy) for dx, dy in DIRS)
                             if n in self.objects]
        self.search_cache: dict[Hashable, Search] = {}
        self.visibility = enc.map.visibility_m
        from trpg_arena.rules.reincarnator.data import build_static

        self.static = build_static(enc)  # the system's compiled tables (`ReincarnatorSystem.compile`)
        # bitsets: bit y * stride + x; the padding column x = width stops horizontal wrap-around
        self.stride = s = w + 1
        self.index: dict[Cell, int] = {c: c[1] * s + c[0] for c in self.cells}
        self.cell_at: dict[int, Cell] = {i: c for c, i in self.index.items()}
        self.bit: dict[Cell, int] = {c: 1 << i for c, i in self.index.items()}
        self.valid = sum(self.bit.values())
        for c in self.cells:
            lst: list[tuple[Cell, int, Cell | None, Cell | None]] = []
            for dx, dy in DIRS:
                n = (c[0] - dx, c[1] - dy)
                if n in self.bit and (n, c) in edges:
                    if dx and dy:
                        lst.append((n, self.bit[n], (n[0] + dx, n[1]), (n[0], n[1] + dy)))
                    else:
                        lst.append((n, self.bit[n], None, None))
            self.preds[c] = lst
        self.solid_mask = sum(self.bit[c] for c in self.solid)
        self.climb_mask = sum(self.bit[c] for c, t in self.terrain.items() if t in ("gap", "climbable"))
        self.gap_mask = sum(self.bit[c] for c, t in self.terrain.items() if t == "gap")
        self.enter1: dict[str, int] = {}
        self.enter2: dict[str, int] = {}
        for mode, table in self.costs.items():
            self.enter1[mode] = sum(self.bit[c] for c, k in table.items() if k == 1)
            self.enter2[mode] = sum(self.bit[c] for c, k in table.items() if k == 2)
        self.layer_cache: dict[Hashable, tuple[int, ...]] = {}
        self._diag_cache: dict[frozenset[Cell], tuple[tuple[tuple[int, int], ...], int]] = {}
        self._actions: dict[str, list[Any]] = {}
        # finished action lists (charges) keyed by what they depend on, as tuples of interned actions; the caches
        # below prefer int keys and int tuples, which the garbage collector does not keep traversing
        self.list_memo: dict[Hashable, tuple[Any, ...]] = {}
        self._offset_actions: dict[tuple[Any, ...], Any] = {}
        self._dest_memo: dict[str, dict[int, tuple[Any, ...]]] = {}  # verb -> mask -> its actions
        self._row_actions: dict[str, dict[int, tuple[Any, ...]]] = {}  # verb -> (row << stride | bits) -> actions
        self._corner_blockers: dict[frozenset[Cell], frozenset[Cell]] = {}  # closed doors -> cells no diagonal cuts
        self._discs: dict[tuple[Cell, int], int] = {}
        self._line_pats: dict[int, int] = {}  # (dx * 256 + dy) -> inner cells of that Bresenham line (see `los`)
        self._sight_blockers: dict[frozenset[Cell], int] = {}  # closed doors -> cells that block sight
        self.n_bits = self.stride * h
        # (row << stride | the row's bits) -> the absolute bit positions they stand for, filled as met (`bit_indices`)
        self._row_bits: dict[int, tuple[int, ...]] = {}
        self._door_keys: dict[frozenset[Cell], int] = {}
        self.blocks_los: frozenset[Cell] = frozenset(c for c in g.nodes if g.nodes[c].get("blocks_los", False))
        self.blocks_los_mask = self.mask(self.blocks_los)
        self._los_to: dict[tuple[Cell, int, int], int] = {}

    # --- bitset search -----------------------------------------------------------------------------
    def mask(self, cells: Any) -> int:
        """Bitset of some cells."""
        bit = self.bit
        m = 0
        for c in cells:
            m |= bit[c]
        return m

    def disc(self, c: Cell, r: int) -> int:
        """Bitset of the cells within Chebyshev distance `r` of `c` (cached)."""
        key = (c, r)
        hit = self._discs.get(key)
        if hit is None:
            hit = self.mask(x for x in self.cells if max(abs(x[0] - c[0]), abs(x[1] - c[1])) <= r)
            self._discs[key] = hit
        return hit

    def cells_of(self, m: int) -> list[Cell]:
        """Cells of a bitset, row by row."""
        out: list[Cell] = []
        cell_at = self.cell_at
        if m.bit_count() <= 12:  # sparse: peel the lowest bit
            while m:
                low = m & -m
                out.append(cell_at[low.bit_length() - 1])
                m ^= low
            return out
        base = 0
        while m:
            chunk = m & 0xFF
            if chunk:
                out.extend([cell_at[base + b] for b in BYTE_BITS[chunk]])
            m >>= 8
            base += 8
        return out

    def _diag(self, doors: frozenset[Cell]) -> tuple[tuple[tuple[int, int], ...], int]:
        """The diagonal steps with these closed doors (section 5: no cutting a wall, object or closed door corner).

        (allowed-source mask, shift) for the four diagonal directions, and the cells with an on-map diagonal
        neighbour they may not step to.
        """
        hit = self._diag_cache.get(doors)
        if hit is None:
            s = self.stride
            nb = self.valid & ~(self.solid_mask | self.mask(doors))
            out = []
            cornered = 0
            for dx, dy in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
                a = (nb >> dx if dx > 0 else nb << -dx) & (nb >> (dy * s) if dy > 0 else nb << (-dy * s))
                out.append((a, dx + dy * s))
                shift = dx + dy * s
                onto = (self.valid >> shift if shift > 0 else self.valid << -shift) & self.valid  # diagonal on the map
                cornered |= onto & ~a
            hit = self._diag_cache[doors] = (tuple(out), cornered)
        return hit

    def layers(self, start: Cell, blocked: int, doors: frozenset[Cell], mode: str, alternating: bool = False,
               limit: int = 1000) -> tuple[int, ...]:
        """Cumulative reach: element k is the bitset of cells with path cost <= k, up to k = `limit` (cached).

        Costs are 1 or 2 per entered cell, so a breadth-first wave over bitsets gives exact Dijkstra costs.
        """
        key = (start, blocked, self.door_key(doors), mode, alternating, limit)
        hit = self.layer_cache.get(key)
        if hit is not None:
            return hit
        if alternating:
            dist, _ = self.search(start, frozenset(self.cells_of(blocked)), doors, mode, True)
            top = max(v[0] for v in dist.values())
            cum = [0] * (top + 1)
            for c, v in dist.items():
                cum[v[0]] |= self.bit[c]
            for k in range(1, top + 1):
                cum[k] |= cum[k - 1]
            del cum[limit + 1:]
        else:
            cum = self._waves(start, blocked, doors, mode, limit)
        while len(cum) > 1 and cum[-1] == cum[-2]:
            cum.pop()
        if len(self.layer_cache) > 20000:
            self.layer_cache.clear()
        hit = self.layer_cache[key] = tuple(cum)
        return hit

    def _waves(self, start: Cell, blocked: int, doors: frozenset[Cell], mode: str, limit: int) -> list[int]:
        """The breadth-first waves of `layers` on bitsets, up to cost `limit`."""
        free = ~(blocked | self.mask(doors))
        e1 = self.enter1[mode] & free
        e2 = self.enter2[mode] & free
        ((a1, s1), (a2, s2), (a3, s3), (a4, s4)), cornered = self._diag(doors)
        s = self.stride
        seen = self.bit[start]
        cum = [seen]
        prev2 = 0
        prev1 = seen
        # diagonal shifts: SE (+), SW (+), NW (-), NE (-)
        n3, n4 = -s3, -s4
        d2 = 0  # the neighbours of prev2: the previous wave's d1, reused
        while len(cum) <= limit:
            if not prev1:
                d1 = 0
            elif prev1 & cornered:
                d1 = ((prev1 << 1) | (prev1 >> 1) | (prev1 << s) | (prev1 >> s) | ((prev1 & a1) << s1)
                      | ((prev1 & a2) << s2) | ((prev1 & a3) >> n3) | ((prev1 & a4) >> n4))
            else:  # no corner in the way: the 3 x 3 block around each cell (the cells themselves are seen)
                d1 = prev1 | (prev1 << 1) | (prev1 >> 1)
                d1 |= (d1 << s) | (d1 >> s)
            unseen = ~seen
            new = d1 & e1 & unseen
            if prev2 and e2:
                new |= d2 & e2 & unseen
            if not new and not prev1:
                break
            seen |= new
            cum.append(seen)
            prev2, prev1 = prev1, new
            d2 = d1
        return cum

    def trace(self, cum: tuple[int, ...], start: Cell, dest: Cell, mode: str, doors: frozenset[Cell]) -> list[Cell]:
        """A cheapest path to `dest` read back from `layers` (predecessors tried in E, S, W, N, SE, SW, NW, NE)."""
        table = self.costs[mode]
        blockers = self._corner_blockers.get(doors)
        if blockers is None:
            blockers = self._corner_blockers[doors] = self.solid | doors if doors else self.solid
        preds = self.preds
        dest_bit = self.bit[dest]
        k = 0
        for m in cum:  # the cost of dest
            if m & dest_bit:
                break
            k += 1
        else:
            k = 10**6
        path = [dest]
        c = dest
        while c != start:
            want = k - (table[c] or 1)
            layer = cum[want] & ~cum[want - 1] if want else cum[0]  # the cells of cost exactly `want`
            for n, b, ca, cb in preds[c]:
                if not layer & b:
                    continue
                if n != start and want == 0:
                    continue
                if ca is not None and (ca in blockers or cb in blockers):
                    continue
                c, k = n, want
                path.append(n)
                break
            else:  # pragma: no cover - layers always hold a predecessor
                raise RuntimeError(f"no path back from {dest} to {start}")
        path.reverse()
        return path

    def actions(self, verb: str) -> list[Any]:
        """Per-bit shared `Action(verb, dest=cell)` objects (masks reuse them instead of building new ones)."""
        hit = self._actions.get(verb)
        if hit is None:
            hit = [None] * (self.stride * self.height)
            for c, i in self.index.items():
                hit[i] = act(verb, dest=c)
            self._actions[verb] = hit
        return hit

    def dest_actions(self, verb: str, m: int) -> tuple[Any, ...]:
        """The shared actions of `verb` for every cell of bitset `m`, row by row, as a tuple (cached per verb).

        A mask met for the first time is put together from the actions of its map rows, cached per verb and row.
        """
        memo = self._dest_memo.get(verb)
        if memo is None:
            memo = self._dest_memo[verb] = {}
            self._row_actions[verb] = {}
        hit = memo.get(m)
        if hit is not None:
            return hit
        table = self._actions.get(verb) or self.actions(verb)
        if m.bit_count() <= 12:
            hit = tuple([table[i] for i in self.bit_indices(m)])
        else:
            by_row = self._row_actions[verb]
            out: list[Any] = []
            s = self.stride
            full = (1 << s) - 1
            key = 0  # y << stride
            rest = m
            while rest:
                row = rest & full
                if row:
                    acts = by_row.get(key | row)
                    if acts is None:
                        base = (key >> s) * s
                        acts = by_row[key | row] = tuple([table[base + b] for b in range(s) if row >> b & 1])
                    out.extend(acts)
                rest >>= s
                key += 1 << s
            hit = tuple(out)
        if len(memo) > 4096:
            memo.clear()
        memo[m] = hit
        return hit

    def offset_actions(self, verb: str, target: str, option: Any, tc: Cell, m: int) -> tuple[Any, ...]:
        """``Action(verb, target, dest=cell - tc, option)`` for every cell of `m`, row by row (interned)."""
        table = self._offset_actions
        out = []
        for c in self.cells_of(m):
            key = (verb, target, c[0] - tc[0], c[1] - tc[1], option)
            a = table.get(key)
            if a is None:
                a = table[key] = act(verb, target, (key[2], key[3]), option)
            out.append(a)
        return tuple(out)

    def bit_indices(self, m: int) -> list[int]:
        """Positions of the set bits of `m`, lowest first (row by row)."""
        out: list[int] = []
        if m.bit_count() <= 12:  # sparse: peel the lowest bit
            while m:
                low = m & -m
                out.append(low.bit_length() - 1)
                m ^= low
            return out
        # dense: one map row at a time; a row's bits at a given y recur across masks, so their positions are cached
        by_row = self._row_bits
        s = self.stride
        full = (1 << s) - 1
        key = 0  # y << stride
        while m:
            row = m & full
            if row:
                hit = by_row.get(key | row)
                if hit is None:
                    base = (key >> s) * s
                    hit = by_row[key | row] = tuple(base + b for b in range(s) if row >> b & 1)
                out.extend(hit)
            m >>= s
            key += 1 << s
        return out

    # --- movement ----------------------------------------------------------------------------
    def search(self, start: Cell, blocked: frozenset[Cell], doors: frozenset[Cell], mode: str,
               alternating: bool = False) -> Search:
        """Cheapest (cost, steps) to every cell from `start`; cached by everything it depends on."""
        key = (start, blocked, doors, mode, alternating)
        hit = self.search_cache.get(key)
        if hit is not None:
            return hit
        cost_of = self.costs[mode]
        nbrs = self.nbrs
        s0: Hashable = (start, 0)
        best: dict[Hashable, tuple[int, int]] = {s0: (0, 0)}
        pred: dict[Hashable, Hashable] = {}
        heap: list[tuple[int, int, int, Hashable]] = [(0, 0, 0, s0)]
        seq = 1
        done: set[Hashable] = set()
        while heap:
            cost, steps, _, s = heapq.heappop(heap)
            if s in done:
                continue
            done.add(s)
            cell: Cell = s[0]  # type: ignore[index]  # a search state is a (cell, parity) pair; `Search` keys them as Hashable
            par: int = s[1]  # type: ignore[index]  # a search state is a (cell, parity) pair; `Search` keys them as Hashable
            for n, diag, ca, cb in nbrs[cell]:
                if n in blocked or n in doors:
                    continue
                step = cost_of[n]
                if step is None:
                    continue
                if diag and (ca in self.solid or cb in self.solid or ca in doors or cb in doors):
                    continue
                npar = par
                if alternating and diag:
                    step += par
                    npar = 1 - par
                ns = (n, npar)
                val = (cost + step, steps + 1)
                old = best.get(ns)
                if old is None or val < old:
                    best[ns] = val
                    pred[ns] = s
                    heapq.heappush(heap, (val[0], val[1], seq, ns))
                    seq += 1
        dist: dict[Cell, tuple[int, int, Hashable]] = {}
        for s, (c, st) in best.items():
            cl: Cell = s[0]  # type: ignore[index]  # a search state is a (cell, parity) pair; `Search` keys them as Hashable
            prev = dist.get(cl)
            if prev is None or (c, st) < prev[:2]:
                dist[cl] = (c, st, s)
        if len(self.search_cache) > 2000:
            self.search_cache.clear()
        self.search_cache[key] = (dist, pred)
        return dist, pred

    @staticmethod
    def path_of(found: Search, dest: Cell) -> list[Cell]:
        """The planned path to `dest` (start and dest included) from a `search` result."""
        dist, pred = found
        s = dist[dest][2]
        out = [dest]
        while s in pred:
            s = pred[s]
            out.append(s[0])  # type: ignore[index]  # a search state is a (cell, parity) pair; `Search` keys them as Hashable
        out.reverse()
        return out

    def objects_near(self, c: Cell) -> list[tuple[Cell, dict[str, Any]]]:
        """Map objects adjacent to a cell (cover sources, REI-5.11)."""
        return self._near[c]

    # --- sight --------------------------------------------------------------------------------
    def los(self, a: Cell, b: Cell, doors: frozenset[Cell]) -> bool:
        """Line of sight (Bresenham; walls, closed doors and blocking objects block).

        The same test as `Battlefield.line_of_sight`: no cell strictly between `a` and `b` blocks sight. A Bresenham
        line only depends on the offset b - a, so its inner cells are kept once per offset as a bitset relative to
        the line's lower corner (`line_pattern`); shifted onto the corner's bit it meets the blocking cells or not.
        """
        ax, ay = a
        bx, by = b
        pat = self._line_pats.get((bx - ax) * 256 + by - ay)  # |dy| < 64: one int per offset
        if pat is None:
            pat = self.line_pattern(a, b)
        blockers = self._sight_blockers.get(doors)
        if blockers is None:
            blockers = self._sight_blockers[doors] = self.blocks_los_mask | self.mask(doors)
        return not (pat << ((ay if ay < by else by) * self.stride + (ax if ax < bx else bx))) & blockers

    def line_pattern(self, a: Cell, b: Cell) -> int:
        """The inner cells of the Bresenham line from `a` to `b` as a bitset relative to (min x, min y), cached."""
        x0, y0 = min(a[0], b[0]), min(a[1], b[1])
        s = self.stride
        pat = 0
        for x, y in bresenham(a, b)[1:-1]:
            pat |= 1 << ((y - y0) * s + x - x0)
        self._line_pats[(b[0] - a[0]) * 256 + b[1] - a[1]] = pat
        return pat

    def door_key(self, doors: frozenset[Cell]) -> int:
        """A small int naming a set of closed doors (cache keys of ints are never tracked by the GC)."""
        hit = self._door_keys.get(doors)
        if hit is None:
            if len(self._door_keys) >= 1024:  # pragma: no cover - 1024 door states in one encounter
                self._door_keys.clear()
                self._los_to.clear()
                self.layer_cache.clear()
            hit = self._door_keys[doors] = len(self._door_keys)
        return hit

    def los_to(self, tc: Cell, r: int, doors: frozenset[Cell]) -> int:
        """Bitset of the cells within `r` of `tc` with a line of sight to `tc` (cached)."""
        key = (tc, r, self.door_key(doors))
        hit = self._los_to.get(key)
        if hit is None:
            hit = 0
            bit = self.bit
            for c in self.cells_of(self.disc(tc, r)):
                if self.los(c, tc, doors):
                    hit |= bit[c]
            if len(self._los_to) > 50000:
                self._los_to.clear()
            self._los_to[key] = hit
        return hit

    def stops_knockback(self, c: Cell, doors: frozenset[Cell]) -> bool:
        """Whether a pushed combatant stops before this cell (section 5)."""
        if not (0 <= c[0] < self.width and 0 <= c[1] < self.height):
            return True
        return c in self.solid or c in doors or self.terrain[c] in ("climbable", "gap")


def build_battlefield(enc: ReincarnatorEncounter) -> ReiBattlefield:
    """The battlefield of an encounter (section 5); the kernel shares it between loads of the same content.

    Sharing keeps the search, sight and mask caches warm across combats of one encounter.
    """
    return ReiBattlefield(enc)


def sign(v: int) -> int:
    """-1, 0 or 1."""
    return (v > 0) - (v < 0)


def cheb(a: Cell, b: Cell) -> int:
    """Chebyshev distance in metres."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))
