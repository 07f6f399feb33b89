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
from trpg_arena.rules.reincarnator.model import ReincarnatorEncounter

Cell = tuple[int, int]
DIRS: tuple[Cell, ...] = ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))
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
            cell: Cell = s[0]  # type: ignore[index]
            par: int = s[1]  # type: ignore[index]
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
            cl: Cell = s[0]  # type: ignore[index]
            prev = dist.get(cl)
            if prev is None or (c, st) < prev[:2]:
                dist[cl] = (c, st, s)
        if len(self.search_cache) > 20000:
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
            out.append(s[0])  # type: ignore[index]
        out.reverse()
        return out

    def objects_near(self, c: Cell) -> list[tuple[Cell, dict[str, Any]]]:
        """Map objects adjacent to a cell (cover sources, REI-5.11)."""
        return self._near[c]

    # --- sight --------------------------------------------------------------------------------
    def los(self, a: Cell, b: Cell, doors: frozenset[Cell]) -> bool:
        """Line of sight (Bresenham; walls, closed doors and blocking objects block)."""
        if not self.line_of_sight(a, b):
            return False
        if doors:
            for c in bresenham(a, b)[1:-1]:
                if c in doors:
                    return False
        return True

    def stops_knockback(self, c: Cell, doors: frozenset[Cell]) -> bool:
        """Whether a pushed combatant stops before this cell (section 5)."""
        if not (0 <= c[0] < self.width and 0 <= c[1] < self.height):
            return True
        return c in self.solid or c in doors or self.terrain[c] in ("climbable", "gap")


def build_battlefield(enc: ReincarnatorEncounter) -> ReiBattlefield:
    """The battlefield of an encounter (section 5)."""
    return ReiBattlefield(enc)


def sign(v: int) -> int:
    """-1, 0 or 1."""
    return (v > 0) - (v < 0)


def cheb(a: Cell, b: Cell) -> int:
    """Chebyshev distance in metres."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))
