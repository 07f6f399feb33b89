"""Option flags of section 3 that the acceptance scenarios leave at their defaults."""

from __future__ import annotations

import pytest

from tests.rules.kiai.helpers import DODGE, NO_REACTION, atk, fixture, play, wounds
from trpg_arena.rules import Action


def _checks(c) -> list[dict]:
    return [e.data for e in c.log if e.kind == "check"]


@pytest.mark.rule("KIA-0.2")
def test_crit_divisor() -> None:
    """KIA-0.2: C = floor(V / crit_divisor)."""
    c = play(fixture(options={"crit_divisor": 5}), "d100=12", atk("B"))
    assert (_checks(c)[0]["C"], _checks(c)[0]["grade"]) == (12, "CRITICAL")


@pytest.mark.rule("KIA-4.2")
def test_explode_defense() -> None:
    """KIA-4.2: with explode_defense, all-equal defense dice explode too."""
    c = play(fixture(b={"armour": {"level": 2}}, options={"explode_defense": True}),
             "d100=20 d10=1 d10=2 d10=3 d10=3 d10=1 d10=1 d10=2 d10=4", atk("B"), NO_REACTION)
    assert [e for e in c.log if e.kind == "defense_rolled"][0].data["total"] == 5 + 6 + 2 + 6
    assert c.dice.remaining == 0


@pytest.mark.rule("KIA-7.2")
def test_damage_level_multipliers() -> None:
    """KIA-7.2: thresholds = max(1, ceil(L x multiplier)); KIA-7.3 finds the level."""
    from trpg_arena.rules.kiai.context import thresholds

    assert thresholds(10, {"light": 0.5, "moderate": 1, "serious": 2, "mortal": 3, "dead": 4}) == (5, 10, 20, 30, 40)
    assert thresholds(9, {"light": 0.5, "moderate": 1, "serious": 2, "mortal": 3, "dead": 4}) == (5, 9, 18, 27, 36)
    assert thresholds(1, {"light": 0.1, "moderate": 1, "serious": 2, "mortal": 3, "dead": 4}) == (1, 1, 2, 3, 4)
    opts = {"damage_level_multipliers": {"light": 0.2, "moderate": 0.5, "serious": 1, "mortal": 1.5, "dead": 2}}
    c = play(fixture(options=opts), "d100=30 d10=3 d10=4 d10=2", atk("B"), NO_REACTION)
    assert wounds(c, "B") == {"serious": 1}  # net 10 >= 10 (1 x 10)


@pytest.mark.rule("KIA-7.6")
def test_wound_penalties() -> None:
    """KIA-7.6: the penalty per status comes from wound_penalties."""
    start = {"combatants": {"A": {"wounds": {"light": 1}}}}
    c = play(fixture(start=start, options={"wound_penalties": {"light": -5}}), "d100=99", atk("B"))
    assert _checks(c)[0]["V"] == 55


@pytest.mark.rule("KIA-16.1")
def test_technique_step() -> None:
    """KIA-16.1: technique X in steps of technique_step."""
    c = play(fixture(options={"technique_step": 25}), "")
    xs = {a.option[0] for a in c.legal_actions() if a.verb == "attack" and a.option[1:] == (False, "")}
    assert xs == {0, 25, 50}


@pytest.mark.rule("KIA-17.1")
def test_charge_min_distance() -> None:
    """KIA-17.1: charge destinations at least charge_min_distance from the start."""
    a = {"extra_weapons": ["spear"], "main": "spear", "position": [0, 0]}
    c = play(fixture(a=a, b={"position": [2, 0]}, options={"charge_min_distance": 3}), "")
    assert {x.dest for x in c.legal_actions() if x.verb == "charge"} == {(2, 1), (3, 0)}


@pytest.mark.rule("KIA-23.3")
def test_status_duration_and_illusion_penalty() -> None:
    """KIA-23.3: a fixed status_duration and the illusion_penalty."""
    c = play(fixture(a={"knows": ["mirage"]}, options={"status_duration": 3, "illusion_penalty": 15}), "d100=21",
             Action("use_ability", "B", None, "mirage"))
    assert [(x.type, x.n) for x in c.state.fighters["B"].conds] == [("deceived", 3)]
    c.dice = type(c.dice)([(100, 99)])
    c.act(atk("A"))
    assert _checks(c)[-1]["V"] == 45


@pytest.mark.rule("KIA-20.1")
def test_concentrating_excludes_parry() -> None:
    """KIA-20.1: only dodge or no reaction while concentrating."""
    c = play(fixture(order=["B", "A"]), "d100=30 d100=99 d10=1 d10=1 d10=1",
             Action("concentrate_dodge", option="bonus"), atk("B"))
    assert c.legal_actions() == [DODGE, NO_REACTION]
