"""Decision and main phases: order, delay, pass, movement and obstruction, paralysis, round flow."""

from __future__ import annotations

import pytest

from tests.rules.moonlit.helpers import F, act, add_dice, combat, events, f, legal, legal_of, used_up, who


@pytest.mark.rule("MOON-T7")
def test_MOON_T7_obstruction_by_majority() -> None:
    """MOON-T7: MOON-3.2, MOON-3.3, MOON-6.6, MOON-2.4 (acted combatants obstruct)."""
    fs = [F("A1", "A_front", ap=5, skills=["strike"]), F("A2", "A_front", state="acted", skills=["strike"]),
          F("A3", "A_rear", ap=4, skills=["strike"]), F("B1", "B_front", ap=12, skills=["strike"]),
          F("B2", "B_front", ap=11, skills=["strike"]), F("B3", "B_front", ap=10, skills=["strike"])]
    c = combat(fs)
    assert who(c) == "B1"
    assert legal_of(c, "move") == {"move @ A_rear", "move @ A_front", "move @ B_rear"}
    act(c, "move", dest="A_rear")
    blocked = events(c, "move_blocked")[-1]
    assert blocked.data == {"combatant": "B1", "zone": "A_front", "F": 1, "O": 2}
    assert f(c, "B1").zone == "A_front" and f(c, "B1").state == "acted"
    assert who(c) == "B2"
    act(c, "move", dest="A_rear")
    assert f(c, "B2").zone == "A_front"
    act(c, "move", dest="A_rear")
    assert f(c, "B3").zone == "A_rear"
    assert events(c, "moved")[-1].data["path"] == ["B_front", "A_front", "A_rear"]
    assert who(c) == "A1" and not legal_of(c, "move")
    act(c, "pass")
    assert who(c) == "A3" and not legal_of(c, "move")
    c = combat(fs, options={"moon_blocking": "off"})
    act(c, "move", dest="A_rear")
    assert f(c, "B1").zone == "A_rear"


@pytest.mark.rule("MOON-T8")
def test_MOON_T8_paralysis() -> None:
    """MOON-T8: MOON-13.3, MOON-4.6, MOON-6.6."""
    c = combat([F("A1", "A_rear", action=6, conditions={"paralysis": True}), F("B1", "B_front")],
               dice=[3, 4, 1, 1], step="action_points", round=2)
    assert f(c, "A1").ap == 8 and f(c, "B1").ap == 6
    assert who(c) == "A1" and c.decision.step == "purge"
    act(c, "done")
    assert c.decision.step == "main" and who(c) == "A1" and not legal_of(c, "move")
    assert used_up(c)
    for flag, ap in ((True, 7), (False, 12)):
        c = combat([F("A1", "A_front", action=6, ap=12, ap_roll=6), F("B1", "B_front", ap=13,
                                                                       skills=["paralysis_needle"])],
                   dice=[5, 5, 2, 1, 3, 3, 1, 1], options={"moon_paralysis_current_ap": flag})
        act(c, "attack", option="paralysis_needle")
        assert f(c, "A1").hp == 46 and f(c, "A1").paralysis and f(c, "A1").ap == ap
        assert used_up(c)


@pytest.mark.rule("MOON-T9")
def test_MOON_T9_decision_order_and_ties() -> None:
    """MOON-T9: MOON-5.1, MOON-5.2, MOON-5.3, MOON-6.2, MOON-6.4."""
    c = combat([F("A1", action=4, ap=10), F("A2", action=5, ap=10), F("B1", action=6, ap=10),
                F("B2", action=4, ap=11)], options={"moon_round_cap": 1})
    order = []
    while not c.over:
        order.append(who(c))
        act(c, "pass")
    assert order == ["B2", "A2", "A1", "B1"]
    assert c.state.elapsed == 40
    assert c.result == "draw"


@pytest.mark.rule("MOON-T10")
def test_MOON_T10_delay_and_pass() -> None:
    """MOON-T10: MOON-6.3, MOON-6.4."""
    c = combat([F("A1", "A_rear", ap=9), F("B1", "B_rear", ap=7)], options={"moon_round_cap": 1})
    assert legal(c) == {"pass"} | {f"delay {v}" for v in range(1, 9)} | {"move @ A_front", "move @ B_front",
                                                                          "move @ B_rear"}
    act(c, "delay", option=5)
    assert f(c, "A1").ap == 5 and f(c, "A1").state == "not_acted" and c.state.elapsed == 0
    assert who(c) == "B1"
    act(c, "pass")
    assert c.state.elapsed == 10 and who(c) == "A1"
    assert legal_of(c, "delay") == {f"delay {v}" for v in range(1, 5)}
    act(c, "pass")
    assert c.state.elapsed == 20 and c.over
    c = combat([F("A1", "A_rear", ap=1), F("B1", "B_rear", ap=0, state="acted")])
    assert not legal_of(c, "delay")


@pytest.mark.rule("MOON-T22")
def test_MOON_T22_round_flow_and_expiry() -> None:
    """MOON-T22: MOON-1.1, MOON-4.1, MOON-7.2, MOON-7.5, MOON-15.4."""
    c = combat([F("A1", "A_front", skills=["strike"], effects=["battle_focus"], ap=8), F("B1", "A_front", ap=4)],
               dice=[3, 4, 3, 4, 1, 1, 1, 1, 2, 2, 1, 1, 3, 4, 3, 4], options={"moon_escape_enabled": False})
    act(c, "attack", option="strike")
    assert [e.data["total"] for e in events(c, "roll")][:2] == [12, 10]
    assert f(c, "B1").hp == 46
    act(c, "pass")
    assert c.round == 2 and not f(c, "A1").effects
    assert f(c, "A1").ap == 8 and f(c, "B1").ap == 6
    assert events(c, "round_start")[-1].data["round"] == 2
    act(c, "attack", option="strike")
    assert events(c, "hit_decided")[-1].data["hit"] is False
    assert used_up(c)


@pytest.mark.rule("MOON-T37")
def test_MOON_T37_standby_attack_fizzles() -> None:
    """MOON-T37: MOON-8.6, MOON-5.2."""
    c = combat([F("A1", "A_front", skills=["charged_blow"], ap=6), F("B1", "A_front", skills=["strike"], ap=5),
                F("B2", "A_front", ap=1, skills=["strike"])])
    act(c, "attack", option="charged_blow")
    act(c, "target", target="B1")
    assert f(c, "A1").state == "standby" and f(c, "A1").tp == 25 and f(c, "A1").ap == 1
    assert who(c) == "B1"
    act(c, "move", dest="B_front")
    assert f(c, "B1").zone == "B_front"
    # A1 (AP 1, pc) before B2 (AP 1, npc): the attack fizzles with no dice
    assert events(c, "attack_fizzled")[-1].data["combatant"] == "A1"
    assert f(c, "A1").state == "acted" and f(c, "A1").tp == 25
    assert who(c) == "B2"
    assert used_up(c)


@pytest.mark.rule("MOON-T40")
def test_MOON_T40_mental_reach_flag() -> None:
    """MOON-T40: MOON-3.5."""
    c = combat([F("A1", "A_rear", skills=["mind_spike"], ap=9), F("B1", "B_front", ap=3)])
    assert "attack mind_spike" in legal(c)
    c = combat([F("A1", "A_rear", skills=["mind_spike"], ap=9), F("B1", "B_front", ap=3)],
               options={"moon_mental_range": "same_zone"})
    assert "attack mind_spike" not in legal(c)


def test_delay_bound_in_catalogue() -> None:
    """MOON-6.3: every offered delay is inside the action catalogue's documented bound."""
    c = combat([F("A1", "A_rear", ap=40), F("B1", "B_rear", ap=7)])
    cat = set(c.system.action_catalogue(c.encounter))
    assert set(c.legal_actions()) <= cat
    assert legal_of(c, "delay") == {f"delay {v}" for v in range(1, 40)}
    add_dice(c)
