"""Attack procedure basics: hit, dodge, damage, criticals, fumbles, threshold (MOON-T3..T6)."""

from __future__ import annotations

import pytest

from tests.rules.moonlit.helpers import F, act, combat, events, f, legal, used_up, who


@pytest.mark.rule("MOON-T3")
def test_MOON_T3_basic_melee_attack_with_weapon() -> None:
    """MOON-T3: MOON-5.1, MOON-6.1, MOON-6.2, MOON-6.5, MOON-6.6, MOON-6.7, MOON-6.14, MOON-8.1, MOON-8.2,
    MOON-8.4, MOON-8.7, MOON-8.8, MOON-8.11, MOON-8.12, MOON-8.14, MOON-8.16, MOON-11.1,
    MOON-14.9, MOON-15.8 and MOON-0.1 (dice order)."""
    c = combat([F("A1", "A_front", melee=4, skills=["strike"], weapon="short_blade", ap=10),
                F("B1", "A_front", melee=2, ap=6)], dice=[4, 3, 3, 3, 5, 2, 1, 3])
    assert who(c) == "A1"
    assert legal(c) == {"pass", "attack strike"} | {f"delay {v}" for v in range(1, 10)}
    act(c, "attack", option="strike")
    hit = [e for e in events(c, "roll") if e.data["purpose"].startswith("hit")][0]
    assert hit.data["total"] == 12
    dodge = [e for e in events(c, "roll") if e.data["purpose"] == "dodge check"][0]
    assert dodge.data["total"] == 8
    dmg = events(c, "damage_applied")[0]
    assert (dmg.data["damage"], dmg.data["reduction"], dmg.data["actual"]) == (13, 4, 9)
    assert f(c, "B1").hp == 41
    assert f(c, "A1").state == "acted"
    assert c.state.elapsed == 10
    assert who(c) == "B1"
    assert used_up(c)
    kinds = [e.kind for e in c.log]
    assert "auto_decision" in kinds


def _duel(a: dict, b: dict, dice: list[int], **kw: object):
    c = combat([F("A1", "A_front", skills=["strike"], ap=10, **a), F("B1", "A_front", ap=5, **b)], dice=dice, **kw)
    act(c, "attack", option="strike")
    return c


@pytest.mark.rule("MOON-T4")
def test_MOON_T4_ties_critical_dodge_and_critical_bonus() -> None:
    """MOON-T4: MOON-0.3, MOON-0.5, MOON-8.10, MOON-8.11, MOON-8.13."""
    c = _duel({"melee": 3}, {"melee": 3}, [4, 4, 5, 3])
    assert f(c, "B1").hp == 50 and used_up(c)
    assert events(c, "hit_decided")[0].data["hit"] is False
    c = _duel({"melee": 3}, {"melee": 3}, [6, 6, 6, 6])
    assert f(c, "B1").hp == 50 and used_up(c)
    c = _duel({"melee": 0}, {"melee": 6}, [6, 6, 6, 5, 3, 3, 4, 2, 2])
    assert f(c, "B1").hp == 40 and used_up(c)
    assert events(c, "damage_applied")[0].data["damage"] == 14
    c = _duel({"melee": 0}, {"melee": 6}, [6, 5, 6, 4, 1, 1, 1, 3, 3], options={"moon_crit_natural": 11})
    assert f(c, "B1").hp == 49 and used_up(c)


@pytest.mark.rule("MOON-T5")
def test_MOON_T5_fumbles() -> None:
    """MOON-T5: MOON-0.4, MOON-8.7."""
    c = _duel({"melee": 9}, {"melee": 0}, [1, 1])
    assert used_up(c) and f(c, "B1").hp == 50 and f(c, "A1").state == "acted"
    assert not [e for e in c.log if e.kind == "decision" and e.actor == "B1"]
    c = _duel({"melee": 0}, {"melee": 9}, [2, 1, 1, 1, 2, 2, 1, 1])
    assert used_up(c) and f(c, "B1").hp == 44
    c = _duel({"melee": 9}, {"melee": 0}, [1, 2], options={"moon_fumble_natural": 3})
    assert used_up(c) and f(c, "B1").hp == 50


@pytest.mark.rule("MOON-T6")
def test_MOON_T6_damage_threshold() -> None:
    """MOON-T6: MOON-8.16 actual damage threshold flag."""
    c = _duel({}, {}, [5, 5, 1, 2, 2, 3, 4, 4])
    assert f(c, "B1").hp == 49 and used_up(c)
    c = _duel({}, {}, [5, 5, 1, 2, 2, 3, 4, 4], options={"moon_damage_threshold": 2})
    assert f(c, "B1").hp == 50 and used_up(c)
    for th in (1, 2):
        c = _duel({}, {}, [5, 5, 1, 2, 2, 3, 5, 4], options={"moon_damage_threshold": th})
        assert f(c, "B1").hp == 50 and used_up(c)


def test_fumble_natural_must_be_below_crit() -> None:
    """MOON-0.4: a fumble threshold at or above the critical one is rejected."""
    from trpg_arena.rules import EncounterError

    with pytest.raises(EncounterError):
        combat([F("A1"), F("B1")], options={"moon_crit_natural": 6, "moon_fumble_natural": 6})
