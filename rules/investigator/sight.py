"""Lines between squares (INV-6.6): walls block, obstacles and standing bodies obstruct.

The line is the investigator's own (the squares the centre-to-centre segment crosses, `Setup.crossed`), not
the kernel grid's sampled line, so it stays with the rules.
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
    if bodies is None:
        bodies = standing_bodies(st)
    return "obstructed" if any(cid not in ends for c in crossed for cid in bodies.get(c, ())) else "clear"


def line_blocked(setup: Setup, a: Cell, b: Cell) -> bool:
    """Whether a wall blocks the line between `a` and `b`."""
    return setup.wall_between(a, b)
