"""Scenarios of the basic strike: hit, dodge, criticals, damage, defense (KIA-T1 to KIA-T9)."""

from __future__ import annotations

import pytest

from tests.rules.kiai.helpers import DODGE, END, NO_REACTION, atk, fixture, play, wounds
from trpg_arena.rules import Action, ScriptedDice


@pytest.mark.rule("KIA-T1")
def test_KIA_T1_basic_hit_against_failed_dodge() -> None:
    """KIA-T1: KIA-0.1, KIA-2.1, KIA-2.3, KIA-3.1, KIA-3.4, KIA-4.1, KIA-6.1, KIA-7.1, KIA-7.2, KIA-7.3,
    KIA-7.5, KIA-7.6."""
    c = play(fixture(), "d100=35 d100=70 d10=7 d10=5 d10=4", atk("B"))
    assert c.decision.actor == "B" and c.decision.step == "R1"
    assert c.legal_actions() == [DODGE, Action("attack_defense"), Action("counter"), NO_REACTION]
    c.act(DODGE)
    assert wounds(c, "B") == {"moderate": 1}
    assert c.decision.actor == "A" and c.decision.step == "D2"
    assert c.legal_actions() == [Action("consecutive_attack", "B"), END]
    assert c.dice.remaining == 0
    dmg = [e for e in c.log if e.kind == "damage_rolled"][0]
    assert dmg.data["total"] == 22
    assert [e for e in c.log if e.kind == "defense_rolled"][0].data["total"] == 9
    # B's hit V is now 50 and dodge 30 (moderate, KIA-7.6)
    c.act(END)
    c2 = c.clone()
    c2.dice = ScriptedDice([(100, 51)])
    c2.act(atk("A"))
    chk = [e for e in c2.log if e.kind == "check"][-1]
    assert chk.data["V"] == 50 and chk.data["C"] == 5


@pytest.mark.rule("KIA-T2")
def test_KIA_T2_miss_and_boundary() -> None:
    """KIA-T2: KIA-2.1, KIA-2.3 - a miss rolls nothing else; V itself succeeds."""
    c = play(fixture(), "d100=61", atk("B"))
    assert c.decision.actor == "A" and c.decision.step == "D2" and c.dice.remaining == 0
    c = play(fixture(), "d100=60", atk("B"))
    assert c.decision.actor == "B" and c.decision.step == "R1"


def _grades(c) -> list[str]:
    return [e.data["grade"] for e in c.log if e.kind == "check"]


def _result(c) -> list[str]:
    return [e.data["result"] for e in c.log if e.kind == "strike_resolved"]


@pytest.mark.rule("KIA-T3")
def test_KIA_T3_dodge_turns_critical_into_normal_hit() -> None:
    """KIA-T3: KIA-0.2, KIA-3.2."""
    c = play(fixture(), "d100=6 d100=40 d10=3 d10=4 d10=6", atk("B"), DODGE)
    assert _grades(c) == ["CRITICAL", "SUCCESS"]
    assert wounds(c, "B") == {"light": 1} and c.dice.remaining == 0


@pytest.mark.rule("KIA-T4")
def test_KIA_T4_complete_dodge() -> None:
    """KIA-T4: KIA-3.3 - a critical dodge beats a critical hit; no damage dice."""
    c = play(fixture(), "d100=1 d100=4", atk("B"), DODGE)
    assert _result(c) == ["complete_dodge"] and wounds(c, "B") == {} and c.dice.remaining == 0


@pytest.mark.rule("KIA-T5")
@pytest.mark.parametrize("case, script, react, opts, expect", [
    ("a", "d100=2 d100=41 d10=3 d10=4 d10=6", DODGE, {}, {"moderate": 1}),
    ("b", "d100=2 d10=1 d10=2 d10=9", NO_REACTION, {}, {}),
    ("b2", "d100=2 d10=1 d10=2 d10=9", NO_REACTION, {"level_up_requires_penetration": False}, {"light": 1}),
    ("c", "d100=2 d10=1 d10=2 d10=7", NO_REACTION, {}, {"light": 1}),
])
def test_KIA_T5_critical_level_rise(case, script, react, opts, expect) -> None:
    """KIA-T5: KIA-5.1, KIA-7.4 - +1 for a critical, not at net 0 unless the flag says so."""
    c = play(fixture(options=opts), script, atk("B"), react)
    assert wounds(c, "B") == expect and c.dice.remaining == 0


@pytest.mark.rule("KIA-T6")
@pytest.mark.parametrize("hit, opts, roll, grade", [
    (100, {}, 96, "FUMBLE"), (100, {}, 95, "SUCCESS"), (100, {}, 10, "CRITICAL"), (9, {}, 1, "SUCCESS"),
    (100, {"fumble_min": 101}, 100, "SUCCESS"),
])
def test_KIA_T6_automatic_failure_and_critical_values(hit, opts, roll, grade) -> None:
    """KIA-T6: KIA-0.2 - 96-100 fumble, C = floor(V/10), no automatic success."""
    c = play(fixture(a={"hit": hit}, options=opts), f"d100={roll}", atk("B"))
    assert _grades(c) == [grade]
    if grade == "FUMBLE":
        assert c.decision.step == "D2" and c.legal_actions() == [END]


@pytest.mark.rule("KIA-T7")
@pytest.mark.parametrize("a, b, opts, script, expect", [
    ({}, {}, {}, "d100=20 d10=6 d10=6 d10=3 d10=4 d10=5", {"moderate": 1}),
    ({}, {}, {}, "d100=20 d10=5 d10=5 d10=5 d10=5 d10=1 d10=2 d10=5", {"serious": 1}),
    ({}, {}, {"explosion_chain": False}, "d100=20 d10=5 d10=5 d10=5 d10=5 d10=1", {"serious": 1}),
    ({"extra_weapons": ["dagger"], "main": "dagger"}, {}, {}, "d100=20 d10=10 d10=10", {"light": 1}),
    ({}, {"armour": {"level": 2}}, {}, "d100=20 d10=1 d10=2 d10=3 d10=3", {}),
])
def test_KIA_T7_exploding_damage_dice(a, b, opts, script, expect) -> None:
    """KIA-T7: KIA-0.1, KIA-4.2 - all-equal batches of two or more dice explode; defense dice do not."""
    c = play(fixture(a=a, b=b, options=opts), script, atk("B"), NO_REACTION)
    assert wounds(c, "B") == expect and c.dice.remaining == 0


@pytest.mark.rule("KIA-T8")
@pytest.mark.parametrize("life, defense_die, expect", [
    (10, 3, {"light": 1}), (10, 2, {"moderate": 1}), (9, 8, {}), (9, 7, {"light": 1}),
])
def test_KIA_T8_damage_level_thresholds(life, defense_die, expect) -> None:
    """KIA-T8: KIA-0.5, KIA-7.2, KIA-7.3 - equal reaches the level, thresholds round up."""
    c = play(fixture(b={"life": life}), f"d100=30 d10=3 d10=4 d10={defense_die}", atk("B"), NO_REACTION)
    assert wounds(c, "B") == expect and c.dice.remaining == 0


@pytest.mark.rule("KIA-T9")
@pytest.mark.parametrize("start, opts, expect, status", [
    ({"light": 1}, {}, {"light": 1, "moderate": 1}, "moderate"),
    ({"light": 1, "moderate": 1}, {}, {"light": 1, "moderate": 1, "serious": 1}, "serious"),
    ({"light": 1}, {"wound_boxes": {"light": 2}}, {"light": 2}, "light"),
])
def test_KIA_T9_wound_track_overflow(start, opts, expect, status) -> None:
    """KIA-T9: KIA-7.5 - a full level overflows into the next."""
    enc = fixture(options=opts, start={"combatants": {"B": {"wounds": start}}})
    c = play(enc, "d100=30 d10=1 d10=3 d10=3", atk("B"), NO_REACTION)
    assert wounds(c, "B") == expect
    assert [v.status for v in c.combatants if v.id == "B"] == [status]
