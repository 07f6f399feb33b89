"""Where a combatant may move (INV-4.4, INV-4.5): occupancy, one-step squares and long-move destinations.

Reach is the kernel's compiled grid (`Combat.battlefield.grid`: entering cost 1, or 2 on difficult squares;
walls cut diagonals in the graph); this module keeps only the investigator's own lists over it, memoised per
square and occupancy, so masks never rebuild an unchanged list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.grid import Grid, Picker
from trpg_arena.rules.investigator.catalogue import FORM_INDEX
from trpg_arena.rules.investigator.compiled import DIR_OF, Setup
from trpg_arena.rules.investigator.state import Fighter, InvState

if TYPE_CHECKING:
    from trpg_arena.rules.core.values import Action

Cell = tuple[int, int]


def occupancy(st: InvState) -> dict[Cell, Fighter]:
    """Square -> the combatant standing there (dead and fled combatants occupy nothing)."""
    return {f.pos: f for f in st.fighters if f.pos is not None and not f.dead and not f.fled}


class MoveTables:
    """Per setup: the grid, each square's one-step squares and its nearby / far squares as masks, list memos."""

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        cells = grid.cells
        self.bit = grid.bit
        # the squares within one square (Chebyshev distance <= 1, itself included), and those at distance >= 2
        self.near: dict[Cell, int] = {c: grid.disc(c, 1) for c in cells}
        self.far: dict[Cell, int] = {c: grid.all_bits & ~m for c, m in self.near.items()}
        # one-step moves: per square, (square, bit, STEP_FORMS index of "before:<dir>") in the graph's order
        self.steps: dict[Cell, tuple[tuple[Cell, int, int], ...]] = {
            c: tuple((cells[j], b, FORM_INDEX[("before", DIR_OF[(cells[j][0] - c[0], cells[j][1] - c[1])])])
                     for j, b in grid.neighbour_bits[i])
            for i, c in enumerate(cells)}
        self.step_ring: dict[Cell, int] = {c: grid.neighbour_mask[i] for i, c in enumerate(cells)}
        # `Legal.step_options` lists, per square and occupied squares among its one-step squares (read only)
        self.forms: dict[Cell, dict[int, list[tuple[int, Cell]]]] = {}
        # `Legal.turn`: the one-step move actions by (square, occupied squares among its one-step squares)
        self.step_moves: dict[tuple[Cell, int], list[Any]] = {}  # read only: shared by legal sets
        self.long_moves: Picker[Action] | None = None  # the catalogue's ``move`` per square (built on first use)


def moves_of(setup: Setup) -> MoveTables:
    """The (cached) move tables of a setup."""
    t = setup.moves
    if t is None:
        t = setup.moves = MoveTables(setup.bf.grid)
    return t


def move_dests(setup: Setup, f: Fighter, occupied: int, hostile: int, actions: dict[Cell, Any]) -> list[Any]:
    """Legal long moves (INV-4.5), as ``move`` actions taken from `actions`, in row-major order.

    Destinations are at distance >= 2, free (not in the mask `occupied`), and reachable within MOV avoiding
    the squares of hostiles able to act (the mask `hostile`). Only the hostiles inside the open-map reach can
    change it, so the search is keyed by those.
    """
    assert f.pos is not None
    t = setup.moves or moves_of(setup)
    grid = t.grid
    pos = f.pos
    mov = setup.prof(f.id).mov
    reach0 = grid.reach(pos, mov).within[mov]
    rel = hostile & reach0
    reach = grid.reach(pos, mov, rel).within[mov] if rel else reach0
    picker = t.long_moves
    if picker is None:
        picker = t.long_moves = Picker(grid, [actions[c] for c in grid.cells])
    out: list[Any] = []
    picker.extend(out, reach & t.far[pos] & ~occupied)
    return out
