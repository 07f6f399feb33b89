"""Lines between squares (INV-6.6): walls block, obstacles and standing bodies obstruct.

A line is the squares the centre-to-centre segment crosses (section 5): the kernel grid's `crossing`, not
its Bresenham line.
"""

from __future__ import annotations

from trpg_arena.rules.investigator.compiled import Setup
from trpg_arena.rules.investigator.state import InvState

Cell = tuple[int, int]


def standing_bodies(st: InvState) -> dict[Cell, tuple[str, ...]]:
    """The squares of the bodies that obstruct a line (INV-6.6), each with who stands there."""
    out: dict[Cell, tuple[str, ...]] = {}
    for f in st.fighters:
        if f.pos is not None and not (f.dead or f.fled or f.prone or f.unconscious or f.dying):
            out[f.pos] = (*out.get(f.pos, ()), f.id)
    return out


def line_status(setup: Setup, st: InvState, a: Cell, b: Cell, ends: tuple[str, str],
                bodies: dict[Cell, tuple[str, ...]] | None = None) -> str:
    """``blocked`` (a wall is crossed), ``obstructed`` (an obstacle or a standing body) or ``clear`` (INV-6.6).

    `bodies` (`standing_bodies` of `st`) saves the look at every fighter where many lines are drawn in one
    state (a policy weighing every square it could move to).
    """
    crossed = setup.grid.crossing(a, b)
    if not crossed:
        return "clear"
    if crossed & setup.wall_mask:
        return "blocked"
    if crossed & setup.obstacle_mask:
        return "obstructed"
    if bodies is None:
        bodies = standing_bodies(st)
    bit = setup.grid.bit
    for c, ids in bodies.items():  # a few bodies: cheaper than reading the crossed squares back
        if crossed & bit[c]:
            for cid in ids:
                if cid not in ends:
                    return "obstructed"
    return "clear"

