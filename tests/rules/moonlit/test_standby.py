"""Standby attacks (MOON-8.5, MOON-8.6, 9.x) and zone / global attacks (MOON-3.6, MOON-14.5)."""

from __future__ import annotations

import pytest

from tests.rules.moonlit.helpers import F, act, combat, events, f, legal, legal_of, used_up, who


@pytest.mark.rule("MOON-T11")
def test_MOON_T11_standby_zone_attack_continuation_element() -> None:
    """MOON-T11: MOON-2.3, MOON-3.6, MOON-8.5, MOON-8.6, MOON-8.15, MOON-14.5."""
    c = combat([F("A1", "A_rear", ranged=3, skills=["flame_burst"], ap=12),
                F("B1", "B_front", ranged=2, attributes={"fire": 2}, ap=9), F("B2", "B_front", ranged=2, ap=5),
                F("B3", "B_rear", ap=4)], dice=[4, 4, 3, 2, 6, 3, 4, 2])
    act(c, "attack", option="flame_burst")
    assert legal(c) == {"target -> B_front", "target -> B_rear"}
    act(c, "target", target="B_front")
    a1 = f(c, "A1")
    assert a1.tp == 22 and a1.ap == 8 and a1.state == "standby"
    assert events(c, "standby_entered")
    assert who(c) == "B1"
    act(c, "pass")
    hit_events = events(c, "hit_decided")
    assert [(e.data["target"], e.data["hit"]) for e in hit_events] == [("B1", True), ("B2", False)]
    dmg = events(c, "damage_applied")
    assert len(dmg) == 1 and dmg[0].data["reduction"] == 2 and dmg[0].data["actual"] == 7
    assert f(c, "B1").hp == 43 and f(c, "B2").hp == 50 and f(c, "B3").hp == 50
    assert f(c, "A1").state == "acted"
    assert who(c) == "B2"
    act(c, "pass")
    assert who(c) == "B3"
    assert used_up(c)


def _t12(a_ap: int, b_ap: int, dice: list[int]):
    c = combat([F("A1", "A_front", skills=["strike", "charged_blow"], ap=a_ap),
                F("B1", "A_front", skills=["strike"], ap=b_ap)], dice=dice, options={"moon_round_cap": 1})
    act(c, "attack", option="charged_blow")
    assert f(c, "A1").tp == 25 and f(c, "A1").state == "standby"
    act(c, "attack", option="strike")
    assert legal(c) == {"dodge none", "counter"}
    act(c, "dodge", option="none")
    return c


@pytest.mark.rule("MOON-T12")
def test_MOON_T12_standby_broken_by_actual_damage() -> None:
    """MOON-T12: MOON-2.7, MOON-5.1, MOON-8.5, MOON-9.2."""
    c = _t12(6, 5, [5, 5, 1, 2, 3, 3, 1, 1, 2, 2, 6, 6])
    a1 = f(c, "A1")
    assert a1.hp == 42 and a1.state == "not_acted" and a1.ap == 1 and a1.pending is None and a1.tp == 25
    assert events(c, "standby_broken") and f(c, "B1").state == "acted"
    assert who(c) == "A1" and legal(c) == {"pass", "attack strike", "attack charged_blow"}
    act(c, "attack", option="charged_blow")
    # A1 at AP -4 is standby (not acted) and is selected again: it continues at the hit check
    assert f(c, "A1").tp == 20
    assert events(c, "standby_entered")[-1].data["ap"] == -4
    assert [e.data["purpose"] for e in events(c, "roll")][-1] == "dodge check"
    assert used_up(c)
    # (b) AP 0 after standby: the break makes it acted; end phase; 20 seconds
    c = _t12(5, 4, [5, 5, 1, 2, 3, 3, 1, 1])
    assert f(c, "A1").state == "acted" and c.over and c.state.elapsed == 20
    # (c) no actual damage: standby holds and the attack continues later
    c = _t12(6, 5, [5, 5, 1, 2, 1, 1, 3, 4, 6, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1])
    assert f(c, "B1").state == "acted"
    assert events(c, "attack_declared")[0].data["attacker"] == "A1"
    assert f(c, "A1").state == "acted" and f(c, "B1").hp < 50
    assert used_up(c)


def _t13(extra: list | None = None, dice: list[int] | None = None):
    fs = [F("A1", "A_front", melee=3, ranged=1, skills=["strike", "charged_blow"], ap=9),
          F("B1", "A_front", ranged=4, defense=1, skills=["shot"], ap=7),
          F("B2", "A_front", skills=["strike"], ap=2)] + (extra or [])
    c = combat(fs, dice=dice or [])
    act(c, "attack", option="charged_blow")
    act(c, "target", target="B1")
    assert f(c, "A1").tp == 25 and f(c, "A1").ap == 4 and f(c, "A1").state == "standby"
    assert who(c) == "B1"
    act(c, "attack", option="shot")
    if c.decision.step == "target":
        act(c, "target", target="A1")
    return c


@pytest.mark.rule("MOON-T13")
def test_MOON_T13_successful_counter() -> None:
    """MOON-T13: MOON-9.4, MOON-10.1, MOON-10.2, MOON-10.4, MOON-10.5, MOON-10.7, MOON-10.9, MOON-10.12,
    MOON-14.1, MOON-6.2."""
    c = _t13(dice=[3, 3, 5, 4, 2, 2, 3, 3, 3, 3, 2])
    assert legal(c) == {"dodge none", "counter"}
    act(c, "counter")
    counter = [e for e in events(c, "roll") if e.data["purpose"].startswith("counter check")][0]
    assert counter.data["total"] == 12
    assert events(c, "counter_decided")[-1].data["outcome"] == "counter"
    assert not [e for e in c.log if e.kind in ("decision", "auto_decision") and e.data["decision"] == "cover"]
    dmg = events(c, "damage_applied")[-1]
    assert dmg.data["receiver"] == "B1" and dmg.data["actual"] == 7
    assert f(c, "B1").hp == 43 and f(c, "A1").hp == 50
    assert f(c, "A1").state == "acted" and f(c, "B1").state == "acted" and f(c, "A1").pending is None
    assert c.state.elapsed == 20 and who(c) == "B2"
    assert used_up(c)


@pytest.mark.rule("MOON-T14")
def test_MOON_T14_counter_tie_and_attacker_wins() -> None:
    """MOON-T14: MOON-10.5, MOON-10.6, MOON-10.12, MOON-14.1."""
    a2 = [F("A2", "A_front", skills=["strike"], ap=3)]
    c = _t13(a2, dice=[4, 3, 5, 3])
    act(c, "counter")
    assert events(c, "counter_decided")[-1].data["outcome"] == "tie"
    assert f(c, "A1").state == "acted" and f(c, "B1").state == "acted" and f(c, "A1").hp == 50
    assert used_up(c)
    c = _t13(a2, dice=[5, 5, 2, 3, 4, 4, 1, 2])
    act(c, "counter")
    assert events(c, "counter_decided")[-1].data["outcome"] == "attacker"
    assert who(c) == "A2" and legal(c) == {"cover", "decline"}
    act(c, "decline")
    assert f(c, "A1").hp == 42 and f(c, "A1").state == "acted" and f(c, "B1").state == "acted"
    assert used_up(c)


def _t15(dmg_b1: list[int]):
    c = combat([F("A1", "A_front", melee=1, ranged=5, skills=["flame_burst"], ap=10),
                F("B1", "A_front", melee=4, skills=["strike"], attributes={"fire": 1}, ap=8),
                F("B2", "B_front", ap=1)], dice=[4, 4, 6, 6] + dmg_b1)
    act(c, "attack", option="flame_burst")
    assert legal(c) == {"target -> A_front", "target -> B_front"}
    act(c, "target", target="B_front")
    assert f(c, "A1").tp == 22 and f(c, "A1").ap == 6 and f(c, "A1").state == "standby"
    act(c, "attack", option="strike")
    assert legal(c) == {"dodge none", "counter"}
    act(c, "counter")
    return c


@pytest.mark.rule("MOON-T15")
def test_MOON_T15_counter_stat_critical_and_exchanges() -> None:
    """MOON-T15: MOON-10.2, MOON-10.4, MOON-10.8, MOON-10.9, MOON-10.10, MOON-8.15."""
    c = _t15([6, 6, 3, 3, 5, 1, 1])
    assert events(c, "roll")[1].data["total"] == 17
    last = events(c, "damage_applied")[-1]
    assert last.data["receiver"] == "A1" and last.data["actual"] == 0
    assert f(c, "A1").hp == 50 and f(c, "B1").hp == 50 and f(c, "B2").hp == 50
    assert f(c, "A1").state == "acted" and f(c, "B1").state == "acted" and used_up(c)
    c = _t15([5, 5, 3, 3, 5])
    assert f(c, "A1").hp == 50 and f(c, "B1").hp == 50 and used_up(c)
    c = _t15([1, 1, 3, 3, 5])
    assert f(c, "B1").hp == 43 and used_up(c)


@pytest.mark.rule("MOON-T16")
def test_MOON_T16_counter_eligibility_and_fumbles() -> None:
    """MOON-T16: MOON-8.7, MOON-10.1, MOON-10.5, MOON-14.9."""
    def start(dice: list[int], b1_ap: int = 9, b2_ap: int = 8):
        return combat([F("A1", "A_front", state="standby", ap=2, skills=["charged_blow"],
                         pending={"skill": "charged_blow", "targets": ["B2"]}),
                       F("A2", "A_front", ap=1),
                       F("B1", "B_rear", ranged=3, skills=["shot"], ap=b1_ap),
                       F("B2", "A_front", skills=["strike"], ap=b2_ap)], dice=dice)
    c = start([3, 3, 4, 4])
    act(c, "attack", option="shot")
    act(c, "target", target="A1")
    assert f(c, "A1").state == "standby" and events(c, "hit_decided")[-1].data["hit"] is False
    assert used_up(c)
    c = start([1, 1, 2, 2, 1, 2, 2, 2, 2, 2, 1, 1], b1_ap=8, b2_ap=9)
    act(c, "attack", option="strike")
    act(c, "target", target="A1")
    assert legal(c) == {"dodge none", "counter"}
    act(c, "counter")
    assert events(c, "counter_decided")[-1].data["outcome"] == "counter"
    assert f(c, "B2").hp == 47 and f(c, "A1").state == "acted" and f(c, "B2").state == "acted"
    assert used_up(c)
    c = start([1, 1], b1_ap=8, b2_ap=9)
    act(c, "attack", option="strike")
    act(c, "target", target="A2")
    assert used_up(c) and not [e for e in c.log if e.kind == "decision" and e.actor == "A2"]
    assert f(c, "A2").hp == 50


@pytest.mark.rule("MOON-T17")
def test_MOON_T17_extra_targets_and_swapped_after_damage() -> None:
    """MOON-T17: MOON-8.3, MOON-8.4, MOON-10.2, MOON-10.3, MOON-10.11, MOON-13.6, MOON-14.10."""
    c = combat([F("A1", "A_rear", mental=4, skills=["baptismal_hymn", "twin_target"], ap=10),
                F("B1", "B_front", ap=2), F("B2", "B_front", ap=2),
                F("B3", "B_front", ranged=3, skills=["shot"], ap=8)], dice=[2, 2, 4, 4, 1, 2, 5, 5])
    act(c, "attack", option="baptismal_hymn")
    assert legal(c) == {"offense none", "offense twin_target"}
    act(c, "offense", option="twin_target")
    assert legal(c) == {"target -> B1", "target -> B2", "target -> B3"}
    act(c, "target", target="B1")
    assert legal(c) == {"target -> B2", "target -> B3", "target_done"}
    act(c, "target", target="B2")
    a1 = f(c, "A1")
    assert a1.tp == 21 and a1.ap == 7 and a1.state == "standby"
    assert who(c) == "B3"
    act(c, "attack", option="shot")  # A1 is B3's only target
    act(c, "counter")
    assert f(c, "B3").hp == 44 and f(c, "B3").baptism
    assert not f(c, "B1").baptism and not f(c, "B2").baptism and f(c, "B1").hp == 50
    assert f(c, "A1").state == "acted" and f(c, "B3").state == "acted"
    assert used_up(c)


@pytest.mark.rule("MOON-T38")
def test_MOON_T38_global_attack_critical_die() -> None:
    """MOON-T38: MOON-3.6, MOON-8.13, MOON-14.5."""
    c = combat([F("A1", "A_front"), F("A2", "A_rear"), F("A3", "A_rear", hp=0),
                F("B1", "B_rear", mental=4, skills=["crimson_moon"], state="standby", ap=6,
                  pending={"skill": "crimson_moon"})],
               dice=[6, 6, 3, 3, 6, 6, 2, 2, 3], options={"moon_round_cap": 1})
    assert [e.data["target"] for e in events(c, "hit_decided")] == ["A1", "A2"]
    assert f(c, "A1").hp == 39 and f(c, "A2").hp == 50 and f(c, "A3").hp == 0
    assert used_up(c)


@pytest.mark.rule("MOON-T39")
def test_MOON_T39_area_attacks_and_allies() -> None:
    """MOON-T39: MOON-3.6."""
    fs = [F("A1", "A_rear", ranged=3, skills=["flame_burst"], state="standby", ap=6,
            pending={"skill": "flame_burst", "zone": "B_front"}), F("A2", "B_front", state="acted"),
          F("B1", "B_front", state="acted")]
    c = combat(fs, dice=[4, 4, 1, 2, 2, 2], options={"moon_round_cap": 1})
    assert [e.data["target"] for e in events(c, "hit_decided")] == ["B1"]
    c = combat(fs, dice=[4, 4, 1, 2, 1, 2, 2, 2], options={"moon_round_cap": 1, "moon_zone_attack_hits_allies": True})
    assert [e.data["target"] for e in events(c, "hit_decided")] == ["A2", "B1"]
    assert f(c, "A2").hp == 43 and f(c, "B1").hp == 43 and used_up(c)


def test_standby_not_offered_delay_after_break() -> None:
    """MOON-9.1 / 9.2: the AP loss is the whole price; a broken charge starts over."""
    c = _t12(6, 5, [5, 5, 1, 2, 3, 3, 1, 1])
    assert legal_of(c, "delay") == set()
