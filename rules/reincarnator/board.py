"""The 1 m square battlefield (section 5) on the kernel grid: terrain, cost modes, doors, sight, per-cell actions.

The networkx battlefield is built from the map (walls and objects are cells without edges, and no diagonal
cuts their corners); the kernel's `Grid` compiled from it answers reach, paths, distances and sight. What
stays here is reincarnator's own: the five cost modes (REI-6.7 ignore_difficult_terrain, REI-2.15
climb_jump), closed doors as per-state blockers of cells, corners and sight, the ``diagonal_rule`` option,
the path read-back order E, S, W, N, SE, SW, NW, NE, and the shared actions the masks hand out per cell.
Doors are passed around as a mask of the closed door cells (`closed_doors`).
"""

from __future__ import annotations

from typing import Any

from trpg_arena.rules.core.battlefield import Battlefield, square_grid
from trpg_arena.rules.core.grid import Moves, Picker
from trpg_arena.rules.core.values import Action, remember
from trpg_arena.rules.reincarnator.encounter import ReincarnatorEncounter
from trpg_arena.rules.reincarnator.interned import act

Cell = tuple[int, int]
# neighbours in path order (section 5): a path's read-back tries predecessors by the step they take, in this order
DIRS: tuple[Cell, ...] = ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))
MODES = ("walk", "walk_i", "climb", "climb_i", "forced")  # `_i`: ignores difficult terrain; forced: pushed
MEMO = 4096  # finished action lists kept per table
ENDS_KEPT = 65536  # charges' end-cell patterns kept per board (`charge_ends`)


def build_battlefield(enc: ReincarnatorEncounter) -> Battlefield:
    """The map as a networkx square grid (section 5): walls and objects have no edges and block corners."""
    attrs: dict[Cell, dict[str, Any]] = {}
    for cs in enc.map.cells:
        for c in cs.cells():
            a = attrs.setdefault(c, {})
            a.update({k: v for k in ("terrain", "door") if (v := getattr(cs, k)) is not None})
            if cs.object is not None:
                a["object"] = cs.object.model_dump()
                a["blocks_los"] = cs.object.blocks_los
            if cs.exit is not None:
                a["exit"] = cs.exit
    for a in attrs.values():
        if a.get("terrain") == "wall":
            a["blocks_los"] = True
        a["cost"] = 2 if a.get("terrain") in ("difficult", "climbable") else 1
    return square_grid(enc.map.width, enc.map.height, attrs, impassable=_solid, corner_blocks=_solid)


def _solid(a: dict[str, Any]) -> bool:
    """A wall or an object: never entered, and no diagonal step cuts its corner."""
    return a.get("terrain") == "wall" or "object" in a


def mode_costs(terrain: str, mode: str) -> int | None:
    """The cost of entering a cell of `terrain` in a cost mode (None: cannot be entered; section 5)."""
    if terrain == "difficult":
        return 1 if mode.endswith("_i") or mode == "forced" else 2
    if terrain == "climbable":
        return 2 if mode.startswith("climb") else None
    if terrain == "gap":
        return 1 if mode.startswith("climb") else None
    return 1


class Board:
    """Reincarnator's reading of one encounter's grid: terrain tables, cost modes and per-cell actions."""

    def __init__(self, enc: ReincarnatorEncounter, bf: Battlefield) -> None:
        self.grid = grid = bf.grid
        self.width, self.height = grid.width, grid.height
        self.bit = grid.bit
        nodes = bf.graph.nodes
        w, h = grid.width, grid.height
        self.terrain: dict[Cell, str] = {c: nodes[c].get("terrain", "open") for c in grid.cells}
        self.objects: dict[Cell, dict[str, Any]] = {c: nodes[c]["object"] for c in grid.cells if "object" in nodes[c]}
        self.doors0: dict[Cell, str] = {c: nodes[c]["door"] for c in grid.cells if "door" in nodes[c]}
        # a cell's own exit flag, else on the map's edge when edges are exits
        self.exits: set[Cell] = {c for c in grid.cells if nodes[c].get(
            "exit", (c[0] in (0, w - 1) or c[1] in (0, h - 1)) and enc.map.edge_exits)}
        self.solid: frozenset[Cell] = frozenset(c for c, t in self.terrain.items() if t == "wall") | frozenset(
            self.objects)
        self.solid_mask = grid.mask(self.solid)
        self.climb_mask = grid.mask(c for c, t in self.terrain.items() if t in ("gap", "climbable"))
        self.gap_mask = grid.mask(c for c, t in self.terrain.items() if t == "gap")
        self.has_climb = bool(self.climb_mask)
        self.door_cells: list[Cell] = sorted(self.doors0, key=lambda c: (c[1], c[0]))
        self.visibility = enc.map.visibility_m
        self.sight_blockers = grid.sight_blockers
        alternating = enc.options.diagonal_rule == "alternating"
        self.moves: dict[str, Moves] = {
            mode: Moves(grid, {c: None if c in self.solid else mode_costs(t, mode) for c, t in self.terrain.items()},
                        order=DIRS, alternating=alternating) for mode in MODES}
        self._near = {c: [(n, self.objects[n]) for n in ((c[0] + dx, c[1] + dy) for dx, dy in DIRS)
                          if n in self.objects] for c in grid.cells}
        self._doors: dict[tuple[tuple[str, str], ...], int] = {}
        self._sight: dict[tuple[Cell, int], tuple[int, int]] = {}  # (origin, doors) -> (cells looked at, seen)
        # finished action lists (charges' end cells) keyed by what they depend on, as tuples of interned actions
        self.list_memo: dict[Any, tuple[Action, ...]] = {}
        # (verb, option) -> (its per-cell picker, mask -> its actions): one entry, so a thread that finds one finds both
        self._dest_memo: dict[tuple[str, Any], tuple[Picker[Action], dict[int, tuple[Action, ...]]]] = {}
        self._offset_actions: dict[tuple[Any, ...], Action] = {}

    # --- doors and sight ---------------------------------------------------------------------------
    def closed(self, doors: dict[str, str]) -> int:
        """The cells of the closed doors of a state's ``doors`` (keys ``"x,y"``), as a mask (cached)."""
        key = tuple(doors.items())
        hit = self._doors.get(key)
        if hit is None:
            closed = (k.split(",") for k, d in doors.items() if d == "closed")
            hit = remember(self._doors, key, self.grid.mask((int(x), int(y)) for x, y in closed), MEMO)
        return hit

    def los(self, a: Cell, b: Cell, doors: int) -> bool:
        """Line of sight from `a` to `b` (Bresenham): no wall, closed door or blocking object strictly between."""
        return not self.grid.between(a, b) & (self.sight_blockers | doors)

    def sight(self, origin: Cell, cells: int, doors: int) -> int:
        """The cells of mask `cells` with a line of sight from `origin` (`los`), as a mask.

        Each cell's line is drawn once per origin and closed doors, on the first question that names it: the
        cells looked at and the cells seen are kept as one pair, replaced whole, so a thread reading it finds
        a pair that agrees (a lost race only redraws lines).
        """
        key = (origin, doors)
        known = self._sight.get(key)
        looked, seen = known if known is not None else (0, 0)
        todo = cells & ~looked
        if todo:
            bit, los = self.bit, self.los
            for c in self.grid.cells_of(todo):
                if los(origin, c, doors):
                    seen |= bit[c]
            if len(self._sight) >= MEMO and known is None:  # pragma: no cover - thousands of origins and doors
                self._sight.clear()
            self._sight[key] = (looked | todo, seen)
        return cells & seen

    def los_to(self, tc: Cell, r: int, doors: int) -> int:
        """The cells within `r` of `tc` with a line of sight to `tc`, as a mask (cached by the grid)."""
        return self.grid.seen_from(tc, r, self.sight_blockers | doors)

    def objects_near(self, c: Cell) -> list[tuple[Cell, dict[str, Any]]]:
        """Map objects adjacent to a cell (cover sources, REI-5.11)."""
        return self._near[c]

    def stops_knockback(self, c: Cell, doors: int) -> bool:
        """Whether a pushed combatant stops before this cell (section 5)."""
        b = self.bit.get(c)
        return b is None or bool(b & (self.solid_mask | doors)) or self.terrain[c] in ("climbable", "gap")

    # --- per-cell actions --------------------------------------------------------------------------
    def dest_actions(self, verb: str, m: int, option: Any = None) -> tuple[Action, ...]:
        """The shared ``Action(verb, dest=cell, option)`` of every cell of mask `m`, row by row (cached per mask).

        A movement verb's destinations and an explosive's target cells alike (the latter follow the enemies, so a
        new mask comes often): the picker reads the mask back a byte at a time instead of looking up an action per
        cell.
        """
        key = (verb, option)
        entry = self._dest_memo.get(key)
        if entry is None:  # two threads may both build it: the same content, and the last one stays
            entry = self._dest_memo[key] = (
                Picker(self.grid, [act(verb, None, c, option) for c in self.grid.cells]), {})
        picker, memo = entry
        hit = memo.get(m)
        if hit is None:
            out: list[Action] = []
            picker.extend(out, m)
            hit = remember(memo, m, tuple(out), MEMO)
        return hit

    def charge_ends(self, verb: str, target: str, option: Any, tc: Cell, reach: int, m: int) -> tuple[Action, ...]:
        """`offset_actions` of end cells `m` within `reach` of the target's cell `tc` (kept by their pattern).

        The actions name offsets from the target, not cells, so they depend on where the end cells lie around the
        target and not on where it stands: `m` shifted to put `tc` at (reach, reach) is the key, and a target that
        moves meets its patterns again. Bit ``(dy + reach) * stride + dx + reach`` of the pattern is offset (dx, dy),
        so its bits in ascending order are `offset_actions`' row-by-row order.
        """
        s = self.grid.stride
        if 2 * reach >= s:  # a reach as wide as the board: offsets no longer fit a row of the pattern
            return self.offset_actions(verb, target, option, tc, m)
        shift = tc[1] * s + tc[0] - reach * (s + 1)
        rel = m >> shift if shift >= 0 else m << -shift
        key = (verb, target, option, reach, rel)
        hit = self.list_memo.get(key)
        if hit is None:  # a pattern met for the first time: its bits in ascending order
            out = []
            todo = rel
            while todo:
                low = todo & -todo
                dy, dx = divmod(low.bit_length() - 1, s)
                out.append(self._offset_action(verb, target, dx - reach, dy - reach, option))
                todo ^= low
            hit = remember(self.list_memo, key, tuple(out), ENDS_KEPT)
        return hit

    def offset_actions(self, verb: str, target: str, option: Any, tc: Cell, m: int) -> tuple[Action, ...]:
        """``Action(verb, target, dest=cell - tc, option)`` for every cell of `m`, row by row (interned)."""
        return tuple(self._offset_action(verb, target, c[0] - tc[0], c[1] - tc[1], option)
                     for c in self.grid.cells_of(m))

    def _offset_action(self, verb: str, target: str, dx: int, dy: int, option: Any) -> Action:
        """The one shared ``Action(verb, target, dest=(dx, dy), option)`` (interned, so lists of them compare fast)."""
        key = (verb, target, dx, dy, option)
        a = self._offset_actions.get(key)
        if a is None:
            a = self._offset_actions[key] = act(verb, target, (dx, dy), option)
        return a

