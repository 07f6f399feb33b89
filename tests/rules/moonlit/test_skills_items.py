"""Offense legality, limit break, defense skills, armour, summons and items (MOON-8.3, MOON-14.10, MOON-8.9,
MOON-15.7, MOON-6.9)."""

from __future__ import annotations

import pytest

from tests.rules.moonlit.helpers import F, act, combat, events, f, legal, legal_of, used_up, who


def _t31(hp: int = 50, tp: int = 30, dice: list[int] | None = None):
    c = combat([F("A1", "A_front", skills=["strike", "full_force", "soul_rend"], hp=hp, tp=tp, ap=9),
                F("B1", "A_front", defense=2, ap=3)], dice=dice or [])
    act(c, "attack", option="strike")
    return c


@pytest.mark.rule("MOON-T31")
def test_MOON_T31_limit_break() -> None:
    """MOON-T31: MOON-14.10, MOON-8.3, MOON-15.2."""
    c = _t31(dice=[5, 5, 1, 2, 2, 2, 3, 1, 1])
    assert legal(c) == {"offense none", "offense full_force", "offense soul_rend"}
    act(c, "offense", option="full_force")
    assert legal(c) == {"limit_break none", "limit_break soul_rend"}
    act(c, "limit_break", option="soul_rend")
    a1 = f(c, "A1")
    assert a1.tp == 19 and a1.hp == 20
    assert events(c, "hp_lost")[0].data["cause"] == "limit_break"
    assert events(c, "attack_declared")[0].data["limit_break"] is True
    dmg = events(c, "damage_applied")[0]
    assert dmg.data["damage"] == 11 and dmg.data["actual"] == 9
    b1 = f(c, "B1")
    assert b1.max_hp == 40 and b1.hp == 40
    assert used_up(c)
    c = _t31(hp=30, dice=[1, 1])
    act(c, "offense", option="full_force")
    assert f(c, "A1").hp == 30 and c.decision.step != "limit_break"
    c = _t31(tp=10, dice=[1, 1])
    assert legal(c) == {"offense none", "offense full_force", "offense soul_rend"}
    act(c, "offense", option="full_force")
    assert c.decision.step != "limit_break"
    auto = [e for e in c.log if e.kind == "auto_decision" and e.data["decision"] == "limit_break"]
    assert auto and auto[0].data["action"]["option"] == "none"


@pytest.mark.rule("MOON-T32")
def test_MOON_T32_summons_replace_each_other() -> None:
    """MOON-T32 (a): MOON-14.3, MOON-15.7."""
    c = combat([F("A1", "A_rear", skills=["puppet_soldiers"], ap=9), F("B1", "B_front", ap=2)],
               dice=[1, 1, 1, 1, 2, 2], options={"moon_escape_enabled": False})
    assert {"use_skill puppet_soldiers puppet", "use_skill puppet_soldiers dragon_tooth_soldier"} <= legal(c)
    act(c, "use_skill", option=("puppet_soldiers", "puppet"))
    p = f(c, "A1.puppet")
    assert p.zone == "A_rear" and p.state == "acted" and p.ap == 0 and f(c, "A1").tp == 20
    assert c.system.views(c)[2].side == "A"
    act(c, "pass")
    assert c.round == 2
    aps = [(e.data["combatant"], e.data["ap"]) for e in events(c, "ap_set") if e.round == 2]
    assert aps == [("A1", 6), ("B1", 6), ("A1.puppet", 7)]
    assert who(c) == "A1.puppet"
    act(c, "pass")
    assert who(c) == "A1"
    act(c, "use_skill", option=("puppet_soldiers", "dragon_tooth_soldier"))
    assert f(c, "A1.puppet").state == "absent" and f(c, "A1.dragon_tooth_soldier").state == "acted"
    assert events(c, "summon_vanished")[-1].data["summon"] == "A1.puppet"
    assert f(c, "A1").tp == 10
    assert used_up(c)


@pytest.mark.rule("MOON-T34")
def test_MOON_T34_items() -> None:
    """MOON-T34: MOON-6.9, MOON-15.9, MOON-14.4."""
    c = combat([F("A1", "A_front", items={"antidote": 1, "healing_salve": 1}, ap=9),
                F("A2", "A_front", hp=30, conditions={"poison": 2}, state="acted"),
                F("A3", "A_rear", hp=20, state="acted"), F("B1", "B_rear", state="acted")],
               dice=[1, 1, 1, 1, 1, 1, 1, 1, 4, 4, 1, 1, 1, 1, 1, 1, 1, 1],
               options={"moon_escape_enabled": False, "moon_round_cap": 3})
    assert legal_of(c, "use_item") == {"use_item antidote -> A2", "use_item healing_salve -> A2"}
    act(c, "use_item", target="A2", option="antidote")
    assert f(c, "A2").poison == 0 and f(c, "A1").items["antidote"] == 0
    # round 2: everyone passes but A1
    while who(c) != "A1":
        act(c, "pass")
    act(c, "use_item", target="A2", option="healing_salve")
    assert f(c, "A2").hp == 40 and f(c, "A1").items["healing_salve"] == 0
    while who(c) != "A1":
        act(c, "pass")
    assert c.round == 3 and not legal_of(c, "use_item")
    assert used_up(c)
    # (b) stimulant: the second dose replaces the first
    c = combat([F("A4", "A_front", items={"stimulant": 1}, ap=9), F("A1", "A_front", items={"stimulant": 1}, ap=8),
                F("A2", "A_front", skills=["strike"], ap=7), F("B2", "A_front", ap=1)], dice=[3, 3, 4, 4])
    act(c, "use_item", target="A2", option="stimulant")
    act(c, "use_item", target="A2", option="stimulant")
    assert len(f(c, "A2").effects) == 1
    act(c, "attack", option="strike")
    assert events(c, "roll")[0].data["total"] == 11
    assert events(c, "hit_decided")[-1].data["hit"] is False
    assert used_up(c)


@pytest.mark.rule("MOON-T42")
def test_MOON_T42_defense_skills_and_armour() -> None:
    """MOON-T42: MOON-8.9, MOON-8.14, MOON-15.8."""
    def start(dice: list[int]):
        c = combat([F("A1", "A_front", defense=2, armour="reinforced_coat", skills=["guard_stance", "iron_body"],
                      ap=3), F("B1", "A_front", skills=["strike"], ap=9)], dice=dice)
        act(c, "attack", option="strike")
        assert legal(c) == {"dodge none", "dodge guard_stance", "dodge iron_body"}
        return c
    c = start([4, 4, 4, 3])
    act(c, "dodge", option="guard_stance")
    assert f(c, "A1").tp == 28 and events(c, "roll")[-1].data["total"] == 12
    assert events(c, "hit_decided")[-1].data["hit"] is False and used_up(c)
    c = start([4, 4, 4, 3, 6, 6, 1, 1, 1])
    act(c, "dodge", option="iron_body")
    assert f(c, "A1").tp == 27 and f(c, "A1").hp == 41
    assert events(c, "damage_applied")[-1].data["reduction"] == 7 and used_up(c)


@pytest.mark.rule("MOON-T44")
def test_MOON_T44_offense_legality() -> None:
    """MOON-T44: MOON-8.3, MOON-8.2, MOON-15.2."""
    fs = [F("A1", "A_front", tp=5, skills=["strike", "shot", "charged_blow", "full_force", "soul_rend",
                                            "twin_target"], ap=9), F("B1", "A_front", ap=3)]
    c = combat(fs)
    assert legal_of(c, "attack") == {"attack strike", "attack shot", "attack charged_blow"}
    act(c, "attack", option="strike")
    assert legal(c) == {"offense none", "offense full_force"}
    c = combat(fs)
    act(c, "attack", option="shot")
    assert legal(c) == {"offense none", "offense twin_target"}
    fs[1]["ap"] = 8
    c = combat(fs)
    act(c, "attack", option="charged_blow")
    assert f(c, "A1").state == "standby" and f(c, "A1").tp == 0
    auto = [e for e in c.log if e.kind == "auto_decision" and e.data["decision"] == "offense"]
    assert auto


def test_effects_keyed_by_source_and_receiver() -> None:
    """MOON-14.2, MOON-14.4, MOON-15.4: battle_focus re-used replaces itself; round effects expire."""
    c = combat([F("A1", "A_front", skills=["battle_focus"], effects=["battle_focus"]), F("B1")],
               step="setup_skills")
    act(c, "use_skill", target="A1", option="battle_focus")
    assert [e.source for e in f(c, "A1").effects] == ["battle_focus"]
