"""Setup phase: condition removal, escape, action points, setup skills, ambush, arrivals, deploy."""

from __future__ import annotations

import pytest

from tests.rules.moonlit.helpers import F, act, add_dice, combat, events, f, legal, used_up, who

NO_ESCAPE = {"moon_escape_enabled": False}


@pytest.mark.rule("MOON-T1")
def test_MOON_T1_condition_removal() -> None:
    """MOON-T1: MOON-0.2, MOON-0.6, MOON-4.7, MOON-13.1, MOON-13.2, MOON-13.4."""
    c = combat([F("A1", max_tp=45, tp=45, conditions={"poison": 2, "paralysis": True, "bind": True}, ap=9),
                F("B1", ap=8)], dice=[5, 4, 6, 4, 3, 4], step="purge")
    assert who(c) == "A1"
    assert legal(c) == {"purge poison", "purge paralysis", "purge bind", "done"}
    act(c, "purge", option="bind")
    assert f(c, "A1").tp == 30 and f(c, "A1").bind
    assert events(c, "roll")[-1].data["total"] == 6
    act(c, "purge", option="bind")
    assert f(c, "A1").tp == 15 and not f(c, "A1").bind
    act(c, "purge", option="poison")
    assert f(c, "A1").tp == 0 and f(c, "A1").poison == 0 and f(c, "A1").paralysis
    assert used_up(c)
    assert c.decision.step == "main"
    assert not [e for e in c.log if e.kind == "decision" and e.actor == "B1"]


@pytest.mark.rule("MOON-T2")
def test_MOON_T2_critical_and_ambush_penalties_once() -> None:
    """MOON-T2: MOON-0.3, MOON-0.6, MOON-0.7, MOON-4.5, MOON-14.6."""
    c = combat([F("A1", markers=["ambush", "failed_escape"], conditions={"bind": True, "trance": True},
                  state="acted", ap=7),
                F("B1", "A_front", skills=["strike"], ap=6)], dice=[6, 6, 6, 5, 4, 4, 6, 5], step="purge")
    act(c, "purge", option="bind")
    r = events(c, "roll")[-1]
    assert r.data["total"] == 6 and r.data["critical"] and not f(c, "A1").bind and f(c, "A1").tp == 15
    act(c, "purge", option="trance")
    assert not f(c, "A1").trance and f(c, "A1").tp == 0
    assert who(c) == "B1"
    act(c, "attack", option="strike")
    dodge = events(c, "roll")[-1]
    assert dodge.data["total"] == 11
    assert events(c, "hit_decided")[-1].data["hit"] is False
    assert used_up(c)


@pytest.mark.rule("MOON-T19")
def test_MOON_T19_escape_and_interception() -> None:
    """MOON-T19: MOON-4.3, MOON-4.4, MOON-4.5, MOON-0.5."""
    fs = [F("A1", "A_front", body=3), F("A2", "A_rear"), F("B1", "A_front", body=2), F("B2", "A_front", body=5),
          F("B3", "A_front", body=4, skills=["strike"])]
    # (a) escape succeeds
    c = combat(fs, dice=[5, 5, 3, 2], step="escape", round=2)
    assert who(c) == "A1" and legal(c) == {"escape", "stay"}
    act(c, "escape")
    e = events(c, "escape")[0]
    assert e.data["interceptor"] == "B2" and e.data["bonus"] == 2 and e.data["result"] == "fled"
    assert f(c, "A1").state == "fled" and f(c, "A1").zone is None
    add_dice(c, *[1] * 8)
    order = []
    while c.decision and c.decision.step == "escape":
        order.append(who(c))
        act(c, "stay")
    assert order == ["A2", "B1", "B2", "B3"]
    # (b) escape fails: acted, -3 on every check this round
    c = combat(fs, dice=[4, 3, 3, 2], step="escape", round=2)
    act(c, "escape")
    assert f(c, "A1").state == "acted" and f(c, "A1").mark_escape
    assert used_up(c)
    # AP: A1, A2, B1, B2, B3 (roster order) -> B3 acts first
    add_dice(c, 1, 1, 1, 1, 1, 1, 1, 1, 6, 6, 3, 3, 4, 4, 1, 1, 1, 1)
    for _ in range(4):
        act(c, "stay")
    assert who(c) == "B3"
    act(c, "attack", option="strike")  # the only target, A1, is chosen automatically
    dodge = [e for e in events(c, "roll") if e.data["purpose"] == "dodge check"][-1]
    assert dodge.data["total"] == 8
    assert events(c, "hit_decided")[-1].data["hit"] is True
    assert used_up(c)
    # (c) A2 also in A_front: excess +1 vs per_extra +2
    fs2 = [F("A1", "A_front", body=3), F("A2", "A_front"), F("B1", "A_front", body=2), F("B2", "A_front", body=5),
           F("B3", "A_front", body=4)]
    c = combat(fs2, dice=[4, 4, 2, 2], step="escape", round=2)
    act(c, "escape")
    assert events(c, "escape")[0].data["bonus"] == 1 and f(c, "A1").state == "fled"
    c = combat(fs2, dice=[4, 4, 2, 2], step="escape", round=2, options={"moon_intercept_bonus": "per_extra"})
    act(c, "escape")
    assert events(c, "escape")[0].data["bonus"] == 2 and f(c, "A1").state == "acted"


@pytest.mark.rule("MOON-T20")
def test_MOON_T20_ambush() -> None:
    """MOON-T20: MOON-14.6, MOON-4.1, MOON-4.6."""
    c = combat([F("A1", "A_front", skills=["strike"]), F("B1", "A_front")],
               dice=[3, 3, 2, 2, 3, 3, 4, 4, 1, 1, 2, 2, 3, 3, 2, 2], step="round_start", options=NO_ESCAPE,
               ambushed=["B1"])
    assert f(c, "B1").state == "acted" and f(c, "B1").mark_ambush
    assert f(c, "A1").ap == 10 and f(c, "B1").ap == 8
    assert who(c) == "A1"
    act(c, "attack", option="strike")
    assert f(c, "B1").hp == 48
    add_dice(c, 3, 3, 4, 4)
    # end phase, round 2 setup: both not_acted
    assert c.round == 2 and who(c) == "A1" and f(c, "B1").state == "not_acted" and not f(c, "B1").mark_ambush
    act(c, "attack", option="strike")
    assert events(c, "hit_decided")[-1].data["hit"] is False
    assert used_up(c)


@pytest.mark.rule("MOON-T21")
def test_MOON_T21_action_points_setup_order_and_setup_skills() -> None:
    """MOON-T21: MOON-4.6, MOON-4.8, MOON-5.2, MOON-15.2, MOON-15.4."""
    fs = [F("A1", action=4, skills=["quicken", "battle_focus"]), F("A2", action=6, skills=["battle_focus"]),
          F("B1", action=6, skills=["quicken"])]
    c = combat(fs, dice=[2, 2, 3, 3, 1, 2], step="round_start", options=NO_ESCAPE)
    assert [f(c, i).ap for i in ("A1", "A2", "B1")] == [8, 12, 9]
    assert who(c) == "A2" and legal(c) == {"use_skill battle_focus -> A2", "done"}
    act(c, "use_skill", target="A2", option="battle_focus")
    assert f(c, "A2").tp == 27
    assert who(c) == "B1" and legal(c) == {"use_skill quicken -> B1", "done"}
    act(c, "use_skill", target="B1", option="quicken")
    assert f(c, "B1").ap == 12 and f(c, "B1").tp == 27
    assert who(c) == "A1" and legal(c) == {"use_skill quicken -> A1", "use_skill battle_focus -> A1", "done"}
    act(c, "use_skill", target="A1", option="quicken")
    assert f(c, "A1").ap == 11 and legal(c) == {"use_skill battle_focus -> A1", "done"}
    act(c, "use_skill", target="A1", option="battle_focus")
    assert f(c, "A1").tp == 24
    assert c.decision.step == "main"
    add_dice(c, *[1] * 6)
    order = []
    while c.decision and c.decision.step == "main" and c.round == 1:
        order.append(who(c))
        act(c, "pass")
        if len(order) == 3:
            break
    assert order == ["A2", "B1", "A1"]
    assert used_up(c) and c.round == 2
    # (b) setup order by action points
    c = combat(fs, dice=[6, 6, 3, 3, 1, 2], step="round_start",
               options={**NO_ESCAPE, "moon_setup_order_key": "action_points"})
    seen = []
    while c.decision.step == "setup_skill":
        seen.append(who(c))
        act(c, "done")
    assert seen == ["A1", "A2", "B1"]


@pytest.mark.rule("MOON-T36")
def test_MOON_T36_arrivals() -> None:
    """MOON-T36: MOON-4.2, MOON-4.6."""
    c = combat([F("A1", "A_front", skills=["strike"]), F("B1", "B_front", hp=1, skills=["strike"]), F("B2")],
               dice=[3, 3, 2, 2, 1, 1, 2, 2, 3, 3],
               step="round_start", options=NO_ESCAPE, arrivals=[{"round": 2, "combatant": "B2", "zone": "B_front"}])
    assert f(c, "B2").state == "absent" and "B2" not in c.state.order
    assert len(events(c, "ap_set")) == 2
    act(c, "move", dest="B_front")
    assert who(c) == "B1"
    act(c, "pass")
    assert not c.over
    assert c.round == 2 and f(c, "B2").state == "not_acted" and f(c, "B2").zone == "B_front"
    aps = [e.data["combatant"] for e in events(c, "ap_set") if e.round == 2]
    assert aps == ["A1", "B1", "B2"]
    assert used_up(c)


def test_MOON_T36_pending_arrival_keeps_side_in() -> None:
    """MOON-T36: with B1 incapacitated in round 1, side B still has a pending arrival (section 9)."""
    c = combat([F("A1", "A_front", skills=["strike"], ap=10), F("B1", "A_front", hp=2, defense=0, ap=3), F("B2")],
               dice=[5, 5, 1, 1, 1, 1], arrivals=[{"round": 2, "combatant": "B2", "zone": "B_front"}])
    act(c, "attack", option="strike")
    assert f(c, "B1").state == "incapacitated" and not c.over


@pytest.mark.rule("MOON-T41")
def test_MOON_T41_deployment_by_choice() -> None:
    """MOON-T41: MOON-3.1."""
    c = combat([F("A1"), F("B1")], step=None, options={"moon_deploy": "choose", "moon_escape_enabled": False},
               dice=[1, 1, 1, 1])
    assert who(c) == "A1" and legal(c) == {"deploy front", "deploy rear"}
    act(c, "deploy", option="rear")
    assert f(c, "A1").zone == "A_rear"
    assert who(c) == "B1" and legal(c) == {"deploy front", "deploy rear"}
    act(c, "deploy", option="front")
    assert f(c, "B1").zone == "B_front"
    assert used_up(c) and c.round == 1
