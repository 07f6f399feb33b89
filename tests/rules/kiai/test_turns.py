"""Rounds, initiative, turn order, re-attacks, wounds that end the fight, fleeing and the round cap."""

from __future__ import annotations

import pytest

from tests.rules.kiai.helpers import DODGE, END, NO_REACTION, PASS, atk, fighter, fixture, play, wounds
from trpg_arena.rules import Action

C_AT_5 = fighter("C", "N", 2, [5, 0])


def _order(c) -> list[str]:
    return [e for e in c.log if e.kind == "turn_order"][-1].data["order"]


@pytest.mark.rule("KIA-T10")
def test_KIA_T10_mortal_wound_death_and_end_of_combat() -> None:
    """KIA-T10: KIA-7.6, KIA-25.1."""
    start = {"combatants": {"B": {"wounds": {"light": 1, "moderate": 1, "serious": 1}}}}
    c = play(fixture(start=start), "d100=30 d10=3 d10=4 d10=2", atk("B"), NO_REACTION)
    assert c.state.fighters["B"].out == "incapacitated"
    assert c.result == "P" and c.decision is None and c.log[-1].kind == "combat_ended"
    # (b) dead
    c = play(fixture(a={"attack": 40}), "d100=30 d10=9 d10=8 d10=2", atk("B"), NO_REACTION)
    assert c.state.fighters["B"].dead and c.result == "P"
    # (c) combat goes on with C out of reach
    c = play(fixture(start=start, extra=[fighter("C", "N", 2, [6, 0])]),
             "d100=30 d10=3 d10=4 d10=2 d10=3 d10=5", atk("B"), NO_REACTION)
    assert not c.over and c.decision.actor == "A" and c.decision.step == "D2"
    assert c.legal_actions() == [END]
    c.act(END)
    assert c.decision.actor == "C" and c.decision.step == "D1"
    c.act(END)  # round 2: only A and C roll initiative (d10=3, d10=5)
    inits = [e.actor for e in c.log if e.kind == "initiative_rolled" and e.round == 2]
    assert inits == ["A", "C"] and c.dice.remaining == 0
    out_at = [e.seq for e in c.log if e.kind == "out"][0]
    assert not any(e.kind == "decision" and e.actor == "B" for e in c.log[out_at:])


@pytest.mark.rule("KIA-T11")
def test_KIA_T11_wound_penalties() -> None:
    """KIA-T11: KIA-0.3, KIA-7.6 - the highest status gives -10 / -20 to every check."""
    start = {"combatants": {"B": {"wounds": {"serious": 1}}}}
    c = play(fixture(start=start, order=["B", "A"]), "d100=41", atk("A"))
    chk = [e for e in c.log if e.kind == "check"][-1].data
    assert (chk["V"], chk["C"], chk["grade"]) == (40, 4, "FAILURE")
    c = play(fixture(start=start), "d100=30 d100=21 d10=1 d10=2 d10=9", atk("B"), DODGE)
    chk = [e for e in c.log if e.kind == "check"][-1].data
    assert (chk["V"], chk["C"], chk["grade"]) == (20, 2, "FAILURE")
    assert wounds(c, "B") == {"serious": 1}
    start = {"combatants": {"B": {"wounds": {"light": 1, "moderate": 1}}}}
    c = play(fixture(start=start, order=["B", "A"]), "d100=99", atk("A"))
    assert [e for e in c.log if e.kind == "check"][-1].data["V"] == 50


@pytest.mark.rule("KIA-T12")
@pytest.mark.parametrize("a, opts, seats, order", [
    ({}, {}, True, ["B", "C", "A"]),
    ({}, {"turn_order": "descending"}, True, ["B", "A", "C"]),
    ({"quick_attack": 7}, {}, True, ["A", "B", "C"]),
    ({}, {}, False, ["B", "C", "A"]),
])
def test_KIA_T12_initiative_clockwise_quick_attack(a, opts, seats, order) -> None:
    """KIA-T12: KIA-1.1, KIA-1.2, KIA-1.4 - highest first, then clockwise by seat; quick attack adds its level."""
    c_ = fighter("C", "N", 2 if seats else None, [5, 0])
    a = dict(a)
    b = {}
    if not seats:
        a["seat"] = None
        b["seat"] = None
    c = play(fixture(a=a, b=b, extra=[c_], options=opts, start={"phase": "round_start"}), "d10=3 d10=9 d10=1")
    assert _order(c) == order and c.decision.actor == order[0] and c.decision.step == "D1"
    if a.get("quick_attack"):
        ev = [e for e in c.log if e.kind == "initiative_rolled" and e.actor == "A"][0].data
        assert (ev["die"], ev["initiative"], ev["quick_attack"], ev["total"]) == (3, 5, 7, 15)


@pytest.mark.rule("KIA-T13")
@pytest.mark.parametrize("cinit, opts, script, order", [
    (6, {}, "d10=1 d10=9 d10=8", ["C", "A", "B"]),
    (6, {"turn_order": "descending"}, "d10=1 d10=9 d10=8", ["C", "B", "A"]),
    (5, {}, "d10=9 d10=9 d10=1", ["A", "B", "C"]),
])
def test_KIA_T13_initiative_ties(cinit, opts, script, order) -> None:
    """KIA-T13: KIA-1.2 - ties: higher initiative value, then lower seat."""
    c_ = fighter("C", "N", 2, [5, 0], initiative=cinit)
    c = play(fixture(extra=[c_], options=opts, start={"phase": "round_start"}), script)
    assert _order(c) == order


@pytest.mark.rule("KIA-T28")
def test_KIA_T28_reattack_at_end_of_round() -> None:
    """KIA-T28: KIA-1.5, KIA-12.1 - own agility - target agility >= 5 re-attacks after every turn."""
    c = play(fixture(a={"agility": 17}), "d100=90 d100=30 d10=3 d10=4 d10=2 d10=10 d10=1", atk("B"), END, END)
    assert c.decision.actor == "A" and c.decision.step == "P1"
    assert Action("reattack", "B", None, (0, False)) in c.legal_actions() and c.legal_actions()[-1] == PASS
    c.act(Action("reattack", "B", None, (0, False)))
    c.act(NO_REACTION)
    assert wounds(c, "B") == {"moderate": 1}
    assert c.round == 2 and c.decision.actor == "A" and c.decision.step == "D1" and c.dice.remaining == 0
    started = [e for e in c.log if e.kind == "round_started"]
    assert started[-1].data["elapsed_seconds"] == 5
    # variants
    c = play(fixture(a={"agility": 17}, b={"agility": 13}), "d100=90 d10=10 d10=1", atk("B"), END, END)
    assert c.round == 2 and c.decision.step == "D1"
    c = play(fixture(a={"agility": 17}), "d10=10 d10=1", END, END)
    assert c.round == 2 and c.decision.step == "D1"
    c = play(fixture(a={"agility": 17}, options={"reattack_requires_attack": False}), "", END, END)
    assert c.decision.actor == "A" and c.decision.step == "P1"


@pytest.mark.rule("KIA-T55")
def test_KIA_T55_fleeing_and_round_cap() -> None:
    """KIA-T55: KIA-24.3, KIA-25.1."""
    c = play(fixture(a={"position": [0, 0]}, map={"exits": [[0, 0]]}), "", Action("flee"))
    assert c.state.fighters["A"].out == "fled" and c.result == "N"
    c = play(fixture(map={"exits": [[0, 0]]}), "", Action("move", dest=(0, 0)))
    moved = [e for e in c.log if e.kind == "moved"][-1].data
    assert moved["cost"] == 2 and Action("flee") in c.legal_actions()
    c = play(fixture(options={"round_cap": 1}), "", END, END)
    assert c.result == "draw" and c.outcome.termination.value == "round_cap"
