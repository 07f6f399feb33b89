"""Injury, incapacitation, healing, coup de grace, cap damage and the end of combat (MOON-11, 12, MOON-6.10,
section 9)."""

from __future__ import annotations

import pytest

from tests.rules.moonlit.helpers import F, act, combat, events, f, legal, legal_of, used_up, who


@pytest.mark.rule("MOON-T25")
def test_MOON_T25_incapacitation_revival_cap() -> None:
    """MOON-T25: MOON-2.5, MOON-6.8, MOON-11.2, MOON-11.3, MOON-11.4, MOON-11.5, MOON-11.7."""
    fs = [F("A1", "A_front", defense=0, hp=5, ap=1), F("A2", "A_rear", skills=["healing_light"], ap=8),
          F("A3", "A_rear", hp=45, ap=2), F("B1", "B_front", skills=["shot"], ap=10),
          F("B2", "A_front", skills=["strike"], ap=9)]
    c = combat(fs, dice=[5, 5, 1, 2, 2, 2, 3, 3])
    act(c, "attack", option="shot")
    act(c, "target", target="A1")
    assert f(c, "A1").hp == 0 and f(c, "A1").state == "incapacitated"
    assert who(c) == "B2"
    assert "attack strike" not in legal(c) and legal_of(c, "move")
    act(c, "pass")
    assert who(c) == "A2"
    assert "use_skill healing_light -> A1" in legal(c) and "use_skill healing_light -> A2" not in legal(c)
    act(c, "use_skill", target="A1", option="healing_light")
    assert f(c, "A1").hp == 10 and f(c, "A1").state == "acted"
    assert used_up(c)
    # (c) HP cap
    fs2 = [F("A2", "A_rear", skills=["healing_light"], ap=8), F("A3", "A_rear", hp=45, ap=2), F("B1", "B_front", ap=1)]
    c = combat(fs2, dice=[6, 6])
    assert who(c) == "A2"
    act(c, "use_skill", target="A3", option="healing_light")
    assert f(c, "A3").hp == 50
    # (d) revival in the setup phase: not_acted and AP rolled at once
    c = combat([F("A1", "A_front", hp=0, state="incapacitated"), F("A2", "A_front", skills=["field_dressing"], ap=7),
                F("B1", "B_front", ap=5)], dice=[2, 3, 4], step="setup_skills", round=3)
    assert who(c) == "A2" and "use_skill field_dressing -> A1" in legal(c)
    act(c, "use_skill", target="A1", option="field_dressing")
    a1 = f(c, "A1")
    assert a1.hp == 5 and a1.state == "not_acted" and a1.ap == 11
    assert used_up(c)
    assert c.decision.step == "main"
    order = [who(c)]
    act(c, "pass")
    order.append(who(c))
    assert order == ["A1", "A2"]


@pytest.mark.rule("MOON-T26")
def test_MOON_T26_coup_de_grace_and_the_dead() -> None:
    """MOON-T26: MOON-6.10, MOON-2.6, MOON-11.6, MOON-13.5."""
    fs = [F("A1", "A_front", skills=["strike"], ap=9), F("A2", "A_rear", skills=["strike"], ap=8),
          F("A3", "A_rear", skills=["shot"], ap=7), F("A4", "A_rear", skills=["shot"], ap=6,
                                                      conditions={"trance": True}, emotion=0),
          F("B1", "A_front", hp=0, state="incapacitated"), F("B2", "B_rear", skills=["healing_light"], ap=5)]
    c = combat(fs)
    assert "coup_de_grace -> B1" in legal(c)
    act(c, "pass")
    assert who(c) == "A2" and not legal_of(c, "coup_de_grace")
    act(c, "pass")
    assert who(c) == "A3" and legal_of(c, "coup_de_grace") == {"coup_de_grace -> B1"}
    act(c, "pass")
    assert who(c) == "A4" and not legal_of(c, "coup_de_grace")
    c = combat(fs)
    act(c, "coup_de_grace", target="B1")
    assert f(c, "B1").state == "dead"
    for _ in range(3):
        act(c, "pass")
    assert who(c) == "B2" and "use_skill healing_light -> B1" not in legal(c)
    assert used_up(c)


@pytest.mark.rule("MOON-T27")
def test_MOON_T27_cap_damage() -> None:
    """MOON-T27: MOON-12.1, MOON-8.3, MOON-8.17."""
    c = combat([F("A1", "A_front", skills=["strike", "soul_rend"], ap=9),
                F("B1", "A_front", max_hp=30, hp=30, defense=1, ap=3)], dice=[5, 5, 1, 2, 1, 1, 1])
    act(c, "attack", option="strike")
    assert legal(c) == {"offense none", "offense soul_rend"}
    act(c, "offense", option="soul_rend")
    assert f(c, "A1").tp == 22
    b1 = f(c, "B1")
    assert b1.max_hp == 20 and b1.hp == 20
    cap = events(c, "cap_damage")[0]
    assert cap.data["max_hp_after"] == 20
    assert events(c, "damage_applied")[0].data["actual"] == 5
    assert used_up(c)


@pytest.mark.rule("MOON-T35")
def test_MOON_T35_end_of_combat() -> None:
    """MOON-T35: section 9, MOON-1.3, MOON-1.4, MOON-7.5, MOON-11.2."""
    c = combat([F("A1", "A_front", skills=["strike"], ap=9), F("B1", "A_front", hp=3, ap=3)],
               dice=[5, 5, 1, 2, 1, 1, 1, 1])
    act(c, "attack", option="strike")
    assert c.over and c.result == "A" and c.outcome.termination.value == "eliminated"
    assert events(c, "combat_end")[-1].data["reason"] == "eliminated" and used_up(c)
    # (b) both poisoned to 0 at the end phase
    c = combat([F("A1", hp=2, conditions={"poison": 1}), F("B1", hp=2, conditions={"poison": 1})], step="end")
    assert c.over and c.result == "draw" and c.outcome.termination.value == "mutual"
    # (c) round cap
    c = combat([F("A1", ap=5), F("B1", ap=4)], options={"moon_round_cap": 1})
    act(c, "pass")
    act(c, "pass")
    assert c.over and c.result == "draw" and c.outcome.termination.value == "round_cap"
    # (d) the last member of side B flees
    c = combat([F("A1", "A_front"), F("B1", "B_front")], dice=[5, 5, 1, 1], step="escape", round=2)
    act(c, "stay")
    act(c, "escape")
    e = events(c, "escape")[0]
    assert e.data["interceptor"] == "A1" and e.data["bonus"] == 0
    assert c.over and c.result == "A" and c.outcome.termination.value == "fled" and used_up(c)
    # (e) conditions cleared in the final report
    c = combat([F("A1", "A_front", skills=["strike"], ap=9), F("B1", "A_front", hp=3, ap=3),
                F("B2", "B_front", hp=40, conditions={"poison": 1}, ap=2)],
               dice=[5, 5, 1, 2, 1, 1, 1, 1], options={"moon_clear_conditions_on_end": True, "moon_round_cap": 1})
    act(c, "attack", option="strike")
    act(c, "pass")
    assert c.over and f(c, "B2").poison == 0
    assert events(c, "combat_end")[-1].data["final"]["B2"]["conditions"] == []


@pytest.mark.rule("MOON-T45")
def test_MOON_T45_summons_and_end_of_combat() -> None:
    """MOON-T45: MOON-15.7, section 9, MOON-4.3."""
    c = combat([F("A1", "A_rear"), F("B1", "B_front")], dice=[6, 5, 1, 2], step="escape", round=2,
               start={"summons": [{"summoner": "A1", "template": "puppet", "state": "not_acted"}]})
    assert who(c) == "A1"
    act(c, "escape")
    assert f(c, "A1").state == "fled" and f(c, "A1.puppet").state == "absent"
    assert c.over and c.result == "B" and c.outcome.termination.value == "fled" and used_up(c)
    assert not [e for e in c.log if e.kind == "decision" and e.actor == "A1.puppet"]
    # (b) a summon at 0 HP vanishes; an incapacitated summoner's summons vanish after the attack
    c = combat([F("A1", "A_front", hp=1, defense=0, ap=2), F("A2", "A_front", state="acted"),
                F("B1", "A_front", skills=["strike"], ap=9)], dice=[5, 5, 1, 1, 1, 1],
               start={"summons": [{"summoner": "A1", "template": "puppet", "state": "acted", "hp": 1}]})
    act(c, "attack", option="strike")
    act(c, "target", target="A1")
    assert f(c, "A1").state == "incapacitated" and f(c, "A1.puppet").state == "absent"
    assert used_up(c)
    c = combat([F("A1", "A_front", state="acted"), F("B1", "A_front", skills=["strike"], ap=9)],
               dice=[5, 5, 1, 1, 1, 1, 1],
               start={"summons": [{"summoner": "A1", "template": "puppet", "state": "acted", "hp": 1}]})
    act(c, "attack", option="strike")
    act(c, "target", target="A1.puppet")
    assert f(c, "A1.puppet").state == "absent" and events(c, "summon_vanished")
    assert used_up(c)
