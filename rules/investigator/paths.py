"""The long-move path of INV-4.6: fewest reaction triggers, then lowest cost, then smallest square sequence.

The search is the rule itself (which squares a move enters and leaves decides who may react), so it stays
with the investigator; it reads neighbours and entering costs from the kernel grid and numbers squares so
that numbers order like the squares, which makes the sequence tie-break a plain tuple comparison.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection

from trpg_arena.rules.investigator.compiled import Setup

Cell = tuple[int, int]


class PathTables:
    """Squares as numbers x * height + y, with their neighbours and entering costs, distances and nine-grids."""

    def __init__(self, setup: Setup) -> None:
        grid = setup.grid
        w, h = setup.width, setup.height
        n = w * h
        self.cell = [(i // h, i % h) for i in range(n)]
        num = self.num = {c: i for i, c in enumerate(self.cell)}
        # the grid's neighbours (the graph's) with their entering costs, in square order
        self.padj: list[tuple[tuple[int, int], ...]] = [()] * n
        for i, c in enumerate(grid.cells):
            self.padj[num[c]] = tuple(sorted((num[grid.cells[j]], grid.cost[j]) for j in grid.neighbours[i]))
        self.cheb = [[max(abs(a[0] - b[0]), abs(a[1] - b[1])) for b in self.cell] for a in self.cell]
        self.nine = [tuple(num[(x + dx, y + dy)] for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                           if (dx or dy) and (x + dx, y + dy) in num) for (x, y) in self.cell]


def path_tables(setup: Setup) -> PathTables:
    """The (cached) path tables of a setup."""
    t = setup.paths
    if t is None:
        t = setup.paths = PathTables(setup)
    return t


def best_path(setup: Setup, start: Cell, goal: Cell, mov: int, blocked: Collection[Cell],
              reactors: list[tuple[Cell, bool, bool]]) -> list[Cell] | None:
    """The long-move path of INV-4.6: fewest trigger events, then lowest cost, then smallest square sequence.

    `reactors` holds (square, counts_leave, counts_enter) for each eligible reactor fixed at the start of the
    move. A* on the key (triggers, cost, squares) with consistent lower bounds (one trigger per reactor whose
    nine-grid still has to be entered or left in a counted direction; Chebyshev distance for cost) pops the
    goal first with the exact minimum. Entries pop in trigger order, so a square reached again at no lower cost
    than the cheapest cost it was expanded at has no fewer triggers either: it is dominated and dropped (at the
    push and at the pop). Squares are searched as their numbers in `PathTables` (x * height + y, which order like the
    squares themselves).
    """
    g = setup.paths or path_tables(setup)
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
    # key or a sequence past the parent's): it is taken at once, without the heap. With no reactor in range
    # every mask is 0, so every trigger count and bound is 0 and the key is (cost bound, squares).
    g_mask = mask[gl]
    h_bits = (g_mask & en_bits) | (~g_mask & lv_bits)  # reactors whose crossing towards the goal counts
    heap: list[tuple[int, int, tuple[int, ...], int, int]] = []
    entry: tuple[int, int, tuple[int, ...], int, int] = (((mask[s] ^ g_mask) & h_bits).bit_count(), crow[s], (s,), 0, 0)
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
