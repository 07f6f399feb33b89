"""The text map shows what stands on a cell: objects, doors as they are now, climbable ground; a legend says so.

A crate, a closed door and a climbable wall were drawn as open ground or as walls: the GM could not tell why the
move menu left a ``.`` out.
"""

from __future__ import annotations

from trpg_arena.rules import Combat
from trpg_arena.table.render import map_legend, map_lines
from trpg_arena.table.session import Session


def _at(combat: Combat, x: int, y: int) -> str:
    return map_lines(combat)[y][x]


def test_objects_doors_and_climbable_cells_have_marks_of_their_own() -> None:
    combat = Session("reincarnator/skirmish", seed=1).combat
    assert (_at(combat, 5, 6), _at(combat, 12, 8)) == ("%", "%")  # a crate, a barrel
    assert _at(combat, 7, 2) == "+"  # a closed door
    assert _at(combat, 13, 0) == "^" and _at(combat, 7, 0) == "#"  # climbable beside a wall
    assert _at(combat, 10, 9) == "," and _at(combat, 0, 0) == "."
    legend = map_legend(combat)
    assert legend is not None
    for words in ("% an object (barrel, crate)", "+ a closed door", "^ climbable", ", difficult ground",
                  "# a wall or obstacle"):
        assert words in legend, legend
    combat.state.doors["7,2"] = "open"  # as a fighter's 'open door' leaves it
    assert _at(combat, 7, 2) == "'" and "' an open door" in (map_legend(combat) or "")


def test_the_legend_names_only_what_the_map_shows() -> None:
    brawl = Session("reincarnator/brawl", seed=1).combat
    legend = map_legend(brawl) or ""
    assert "' an open door" in legend and "% an object (barrel, cart, crate, statue)" in legend
    assert "closed door" not in legend and "climbable" not in legend
    assert map_legend(Session("moonlit/duel", seed=1).combat) is None  # zones: no marks
