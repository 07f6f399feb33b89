"""GM edits keep one fighter a hex (section 5: a fallen fighter keeps its hex, passable and no destination) and cite
the rule of the condition they clear."""

from __future__ import annotations

import pytest

from tests.rules.kiai.helpers import fighter, fixture, play
from trpg_arena.rules import Action
from trpg_arena.rules.core.edits import EditError, add_combatant, edit_combatant, fields_of


def _with_a_body() -> object:
    """A, B and C, C incapacitated on hex 3,1 from the start."""
    return play(fixture(extra=[fighter("C", "P", 2, [3, 1])], start={"combatants": {"C": {"wounds": {"mortal": 1}}}}),
                "")


def test_a_fallen_fighters_hex_is_no_edit_destination() -> None:
    """A could be put on the body's hex, and clearing the body's mortal wound left two fighters on one hex."""
    c = _with_a_body()
    (hex_field,) = [f for f in fields_of(c, "A") if f.name == "hex"]
    assert "3,1" not in hex_field.choices
    with pytest.raises(EditError):
        edit_combatant(c, "A", {"hex": "3,1"})
    with pytest.raises(EditError, match="taken"):
        add_combatant(c, fighter("D", "P", 5, [3, 1]))


def test_a_fighter_is_not_brought_back_onto_a_hex_another_holds() -> None:
    c = _with_a_body()
    c.state.fighters["A"].hex = (3, 1)  # as an edit could leave it before: the body and A on one hex
    before = c.snapshot()
    with pytest.raises(EditError, match="A stands on its hex 3,1"):
        edit_combatant(c, "C", {"wounds_mortal": 0})
    assert c.snapshot() == before


@pytest.mark.parametrize(("start", "action", "condition", "rule"), [
    ({"position": [0, 0]}, Action("run", dest=(1, 1)), "running", "KIA-8.2")])
def test_clearing_a_condition_cites_the_rule_that_set_it(start: dict, action: Action, condition: str,
                                                        rule: str) -> None:
    """It cited KIA-23.3, which covers stunned, intimidated and deceived only."""
    c = play(fixture(a=start), "", action)
    edit_combatant(c, "A", {f"cond_{condition}": False})
    cleared = [e for e in c.log if e.kind == "condition_removed"][-1]
    assert cleared.rule == rule and cleared.data["condition"] == condition
