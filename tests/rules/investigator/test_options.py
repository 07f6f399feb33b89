"""Option flags without their own acceptance scenario (spec section 1 table)."""

from __future__ import annotations

from tests.rules.investigator.helpers import (
    END,
    NO_DEFENSE,
    act,
    at_turn,
    checks,
    encounter,
    fighter,
    melee,
    play,
    shoot,
    std,
    step,
    verbs,
)


def test_prone_modifiers() -> None:
    """INV-11.8 with prone_modifiers: melee on a prone target +1 bonus; a prone attacker +1 penalty (net 0)."""
    c = play(encounter(std("A", "A", (5, 5), dex=60), std("B", "B", (6, 5), tough=True),
                       options={"prone_modifiers": True},
                       start={"phase": "cast", "combatants": {"B": {"conditions": ["prone"]}}}),
             [(100, 66), (10, 1), (3, 1)])
    at_turn(c, "A")
    c.act(melee("B"))
    c.act(NO_DEFENSE)
    assert checks(c)[-1].data["bonus"] == 1 and fighter(c, "B").hp == 29
    c = play(encounter(std("A", "A", (5, 5), dex=60), std("B", "B", (6, 5), tough=True),
                       options={"prone_modifiers": True},
                       start={"phase": "cast", "combatants": {"A": {"conditions": ["prone"]},
                                                              "B": {"conditions": ["prone"]}}}), [(100, 66)])
    at_turn(c, "A")
    c.act(melee("B"))
    c.act(NO_DEFENSE)
    assert c.dice.remaining == 0


def test_flanking_requires_attack() -> None:
    """INV-8.6 with flanking_requires_attack: the flanker must have attacked the target this round."""
    b = std("B", "B", (5, 5), tough=True)
    c = play(encounter(b, std("X", "A", (6, 5), dex=70), std("A", "A", (4, 5), dex=60),
                       options={"flanking_requires_attack": True}),
             [(100, 66), (100, 66), (10, 1), (3, 1)])
    at_turn(c, "X")
    c.act(melee("B"))  # X attacks first: no flank yet (A has not attacked)
    c.act(NO_DEFENSE)
    c.act(END)
    at_turn(c, "A")
    c.act(melee("B"))
    c.act(NO_DEFENSE)
    assert fighter(c, "B").hp == 29 and c.dice.remaining == 0


def test_throw_obstruction_off() -> None:
    """INV-8.8 with throw_obstruction = false: bodies in the line do not raise a throw to Extreme."""
    k = std("K", "A", (0, 0), dex=60, weapons=["tknife"], wielded="tknife")
    c = play(encounter(k, std("X", "A", (2, 0)), std("B", "B", (4, 0), tough=True),
                       options={"throw_obstruction": False}), [(100, 90)])
    at_turn(c, "K")
    c.act(act("throw", "B"))
    c.act(NO_DEFENSE)
    assert checks(c)[-1].data["required"] == "Regular"


def test_first_aid_wakes_off() -> None:
    """INV-8.12 with first_aid_wakes = false: the patient is healed but stays unconscious."""
    enc = encounter(std("A", "A", (5, 5), dex=60), std("T", "A", (6, 5)), options={"first_aid_wakes": False},
                    start={"phase": "cast", "combatants": {"T": {"hp": 0, "conditions": ["unconscious", "prone",
                                                                                          "untreated_wound"]}}})
    c = play(enc, [(100, 20)])
    at_turn(c, "A")
    c.act(act("first_aid", "T"))
    t = fighter(c, "T")
    assert t.hp == 1 and t.unconscious


def test_major_wound_basis_current_hp() -> None:
    """INV-11.2 with major_wound_basis = current_hp: half the HP before the hit is enough."""
    a = std("A", "A", (0, 0), dex=60, weapons=["revolver"], wielded="revolver")
    c = play(encounter(a, std("T", "B", (3, 0)), std("Z", "B", (11, 11), dex=1),
                       options={"major_wound_basis": "current_hp"},
                       start={"phase": "cast", "combatants": {"T": {"hp": 6}}}),
             [(100, 40), (10, 3), (100, 10)])
    c.act(shoot("T"))
    assert fighter(c, "T").major_wound and c.dice.remaining == 0


def test_max_steps_per_turn() -> None:
    """INV-4.4 with max_steps_per_turn = 2: an embedded step and a standalone step in one turn."""
    a = std("A", "A", (0, 0), dex=60, weapons=["revolver"], wielded="revolver")
    c = play(encounter(a, std("B", "B", (3, 3), tough=True), options={"max_steps_per_turn": 2}),
             [(100, 90)])
    c.act(shoot("B", "before", (0, 0), (1, 1)))
    assert "step" in verbs(c)
    c.act(step(0, 0))
    assert fighter(c, "A").steps_this_turn == 2
