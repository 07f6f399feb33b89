"""Movement, full movement and charges (KIA-8, KIA-17) on the odd-r hex map."""

from __future__ import annotations

import pytest

from tests.rules.kiai.helpers import DODGE, END, atk, fighter, fixture, play, wounds
from trpg_arena.rules import Action


def _dests(c, verb: str) -> set[tuple[int, int]]:
    return {a.dest for a in c.legal_actions() if a.verb == verb}


@pytest.mark.rule("KIA-T14")
@pytest.mark.parametrize("agility", [12, 13])
def test_KIA_T14_normal_movement_and_difficult_terrain(agility) -> None:
    """KIA-T14: KIA-0.5, KIA-8.1, KIA-8.3, KIA-21.4, KIA-24.1 - move allowance floor(agility/2) of path cost."""
    enc = fixture(a={"position": [0, 2], "agility": agility}, b={"position": [9, 5]},
                  map={"difficult": [[1, r] for r in range(6)]})
    c = play(enc, "")
    assert (5, 2) in _dests(c, "move") and (6, 2) not in _dests(c, "move") and (6, 2) in _dests(c, "run")
    c.act(Action("move", dest=(5, 2)))
    moved = [e for e in c.log if e.kind == "moved"][-1].data
    assert moved["cost"] == 6 and [list(h) for h in moved["path"]] == [[0, 2], [1, 2], [2, 2], [3, 2], [4, 2], [5, 2]]
    assert c.decision.actor == "A" and c.decision.step == "D1"
    assert not {"move", "run", "charge"} & {a.verb for a in c.legal_actions()}


@pytest.mark.rule("KIA-T15")
def test_KIA_T15_passing_allies_not_enemies() -> None:
    """KIA-T15: KIA-8.3 - through allies, never through enemies; no opportunity attacks."""
    enc = fixture(a={"position": [0, 0]}, b={"position": [3, 0]}, extra=[fighter("D", "P", 2, [1, 0])],
                  map={"width": 6, "height": 1})
    c = play(enc, "")
    assert _dests(c, "move") == {(2, 0)}
    c.act(Action("move", dest=(2, 0)))
    assert c.decision.actor == "A" and c.decision.step == "D1"


@pytest.mark.rule("KIA-T16")
def test_KIA_T16_full_movement() -> None:
    """KIA-T16: KIA-8.2 - run up to agility; dodge -20 until the next turn; the run ends the turn."""
    enc = fixture(a={"position": [0, 0]}, b={"position": [9, 0]})
    c = play(enc, "d100=30 d100=21 d10=1 d10=2 d10=1 d10=10 d10=1")
    assert (8, 0) in _dests(c, "run") and (8, 0) not in _dests(c, "move")
    c.act(Action("run", dest=(8, 0)))
    assert c.decision.actor == "B" and c.decision.step == "D1"
    c.act(atk("A"))
    c.act(DODGE)
    dodge = [e for e in c.log if e.kind == "check"][-1].data
    assert (dodge["V"], dodge["C"]) == (20, 2)
    assert wounds(c, "A") == {"light": 1}
    c.act(END)
    assert c.round == 2 and c.decision.actor == "A"
    assert not c.state.fighters["A"].conds and c.dice.remaining == 0
    c = play(fixture(a={"position": [0, 0]}, b={"position": [9, 0]}, options={"run_allows_action": True}), "",
             Action("run", dest=(8, 0)))
    verbs = {a.verb for a in c.legal_actions()}
    assert c.decision.actor == "A" and "attack" in verbs and not {"move", "run", "charge"} & verbs


SPEAR_A = {"extra_weapons": ["spear"], "main": "spear", "position": [0, 0]}


@pytest.mark.rule("KIA-T36")
@pytest.mark.parametrize("a, expect", [
    ({}, {"serious": 1}),
    ({"extra_weapons": ["lance"], "main": "lance"}, "incapacitated"),
    ({"dragon_knight": True}, "dead"),
    ({"extra_weapons": ["lance"], "main": "lance", "airborne": True}, "incapacitated"),
])
def test_KIA_T36_charge_and_multipliers(a, expect) -> None:
    """KIA-T36: KIA-0.5, KIA-17.1, KIA-17.2, KIA-17.3 - x1.5 / x2 / x3, not stacking; dodge halved after."""
    a = {**SPEAR_A, **a}
    c = play(fixture(a=a, b={"position": [5, 0]}), "d100=30 d100=60 d10=4 d10=5 d10=3")
    assert Action("charge", "B", (4, 0)) in c.legal_actions()
    c.act(Action("charge", "B", (4, 0)))
    c.act(DODGE)
    assert c.state.fighters["A"].hex == (4, 0) and c.dice.remaining == 0
    if isinstance(expect, dict):
        assert wounds(c, "B") == expect
        assert [e for e in c.log if e.kind == "damage_rolled"][-1].data["total"] == 28
        assert c.decision.actor == "B" and c.decision.step == "D1"
        assert [x.type for x in c.state.fighters["A"].conds] == ["exposed_charge"]
        from trpg_arena.rules.kiai.strike import dodge_parts

        base, mult, mods, _ = dodge_parts(c.tables, c.state.fighters["A"], 0)
        assert (base, mult, mods) == (40, -2, [])
    else:
        assert c.state.fighters["B"].out == expect and c.result == "P"


@pytest.mark.rule("KIA-T37")
def test_KIA_T37_when_a_charge_is_illegal() -> None:
    """KIA-T37: KIA-17.1 - spear-class only, a run-up of at least two hexes, not after moving."""
    c = play(fixture(a={"position": [0, 0]}, b={"position": [5, 0]}), "")
    assert "charge" not in {a.verb for a in c.legal_actions()}
    c = play(fixture(a=SPEAR_A, b={"position": [2, 0]}), "")
    assert {a.dest for a in c.legal_actions() if a.verb == "charge" and a.target == "B"} == {(1, 1), (2, 1), (3, 0)}
    c.act(Action("move", dest=(0, 1)))
    assert "charge" not in {a.verb for a in c.legal_actions()}
