"""Verbs the scenarios touch only lightly: vehicles, doors, sheathing, picking up others' gear, joiner ties."""

from __future__ import annotations

from tests.rules.reincarnator.helpers import PISTOL, SWORD, F, H, act, at_turn, combat, defaults, encounter, has, kinds


def test_enter_and_exit_a_vehicle() -> None:
    """REI-2.15: enter an adjacent empty vehicle, drive it, leave it to a free adjacent cell."""
    enc = encounter(H("A", "P", (1, 5)), H("D", "N", (11, 11)),
                    vehicles=[{"use": "buggy", "id": "buggy", "position": [2, 5]}], start=at_turn(["A", "D"]))
    c = combat(enc)
    assert has(c, "enter_vehicle", "buggy")
    act(c, "enter_vehicle", "buggy")
    assert F(c, "A").in_vehicle == "buggy" and c.state.vehicles["buggy"].driver == "A"
    act(c, "end_turn")
    act(c, "end_turn")
    assert has(c, "drive", dest=(10, 5))
    act(c, "drive", dest=(10, 5))
    assert F(c, "A").cell == (10, 5) == c.state.vehicles["buggy"].cell
    assert has(c, "exit_vehicle", dest=(9, 5))
    act(c, "exit_vehicle", dest=(9, 5))
    assert F(c, "A").in_vehicle is None and c.state.vehicles["buggy"].driver is None


def test_doors_close_only_when_empty() -> None:
    """REI-2.15: a door cannot be closed while someone stands in it; closed doors block sight."""
    enc = encounter(H("A", "P", (1, 1), items=[SWORD, PISTOL]), H("D", "N", (5, 1)),
                    H("B", "P", (2, 1)), cells=[{"at": [2, 1], "door": "open"}], start=at_turn(["A", "D", "B"]))
    c = combat(enc)
    assert not has(c, "close_door", dest=(2, 1))
    enc = encounter(H("A", "P", (1, 1), items=[SWORD, PISTOL]), H("D", "N", (5, 1)),
                    cells=[{"at": [2, 1], "door": "open"}], start=at_turn(["A", "D"]))
    c = combat(enc)
    assert has(c, "ranged_attack", "D", option="pistol")
    act(c, "close_door", dest=(2, 1))
    assert not has(c, "ranged_attack", "D", option="pistol") and kinds(c, "door")


def test_sheathe_draw_and_picking_up_anothers_weapon() -> None:
    """REI-2.13, REI-2.15: sheathe (move) and draw (swift); a dropped weapon is named by its unique id."""
    c = combat(encounter(*defaults(), start=at_turn(["A", "D"])))
    act(c, "sheathe", option="sword")
    assert c.state.items["A.sword"].loc == "reachable"
    act(c, "draw", option="sword")
    assert c.state.items["A.sword"].loc == "held"
    act(c, "drop_item", option="sword")
    act(c, "end_turn")
    act(c, "drop_item", option="sword")
    assert has(c, "pick_up", option="A.sword") and has(c, "pick_up", option="sword")
    act(c, "pick_up", option="A.sword")
    assert c.state.items["A.sword"].holder == "D"


def test_joiners_of_two_sides_break_ties_with_side_dice() -> None:
    """REI-2.5 with REI-2.2: joiners that tie across sides roll side dice."""
    rein = [{"round": 2, "combatants": [H("J1", "N", (0, 0)), H("J2", "P", (0, 11))]}]
    c = combat(encounter(*defaults(), reinforcements=rein), 10, 1, 5, 5, 3, 8)
    act(c, "end_turn")
    act(c, "end_turn")
    assert list(c.state.order) == ["A", "D", "J2", "J1"] and kinds(c, "initiative_tiebreak")
    assert c.dice.remaining == 0
