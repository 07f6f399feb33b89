"""`core.edits.free_places`: the cells a GM may move a combatant to are those the rules could have it end on."""

from __future__ import annotations

from trpg_arena.rules import Combat
from trpg_arena.rules.core.edits import add_combatant, free_places


def test_a_reinforcement_in_reserve_holds_no_cell_for_a_gms_move() -> None:
    """REI-2.5: a reinforcement joins at its round's start; until then the rules' own movement may end on its cell.

    Counting every combatant with a cell as holding it took the reserve's arrival cell from the GM's choices.
    """
    c = Combat("reincarnator/skirmish", seed=3)
    while c.state.round < 1:  # past the surprise round, a newcomer waits in reserve for the next round
        c.act(c.legal_actions()[0])
    add_combatant(c, {"id": "brute_2", "like": "brute", "position": [13, 6]})
    (reserve,) = [v for v in c.combatants if v.id == "brute_2"]
    assert reserve.status == "reserve" and reserve.node == (13, 6)
    assert "13,6" in free_places(c, "chen")
