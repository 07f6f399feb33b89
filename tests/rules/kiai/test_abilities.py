"""Concentrating on dodging, techniques and spells, status effects and the kiai pool (KIA-20 to KIA-23)."""

from __future__ import annotations

import pytest

from tests.rules.kiai.helpers import DODGE, END, NO_REACTION, atk, fighter, fixture, play, wounds
from trpg_arena.rules import Action


def _checks(c) -> list[dict]:
    return [e.data for e in c.log if e.kind == "check"]


def _use(ability: str, target: str | None = "B", dest=None) -> Action:
    return Action("use_ability", target, dest, ability)


def _conds(c, cid: str) -> list[tuple[str, int]]:
    return [(x.type, x.n) for x in c.state.fighters[cid].conds]


@pytest.mark.rule("KIA-T42")
def test_KIA_T42_concentrating_bonus() -> None:
    """KIA-T42: KIA-20.1 - +20 to every dodge until its next turn; no parry, no re-attack."""
    enc = fixture(b={"agility": 17}, order=["B", "A"], options={"reattack_requires_attack": False})
    c = play(enc, "d100=30 d100=55 d10=10 d10=1 d100=30 d100=59", Action("concentrate_dodge", option="bonus"),
             atk("B"))
    assert c.legal_actions() == [DODGE, NO_REACTION]
    c.act(DODGE)
    assert (_checks(c)[-1]["V"], _checks(c)[-1]["C"], _checks(c)[-1]["grade"]) == (60, 6, "SUCCESS")
    c.act(END)
    assert c.round == 2 and c.decision.actor == "A"
    c.act(atk("B"))
    c.act(DODGE)
    assert _checks(c)[-1]["V"] == 60 and c.dice.remaining == 0


@pytest.mark.rule("KIA-T43")
@pytest.mark.parametrize("script, expect, result", [
    ("d100=30 d100=70 d100=35", {}, "dodged"),
    ("d100=30 d100=70 d100=45 d10=1 d10=2 d10=3", {"light": 1}, "lands"),
    ("d100=3 d100=70 d100=2", {}, "complete_dodge"),
])
def test_KIA_T43_concentrating_twice(script, expect, result) -> None:
    """KIA-T43: KIA-20.1 - two D100 against the same value, the better grade counts."""
    c = play(fixture(order=["B", "A"]), script, Action("concentrate_dodge", option="twice"), atk("B"), DODGE)
    assert wounds(c, "B") == expect and c.dice.remaining == 0
    assert [e.data["result"] for e in c.log if e.kind == "strike_resolved"] == [result]


@pytest.mark.rule("KIA-T44")
def test_KIA_T44_melee_damage_technique() -> None:
    """KIA-T44: KIA-21.1, KIA-21.2, KIA-21.5 - level in kiai; attack + level D10."""
    a = {"knows": ["flash_cut"]}
    c = play(fixture(a=a), "d100=30 d10=4 d10=5 d10=6 d10=5", atk("B", ability="flash_cut"), NO_REACTION)
    assert c.state.fighters["A"].kiai == 7 and wounds(c, "B") == {"moderate": 1}
    c = play(fixture(a=a), "d100=30 d10=3 d10=3 d10=3 d10=1 d10=2 d10=4 d10=5", atk("B", ability="flash_cut"),
             NO_REACTION)
    assert [e for e in c.log if e.kind == "damage_rolled"][-1].data["total"] == 26
    assert wounds(c, "B") == {"moderate": 1} and c.dice.remaining == 0
    c = play(fixture(a={**a, "kiai": 2}), "")
    assert not [x for x in c.legal_actions() if x.verb == "attack" and x.option[2]]
    assert not [x for x in c.legal_actions() if x.verb == "use_ability"]
    c = play(fixture(a=a, options={"ability_damage_base": "none"}), "d100=30 d10=4 d10=5 d10=6 d10=5",
             atk("B", ability="flash_cut"), NO_REACTION)
    assert wounds(c, "B") == {"light": 1}


@pytest.mark.rule("KIA-T45")
def test_KIA_T45_area_spell_is_indiscriminate() -> None:
    """KIA-T45: KIA-21.3, KIA-21.4, KIA-21.5 - radius = level; one hit check, one damage roll, allies too."""
    enc = fixture(a={"position": [0, 0], "knows": ["fire_burst"]}, b={"position": [5, 0]},
                  extra=[fighter("C", "N", 2, [6, 0]), fighter("D", "P", 3, [4, 0])])
    c = play(enc, "d100=20 d100=50 d100=10 d10=3 d10=4 d10=2 d10=5")
    assert _use("fire_burst", None, (5, 0)) in c.legal_actions()
    assert _use("fire_burst", None, (7, 0)) not in c.legal_actions()
    c.act(_use("fire_burst", None, (5, 0)))
    assert c.state.fighters["A"].kiai == 8 and (_checks(c)[0]["V"], _checks(c)[0]["C"]) == (50, 5)
    assert (c.decision.actor, c.decision.step) == ("B", "R3")
    c.act(DODGE)
    assert c.decision.actor == "C"
    c.act(NO_REACTION)
    assert c.decision.actor == "D"
    c.act(DODGE)
    assert wounds(c, "B") == {"moderate": 1} and wounds(c, "C") == {"light": 1} and wounds(c, "D") == {}
    assert len([e for e in c.log if e.kind == "damage_rolled"]) == 1 and c.dice.remaining == 0


@pytest.mark.rule("KIA-T46")
def test_KIA_T46_ranged_spell_and_line_of_sight() -> None:
    """KIA-T46: KIA-21.5 - magic attack to hit; a blocked hex in between hides the target."""
    a = {"position": [2, 0], "knows": ["dark_bolt"]}
    c = play(fixture(a=a, b={"position": [6, 0]}), "d100=25 d100=60 d10=5 d10=6 d10=4", _use("dark_bolt"))
    assert c.state.fighters["A"].kiai == 8 and c.legal_actions() == [DODGE, NO_REACTION]
    c.act(DODGE)
    assert wounds(c, "B") == {"moderate": 1} and c.dice.remaining == 0
    c = play(fixture(a=a, b={"position": [6, 0]}, map={"blocked": [[4, 0]]}), "")
    assert _use("dark_bolt") not in c.legal_actions()


@pytest.mark.rule("KIA-T47")
def test_KIA_T47_stun_spell_and_no_reactions() -> None:
    """KIA-T47: KIA-3.5, KIA-22.2, KIA-23.3 - caster against magic defense; stunned skips turns and cannot react."""
    a = {"knows": ["sleep"]}
    c = play(fixture(a=a), "d100=30 d100=50 d10=10 d10=1 d100=30 d10=1 d10=2 d10=3 d10=1 d10=10", _use("sleep"))
    assert c.state.fighters["A"].kiai == 8 and c.round == 2 and c.decision.actor == "A"
    assert _conds(c, "B") == [("stunned", 1)]
    c.act(atk("B"))
    assert c.decision.actor == "A" and c.decision.step == "D2" and wounds(c, "B") == {"light": 1}
    c.act(END)
    assert c.round == 3 and c.decision.actor == "B" and c.decision.step == "D1" and _conds(c, "B") == []
    assert c.dice.remaining == 0
    c = play(fixture(a=a), "d100=60", _use("sleep"))
    assert c.decision.actor == "B" and _conds(c, "B") == [] and c.dice.remaining == 0
    c = play(fixture(a=a), "d100=30 d100=15", _use("sleep"))
    assert _conds(c, "B") == []
    c = play(fixture(a=a), "d100=4 d100=15 d10=10 d10=1", _use("sleep"))
    assert _conds(c, "B") == [("stunned", 1)] and c.round == 2 and c.decision.actor == "A"
    c = play(fixture(a=a), "d100=4 d100=2", _use("sleep"))
    assert _conds(c, "B") == []


@pytest.mark.rule("KIA-T48")
def test_KIA_T48_touch_spell() -> None:
    """KIA-T48: KIA-22.1 - a touch spell hits (with the hit value) before the caster check."""
    a = {"knows": ["paralyse"]}
    c = play(fixture(a=a), "d100=30 d100=70 d100=30 d100=50 d10=10 d10=1", _use("paralyse"))
    assert c.state.fighters["A"].kiai == 9 and _checks(c)[0]["V"] == 60
    assert c.legal_actions() == [DODGE, NO_REACTION]
    c.act(DODGE)
    assert c.round == 2 and c.decision.actor == "A" and _conds(c, "B") == [] and c.dice.remaining == 0
    assert any(e.kind == "turn_skipped" and e.actor == "B" for e in c.log)
    c = play(fixture(a=a), "d100=61", _use("paralyse"))
    assert c.state.fighters["A"].kiai == 9 and c.decision.actor == "B" and c.dice.remaining == 0


@pytest.mark.rule("KIA-T49")
def test_KIA_T49_intimidation() -> None:
    """KIA-T49: KIA-23.2, KIA-23.3 - no attack-type action names the intimidator; N counts down at turn end."""
    a = {"knows": ["shout"]}
    c = play(fixture(a=a), "d100=25 d10=10 d10=1 d100=30 d100=10 d10=1 d10=10", _use("shout"))
    assert c.state.fighters["A"].kiai == 8 and _conds(c, "B") == [("intimidated", 2)]
    assert _checks(c)[0]["V"] == 20
    assert {a.verb for a in c.legal_actions()} == {"move", "run", "concentrate_dodge", "end_turn"}
    c.act(END)
    assert _conds(c, "B") == [("intimidated", 1)]
    c.act(atk("B"))
    assert c.legal_actions() == [DODGE, NO_REACTION]
    c.act(DODGE)
    c.act(END)
    c.act(END)
    assert _conds(c, "B") == [] and c.round == 3 and c.decision.actor == "B"
    assert atk("A") in c.legal_actions() and c.dice.remaining == 0
    c = play(fixture(a=a), "d100=20", _use("shout"))
    assert _conds(c, "B") == []


@pytest.mark.rule("KIA-T50")
def test_KIA_T50_illusion() -> None:
    """KIA-T50: KIA-23.2, KIA-23.3 - intelligence x 2 resists; -20 to hit and dodge while deceived."""
    a = {"knows": ["mirage"]}
    c = play(fixture(a=a), "d100=21 d100=41 d10=10 d10=1 d100=30 d100=40", _use("mirage"))
    assert c.state.fighters["A"].kiai == 9 and _conds(c, "B") == [("deceived", 1)]
    c.act(atk("A"))
    assert (_checks(c)[-1]["V"], _checks(c)[-1]["grade"]) == (40, "FAILURE")
    c.act(END)
    assert _conds(c, "B") == [] and c.round == 2
    c.act(atk("B"))
    c.act(DODGE)
    assert (_checks(c)[-1]["V"], _checks(c)[-1]["grade"]) == (40, "SUCCESS") and c.dice.remaining == 0
    c = play(fixture(a=a), "d100=19", _use("mirage"))
    assert _conds(c, "B") == [] and c.decision.actor == "B"


@pytest.mark.rule("KIA-T51")
def test_KIA_T51_melee_non_attack_technique() -> None:
    """KIA-T51: KIA-23.1 - hit first, then the target resists."""
    a = {"knows": ["stunning_blow"]}
    c = play(fixture(a=a), "d100=30 d100=70 d100=40 d10=10 d10=1", _use("stunning_blow"))
    assert c.state.fighters["A"].kiai == 9 and c.legal_actions() == [DODGE, NO_REACTION]
    c.act(DODGE)
    assert c.round == 2 and c.decision.actor == "A" and c.dice.remaining == 0
    c = play(fixture(a=a), "d100=30 d100=10", _use("stunning_blow"), DODGE)
    assert _conds(c, "B") == [] and c.decision.actor == "B" and c.dice.remaining == 0


@pytest.mark.rule("KIA-T52")
def test_KIA_T52_one_kiai_pool() -> None:
    """KIA-T52: KIA-0.4, KIA-21.1 - feints and techniques pay from the same pool."""
    c = play(fixture(a={"knows": ["flash_cut"], "kiai": 8}), "d100=90 d10=10 d10=1 d100=90 d10=10 d10=1",
             Action("feint", "B", None, 1), END)
    assert c.state.fighters["A"].kiai == 3 and c.round == 2
    legal = c.legal_actions()
    assert atk("B", ability="flash_cut") in legal and "feint" not in {a.verb for a in legal}
    c.act(atk("B", ability="flash_cut"))
    c.act(END)
    c.act(END)
    assert c.round == 3 and c.state.fighters["A"].kiai == 0
    assert not [a for a in c.legal_actions() if a.verb == "attack" and a.option[2]] and c.dice.remaining == 0


@pytest.mark.rule("KIA-T53")
def test_KIA_T53_action_budget_and_legal_targets() -> None:
    """KIA-T53: KIA-2.2, KIA-24.1 - one movement and one main action; allies are never targets."""
    c = play(fixture(extra=[fighter("D", "P", 2, [2, 1])]), "d100=90")
    legal = c.legal_actions()
    assert {a.verb for a in legal} == {"move", "run", "attack", "feint", "break_weapon", "disarm",
                                       "concentrate_dodge", "end_turn"}
    assert not [a for a in legal if a.target == "D"]
    c.act(Action("move", dest=(3, 1)))
    assert [e for e in c.log if e.kind == "moved"][-1].data["cost"] == 2
    assert not {"move", "run", "charge"} & {a.verb for a in c.legal_actions()} and atk("B") in c.legal_actions()
    c.act(atk("B"))
    c.act(END)
    assert c.decision.actor == "B" and c.decision.step == "D1" and c.dice.remaining == 0
    start = {"combatants": {"B": {"wounds": {"mortal": 1}}}}
    c = play(fixture(extra=[fighter("C", "N", 2, [8, 5])], start=start), "")
    assert not [a for a in c.legal_actions() if a.target == "B"]
