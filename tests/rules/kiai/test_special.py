"""Special actions: two-weapon, all-out, feint, consecutive attacks and technique (KIA-11, KIA-13 to KIA-16)."""

from __future__ import annotations

import pytest

from tests.rules.kiai.helpers import DODGE, END, NO_REACTION, atk, fixture, play, wounds
from trpg_arena.rules import Action

OFF_DAGGER = {"extra_weapons": ["dagger"], "off_hand": "dagger"}
CONSEC = Action("consecutive_attack", "B")


def _checks(c) -> list[dict]:
    return [e.data for e in c.log if e.kind == "check"]


@pytest.mark.rule("KIA-T27")
def test_KIA_T27_two_weapon_attack() -> None:
    """KIA-T27: KIA-11.1 - main hand -10, off hand -20, each with its own weapon dice."""
    c = play(fixture(a=OFF_DAGGER), "d100=50 d10=4 d10=5 d10=3 d100=41", Action("two_weapon_attack", "B", None, False),
             NO_REACTION, Action("offhand_attack", "B"))
    assert [x["V"] for x in _checks(c)] == [50, 40] and [x["C"] for x in _checks(c)] == [5, 4]
    assert wounds(c, "B") == {"moderate": 1} and c.decision.actor == "B" and c.decision.step == "D1"
    c = play(fixture(), "")
    assert "two_weapon_attack" not in {a.verb for a in c.legal_actions()}
    c = play(fixture(a={"extra_weapons": ["spear", "dagger"], "main": "spear"}), "")
    assert "two_weapon_attack" not in {a.verb for a in c.legal_actions()}
    c = play(fixture(a=OFF_DAGGER), "d100=99 d100=99", Action("two_weapon_attack", "B", None, True),
             Action("offhand_attack", "B"))
    assert [x["V"] for x in _checks(c)] == [110, 100]


@pytest.mark.rule("KIA-T29")
def test_KIA_T29_all_out_attack() -> None:
    """KIA-T29: KIA-0.3, KIA-13.1 - hit x2 with its critical value; own dodge halved until the next turn."""
    c = play(fixture(), "d100=12 d100=50 d10=3 d10=4 d10=6 d100=30 d100=21 d10=1 d10=2 d10=1 d10=10 d10=1",
             atk("B", all_out=True))
    assert (_checks(c)[0]["V"], _checks(c)[0]["C"], _checks(c)[0]["grade"]) == (120, 12, "CRITICAL")
    c.act(DODGE)
    c.act(END)
    c.act(atk("A"))
    c.act(DODGE)
    assert (_checks(c)[-1]["V"], _checks(c)[-1]["C"]) == (20, 2)
    c.act(END)
    assert wounds(c, "B") == {"moderate": 1} and wounds(c, "A") == {"light": 1}
    assert c.round == 2 and c.decision.actor == "A" and not c.state.fighters["A"].conds and c.dice.remaining == 0
    c = play(fixture(), "d100=96", atk("B", all_out=True))
    assert _checks(c)[0]["grade"] == "FUMBLE"


@pytest.mark.rule("KIA-T30")
def test_KIA_T30_feint_every_strike_dodged() -> None:
    """KIA-T30: KIA-3.4, KIA-14.1, KIA-14.2 - one dodge per strike; +20 on the chosen strike."""
    c = play(fixture(), "d100=40 d100=10 d100=75 d100=20 d100=65", Action("feint", "B", None, 2))
    assert c.state.fighters["A"].kiai == 5 and c.legal_actions() == [DODGE, NO_REACTION]
    c.act(DODGE)
    assert c.legal_actions() == [DODGE, NO_REACTION]
    c.act(DODGE)
    att = [x for x in _checks(c) if x["combatant"] == "A"]
    assert [x["V"] for x in att] == [60, 80, 60] and att[1]["C"] == 8
    assert wounds(c, "B") == {} and c.decision.actor == "B" and c.decision.step == "D1" and c.dice.remaining == 0


@pytest.mark.rule("KIA-T31")
def test_KIA_T31_feint_that_lands() -> None:
    """KIA-T31: KIA-14.1, KIA-14.2 - the feint ends at the first landing strike (unless the flag says otherwise)."""
    c = play(fixture(), "d100=40 d100=90 d10=3 d10=4 d10=6", Action("feint", "B", None, 1), DODGE)
    assert _checks(c)[0]["V"] == 80 and wounds(c, "B") == {"light": 1} and c.state.fighters["A"].kiai == 5
    assert c.decision.actor == "B" and c.dice.remaining == 0
    c = play(fixture(options={"feint_multiple_hits": True}), "d100=40 d100=90 d10=3 d10=4 d10=6 d100=70",
             Action("feint", "B", None, 1), DODGE)
    assert _checks(c)[-1]["V"] == 60 and c.decision.actor == "B" and c.dice.remaining == 0
    c = play(fixture(a={"kiai": 4}), "")
    assert "feint" not in {a.verb for a in c.legal_actions()}
    c = play(fixture(a={"spirit": 5}, options={"separate_spirit_pool": True}), "d100=90",
             Action("feint", "B", None, 1))
    a = c.state.fighters["A"]
    assert (a.spirit, a.kiai) == (0, 10)


@pytest.mark.rule("KIA-T32")
def test_KIA_T32_consecutive_attacks() -> None:
    """KIA-T32: KIA-15.1, KIA-15.2, KIA-15.3 - one agility check; -5, -15, -30; a fumble stops the chain."""
    c = play(fixture(), "d100=30 d10=1 d10=2 d10=8 d100=12 d100=56 d100=45 d10=3 d10=4 d10=2 d100=97",
             atk("B"), NO_REACTION, CONSEC, CONSEC, NO_REACTION, CONSEC)
    vs = [(x["purpose"], x["V"]) for x in _checks(c)]
    assert vs == [("hit", 60), ("agility", 12), ("hit", 55), ("hit", 45), ("hit", 30)]
    assert c.legal_actions() == [END] and wounds(c, "B") == {"moderate": 1} and c.dice.remaining == 0


@pytest.mark.rule("KIA-T33")
def test_KIA_T33_failed_agility_check() -> None:
    """KIA-T33: KIA-15.1 - a failed agility check ends the turn at once."""
    c = play(fixture(), "d100=90 d100=13", atk("B"), CONSEC)
    assert c.decision.actor == "B" and c.decision.step == "D1" and c.dice.remaining == 0


@pytest.mark.rule("KIA-T34")
def test_KIA_T34_chain_runs_out_of_hit_value() -> None:
    """KIA-T34: KIA-15.2, KIA-15.3 - no strike with V <= 0."""
    c = play(fixture(), "d100=90 d100=1 d100=90 d100=90 d100=90 d100=90", atk("B"), CONSEC, CONSEC, CONSEC, CONSEC)
    assert [x["V"] for x in _checks(c)] == [60, 12, 55, 45, 30, 10] and _checks(c)[-1]["C"] == 1
    assert c.legal_actions() == [END]


@pytest.mark.rule("KIA-T35")
def test_KIA_T35_technique() -> None:
    """KIA-T35: KIA-0.3, KIA-16.1, KIA-16.2 - -X to own hit and the target's dodge; kept through the chain."""
    c = play(fixture(), "d100=5 d100=21 d10=3 d10=4 d10=2 d100=10 d100=30 d100=11 d10=1 d10=2 d10=3")
    xs = {a.option[0] for a in c.legal_actions() if a.verb == "attack" and a.option[1:] == (False, "")}
    assert xs == {0, 10, 20, 30, 40, 50}
    xs = {a.option[0] for a in c.legal_actions() if a.verb == "attack" and a.option[1:] == (True, "")}
    assert xs == set(range(0, 120, 10))
    c.act(atk("B", x=20))
    c.act(DODGE)
    assert [(x["V"], x["C"], x["grade"]) for x in _checks(c)] == [(40, 4, "SUCCESS"), (20, 2, "FAILURE")]
    c.act(CONSEC)
    c.act(DODGE)
    assert [(x["V"], x["C"]) for x in _checks(c)[2:]] == [(12, 1), (35, 3), (10, 1)]
    assert wounds(c, "B") == {"light": 1, "moderate": 1} and c.dice.remaining == 0
    c = play(fixture(options={"technique_chain_dodge_reduction": False}),
             "d100=5 d100=21 d10=3 d10=4 d10=2 d100=10 d100=30 d100=11", atk("B", x=20), DODGE, CONSEC, DODGE)
    assert (_checks(c)[-1]["V"], _checks(c)[-1]["grade"]) == (30, "SUCCESS")
    start = {"combatants": {"A": {"wounds": {"moderate": 1}}}}
    c = play(fixture(start=start), "d100=80", atk("B", x=30, all_out=True))
    assert (_checks(c)[0]["V"], _checks(c)[0]["C"], _checks(c)[0]["grade"]) == (80, 8, "SUCCESS")
    assert c.decision.actor == "B" and c.decision.step == "R1"
