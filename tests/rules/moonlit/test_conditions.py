"""Conditions (MOON-13), end phase (MOON-7), traits (MOON-15.6), hazards (MOON-14.7)."""

from __future__ import annotations

import pytest

from tests.rules.moonlit.helpers import F, act, combat, events, f, legal, legal_of, used_up, who


@pytest.mark.rule("MOON-T23")
def test_MOON_T23_poison() -> None:
    """MOON-T23: MOON-13.2, MOON-7.1, MOON-11.2, MOON-0.8."""
    c = combat([F("A1", hp=30, conditions={"poison": 2}), F("A2", max_hp=47, conditions={"poison": 1}),
                F("A3", max_hp=8, conditions={"poison": 3}), F("A4", hp=3, conditions={"poison": 1}),
                F("B1")], step="end", options={"moon_escape_enabled": True})
    assert [f(c, i).hp for i in ("A1", "A2", "A3", "A4")] == [20, 43, 5, 0]
    assert f(c, "A4").state == "incapacitated"
    assert [e.data["amount"] for e in events(c, "hp_lost")] == [10, 4, 3, 3]
    assert not c.over and used_up(c)


@pytest.mark.rule("MOON-T24")
def test_MOON_T24_end_phase_skills() -> None:
    """MOON-T24: MOON-7.3, MOON-7.1."""
    c = combat([F("A1", "A_front", conditions={"trance": True}, emotion=0),
                F("A2", "A_front", skills=["purifying_breath"], tp=10, conditions={"bind": True, "poison": 1}),
                F("B1", "B_front", skills=["regeneration"], max_hp=60, hp=40)], dice=[4], step="end")
    assert f(c, "A2").hp == 45
    assert who(c) == "A2"
    assert legal(c) == {"use_skill purifying_breath bind -> A2", "use_skill purifying_breath poison -> A2",
                        "use_skill purifying_breath trance -> A1", "done"}
    act(c, "use_skill", target="A1", option=("purifying_breath", "trance"))
    assert not f(c, "A1").trance and f(c, "A2").tp == 5
    assert who(c) == "B1" and legal(c) == {"use_skill regeneration -> B1", "done"}
    act(c, "use_skill", target="B1", option="regeneration")
    assert f(c, "B1").hp == 46
    assert used_up(c)


@pytest.mark.rule("MOON-T28")
def test_MOON_T28_trance() -> None:
    """MOON-T28: MOON-13.5, MOON-15.3, MOON-6.9."""
    fs = [F("A1", "A_front", conditions={"trance": True}, emotion=15, ap=6,
            skills=["strike", "guard_stance", "healing_light"], items={"healing_salve": 1}),
          F("A2", "A_front", hp=40, ap=3), F("B1", "A_front", skills=["strike"], ap=2),
          F("B2", "A_front", skills=["strike"], ap=1)]
    c = combat(fs)
    assert legal(c) == {"pass", "use_skill healing_light -> A2", "use_item healing_salve -> A2", "clear_trance"} | {
        f"delay {v}" for v in range(1, 6)}
    act(c, "clear_trance")
    assert f(c, "A1").emotion == 0 and not f(c, "A1").trance
    assert who(c) == "A1" and "attack strike" in legal(c) and "clear_trance" not in legal(c)
    # (b) tranced with no emotion: no guard_stance, the reaction is automatic
    fs2 = [F("A1", "A_front", conditions={"trance": True}, emotion=0, ap=1, skills=["guard_stance"]),
           F("B1", "A_front", skills=["strike"], ap=9)]
    c = combat(fs2, dice=[5, 5, 6, 6])
    act(c, "attack", option="strike")
    auto = [e for e in c.log if e.kind == "auto_decision" and e.actor == "A1"]
    assert auto and auto[0].data["action"]["option"] == "none"
    assert used_up(c)


@pytest.mark.rule("MOON-T29")
def test_MOON_T29_bind_and_reinfliction() -> None:
    """MOON-T29: MOON-13.4, MOON-13.1."""
    c = combat([F("A1", "A_front", conditions={"bind": True}, skills=["strike", "binding_thread"], ap=9),
                F("B1", "A_front", conditions={"bind": True}, ap=3)], dice=[5, 5, 4, 4, 1, 1, 1, 1])
    act(c, "attack", option="strike")
    act(c, "offense", option="binding_thread")
    assert f(c, "A1").tp == 26
    totals = [e.data["total"] for e in events(c, "roll")]
    assert totals[:2] == [10, 8]
    assert f(c, "B1").hp == 46 and f(c, "B1").bind
    added = events(c, "condition_added")[-1]
    assert added.data["changed"] is False
    assert used_up(c)


def _t30(b1: dict, dice: list[int], dodge: str = "none"):
    c = combat([F("A1", "A_front", skills=["strike"], ap=9),
                F("B1", "A_front", skills=["unacceptable_existence", "death_rebirth", "origin_stop"], max_hp=60,
                  ap=3, **b1)], dice=dice, options={"moon_round_cap": 1})
    act(c, "attack", option="strike")
    if c.decision and c.decision.step == "reaction":
        act(c, "dodge", option=dodge)
    return c


@pytest.mark.rule("MOON-T30")
def test_MOON_T30_baptism_and_traits() -> None:
    """MOON-T30: MOON-13.6, MOON-15.6, MOON-8.9."""
    base = [5, 5, 1, 2, 6, 6, 2, 2]
    c = combat([F("A1", "A_front", skills=["strike"], ap=9),
                F("B1", "A_front", skills=["unacceptable_existence", "death_rebirth", "origin_stop"], max_hp=60,
                  hp=30, ap=3)], dice=base)
    act(c, "attack", option="strike")
    assert legal(c) == {"dodge none", "dodge origin_stop"}
    act(c, "dodge", option="none")
    assert f(c, "B1").hp == 23 and used_up(c)
    c = _t30({"hp": 30, "conditions": {"baptism": True}}, base)
    assert f(c, "B1").hp == 18 and used_up(c)
    c = _t30({"hp": 5}, base)
    assert f(c, "B1").hp == 10 and f(c, "B1").state != "incapacitated"
    assert events(c, "trait_triggered")[0].data["trait"] == "death_rebirth"
    c = _t30({"hp": 10, "rebirth_used": True}, base)
    assert f(c, "B1").hp == 3
    c = _t30({"hp": 3, "rebirth_used": True}, base)
    assert f(c, "B1").hp == 0 and f(c, "B1").state == "incapacitated"
    c = _t30({"hp": 30}, [6, 6], dodge="origin_stop")
    assert f(c, "B1").tp == 25 and f(c, "B1").hp == 30 and used_up(c)
    assert events(c, "hit_decided")[-1].data["hit"] is False
    c = _t30({"hp": 30, "usage": {"origin_stop": {"combat": 1}}}, base)
    assert f(c, "B1").hp == 23


@pytest.mark.rule("MOON-T43")
def test_MOON_T43_hazard_other_damage() -> None:
    """MOON-T43: MOON-14.7."""
    c = combat([F("A1", "A_front"), F("B1", "B_rear")], dice=[3], step="end", hazards=[{"zone": "B_rear", "n": 2}],
               options={"moon_round_cap": 1})
    assert f(c, "B1").hp == 45 and used_up(c)
    c = combat([F("A1", "A_front"), F("B1", "B_rear")], dice=[3, 1, 1], step="end",
               hazards=[{"zone": "B_rear", "n": 2}], options={"moon_round_cap": 1, "moon_other_damage_defended": True})
    assert f(c, "B1").hp == 47 and used_up(c)


def test_trance_blocks_counter_and_setup_skills() -> None:
    """MOON-13.5: no counter and no setup skills while tranced; moving and items stay."""
    c = combat([F("A1", "A_front", state="standby", ap=2, skills=["charged_blow"], conditions={"trance": True},
                  emotion=0, pending={"skill": "charged_blow", "targets": ["B1"]}),
                F("B1", "A_front", skills=["strike"], ap=9)], dice=[5, 5, 6, 6])
    act(c, "attack", option="strike")
    assert not [e for e in c.log if e.kind == "decision" and e.actor == "A1"]
    assert legal_of(c, "counter") == set()
