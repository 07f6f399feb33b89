"""Attack-defense and counter attacks (KIA-9, KIA-10)."""

from __future__ import annotations

import pytest

from tests.rules.kiai.helpers import DODGE, END, NO_REACTION, atk, fixture, play, wounds
from trpg_arena.rules import Action

AD = Action("attack_defense")
COUNTER = Action("counter")


def _cmp(c) -> dict:
    return [e for e in c.log if e.kind == "comparison"][-1].data


@pytest.mark.rule("KIA-T17")
def test_KIA_T17_attack_defense_defender_wins_and_ties() -> None:
    """KIA-T17: KIA-9.1, KIA-9.3 - the larger damage blocks; ties go to the defender."""
    c = play(fixture(), "d100=30 d100=50 d10=2 d10=3 d10=5 d10=6 d10=10 d10=1", atk("B"), AD)
    assert _cmp(c) == {"attacker_damage": 15, "defender_damage": 21, "winner": "defender"}
    assert wounds(c, "B") == {} and c.state.fighters["B"].parry_used
    assert not any(e.kind == "defense_rolled" for e in c.log)
    c.act(END)
    c.act(END)
    assert c.round == 2 and c.decision.actor == "A" and not c.state.fighters["B"].parry_used
    assert c.dice.remaining == 0
    c = play(fixture(), "d100=30 d100=50 d10=4 d10=5 d10=3 d10=6", atk("B"), AD)
    assert _cmp(c)["winner"] == "defender" and wounds(c, "B") == {}
    c = play(fixture(options={"ad_tie_winner": "attacker"}), "d100=30 d100=50 d10=4 d10=5 d10=3 d10=6 d10=5",
             atk("B"), AD)
    assert wounds(c, "B") == {"light": 1} and c.dice.remaining == 0


@pytest.mark.rule("KIA-T18")
def test_KIA_T18_attack_defense_attacker_wins() -> None:
    """KIA-T18: KIA-9.3 - the attacker's already rolled damage goes through."""
    c = play(fixture(), "d100=30 d100=50 d10=8 d10=9 d10=1 d10=2 d10=5", atk("B"), AD)
    assert wounds(c, "B") == {"moderate": 1} and c.state.fighters["B"].parry_used and c.dice.remaining == 0


@pytest.mark.rule("KIA-T19")
def test_KIA_T19_failed_attack_defense_second_try_two_weapons() -> None:
    """KIA-T19: KIA-9.2, KIA-9.4, KIA-11.1 - a failed check lands +1 and leaves the parry unused."""
    a = {"extra_weapons": ["dagger"], "off_hand": "dagger"}
    c = play(fixture(a=a), "d100=30 d100=80 d10=3 d10=4 d10=2 d100=35 d100=20 d10=6 d10=4 d10=3",
             Action("two_weapon_attack", "B", None, False))
    assert [e for e in c.log if e.kind == "check"][-1].data["V"] == 50
    c.act(AD)
    assert wounds(c, "B") == {"serious": 1} and not c.state.fighters["B"].parry_used
    assert c.decision.step == "D3" and c.legal_actions() == [Action("offhand_attack", "B"), END]
    c.act(Action("offhand_attack", "B"))
    assert [e for e in c.log if e.kind == "check"][-1].data["V"] == 40
    assert AD in c.legal_actions()
    c.act(AD)
    assert [e for e in c.log if e.kind == "check"][-1].data["V"] == 40
    assert c.state.fighters["B"].parry_used and _cmp(c)["winner"] == "defender"
    assert c.decision.actor == "B" and c.decision.step == "D1" and c.dice.remaining == 0


@pytest.mark.rule("KIA-T20")
def test_KIA_T20_attack_defense_is_used_up() -> None:
    """KIA-T20: KIA-9.2, KIA-15.1 - after a successful parry only dodge or nothing."""
    c = play(fixture(), "d100=30 d100=50 d10=2 d10=3 d10=5 d10=6 d100=5 d100=40", atk("B"), AD,
             Action("consecutive_attack", "B"))
    chk = [e for e in c.log if e.kind == "check"][-1].data
    assert (chk["V"], chk["C"]) == (55, 5)
    assert c.legal_actions() == [DODGE, NO_REACTION]


@pytest.mark.rule("KIA-T21")
def test_KIA_T21_parrying_and_countering_with_a_technique() -> None:
    """KIA-T21: KIA-9.5, KIA-10.4, KIA-21.1 - twice the level in kiai; the technique's damage."""
    b = {"knows": ["flash_cut"]}
    c = play(fixture(b=b), "d100=30 d100=50 d10=2 d10=3 d10=1 d10=2 d10=4", atk("B"))
    legal = c.legal_actions()
    assert Action("attack_defense", option="flash_cut") in legal and Action("counter", option="flash_cut") in legal
    c.act(Action("attack_defense", option="flash_cut"))
    assert c.state.fighters["B"].kiai == 4 and _cmp(c) == {"attacker_damage": 15, "defender_damage": 17,
                                                           "winner": "defender"}
    c = play(fixture(b={**b, "kiai": 5}), "d100=30", atk("B"))
    assert [a for a in c.legal_actions() if a.option] == []
    assert AD in c.legal_actions() and COUNTER in c.legal_actions()
    c = play(fixture(b=b), "d100=30 d100=45 d10=3 d10=4 d10=2", atk("B"), Action("counter", option="flash_cut"))
    assert c.state.fighters["B"].kiai == 4 and wounds(c, "B") == {"serious": 1} and c.dice.remaining == 0


@pytest.mark.rule("KIA-T22")
def test_KIA_T22_successful_counter() -> None:
    """KIA-T22: KIA-1.5, KIA-10.1, KIA-10.2 - the counter strike deals both damages; no attack that round."""
    c = play(fixture(), "d100=30 d100=25 d10=3 d10=4 d10=6 d10=5 d100=90 d10=10 d10=1 d10=10", atk("B"), COUNTER)
    b = c.state.fighters["B"]
    assert b.parry_used and b.countered
    assert c.decision.actor == "A" and c.decision.step == "R2" and c.legal_actions() == [DODGE, NO_REACTION]
    c.act(DODGE)
    assert wounds(c, "A") == {"serious": 1} and wounds(c, "B") == {}
    assert [e for e in c.log if e.kind == "wound_recorded"][-1].data["net"] == 23
    assert c.decision.actor == "A" and c.decision.step == "D2"
    c.act(END)
    assert {a.verb for a in c.legal_actions()} == {"move", "run", "concentrate_dodge", "end_turn"}
    c.act(END)
    assert c.round == 2 and [e for e in c.log if e.kind == "round_started"][-1].data["elapsed_seconds"] == 5
    assert c.decision.actor == "B" and atk("B") not in c.legal_actions() and atk("A") in c.legal_actions()
    assert c.dice.remaining == 0


@pytest.mark.rule("KIA-T23")
def test_KIA_T23_failed_counter() -> None:
    """KIA-T23: KIA-10.3 - a failed counter lands +1 and still forbids attacking."""
    c = play(fixture(), "d100=30 d100=45 d10=3 d10=4 d10=2", atk("B"), COUNTER)
    b = c.state.fighters["B"]
    assert wounds(c, "B") == {"serious": 1} and b.countered and not b.parry_used
    c.act(END)
    assert {a.verb for a in c.legal_actions()} == {"move", "run", "concentrate_dodge", "end_turn"}


@pytest.mark.rule("KIA-T24")
def test_KIA_T24_counter_that_loses_the_comparison() -> None:
    """KIA-T24: KIA-10.3 - the attacker's damage lands without +1; variant without comparison."""
    c = play(fixture(), "d100=30 d100=25 d10=8 d10=9 d10=1 d10=2 d10=5", atk("B"), COUNTER)
    assert wounds(c, "B") == {"moderate": 1} and c.state.fighters["B"].countered and c.dice.remaining == 0
    c = play(fixture(options={"counter_requires_winning": False}), "d100=30 d100=25 d10=8 d10=9 d10=1 d10=2 d10=5",
             atk("B"), COUNTER, NO_REACTION)
    assert c.state.fighters["A"].out == "incapacitated" and c.result == "N"


@pytest.mark.rule("KIA-T25")
def test_KIA_T25_no_counter_after_attacking() -> None:
    """KIA-T25: KIA-10.1."""
    c = play(fixture(order=["B", "A"]), "d100=90 d100=30", atk("A"), END, atk("B"))
    assert c.legal_actions() == [DODGE, AD, NO_REACTION]


@pytest.mark.rule("KIA-T26")
def test_KIA_T26_when_attack_defense_is_not_allowed() -> None:
    """KIA-T26: KIA-9.6 - out of the defender's reach, intimidated, or a manoeuvre."""
    c = play(fixture(a={"extra_weapons": ["pike"], "main": "pike", "position": [1, 0]}), "d100=30", atk("B"))
    assert c.decision.step == "R1" and c.legal_actions() == [DODGE, NO_REACTION]
    start = {"combatants": {"B": {"conditions": [{"type": "intimidated", "source": "A", "n": 1}]}}}
    c = play(fixture(start=start), "d100=30", atk("B"))
    assert c.legal_actions() == [DODGE, NO_REACTION]
    c = play(fixture(), "d100=20", Action("disarm", "B"))
    assert [e for e in c.log if e.kind == "check"][-1].data["V"] == 30
    assert c.legal_actions() == [DODGE, NO_REACTION]


@pytest.mark.rule("KIA-24.1")
def test_out_during_own_turn_ends_it() -> None:
    """KIA-24.1: a combatant taken out by a counter strike during its own turn gets no D2."""
    from tests.rules.kiai.helpers import fighter

    enc = fixture(extra=[fighter("D", "P", 2, [9, 5])], options={"counter_requires_winning": False})
    c = play(enc, "d100=30 d100=25 d10=8 d10=9 d10=1 d10=2 d10=5", atk("B"), COUNTER, NO_REACTION)
    assert c.state.fighters["A"].out == "incapacitated" and not c.over
    assert c.decision.actor == "B" and c.decision.step == "D1" and c.dice.remaining == 0
