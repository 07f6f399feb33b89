"""The pre-damage window: cover (MOON-14.1) and interrupts (MOON-15.5, MOON-9.3),
no duplicate effects (MOON-14.2)."""

from __future__ import annotations

import pytest

from tests.rules.moonlit.helpers import F, act, combat, events, f, legal, used_up, who


def _t18(a2: dict, dice: list[int]):
    c = combat([F("B1", "A_front", melee=4, skills=["venom_fang"], ap=9), F("A1", "A_front", ap=5),
                F("A2", "A_front", **a2), F("A3", "A_front", state="acted"), F("A4", "A_rear", ap=7)], dice=dice)
    act(c, "attack", option="venom_fang")
    act(c, "target", target="A1")
    assert f(c, "B1").tp == 27
    return c


@pytest.mark.rule("MOON-T18")
def test_MOON_T18_cover() -> None:
    """MOON-T18: MOON-14.1, MOON-2.7, MOON-6.2, MOON-8.17, MOON-9.2, MOON-13.2."""
    c = _t18({"ap": 8}, [5, 5, 2, 1, 4, 4, 2, 2])
    assert who(c) == "A2" and legal(c) == {"cover", "decline"}
    act(c, "cover")
    a2 = f(c, "A2")
    assert a2.ap == -2 and a2.state == "acted"
    assert a2.hp == 44 and a2.poison == 1
    assert f(c, "A1").hp == 50 and f(c, "A1").poison == 0
    assert f(c, "B1").state == "acted" and c.state.elapsed == 20
    assert used_up(c)
    # (b) a standby coverer stays standby, then the damage breaks it at AP <= 0 -> acted
    c = _t18({"ap": 6, "state": "standby", "skills": ["charged_blow"],
              "pending": {"skill": "charged_blow", "targets": ["B1"]}}, [5, 5, 2, 1, 4, 4, 2, 2])
    act(c, "cover")
    assert events(c, "cover")[0].data["coverer"] == "A2"
    a2 = f(c, "A2")
    assert a2.ap == -4 and a2.state == "acted" and a2.pending is None
    assert [e.data["to"] for e in events(c, "state_changed") if e.data["combatant"] == "A2"] == ["acted"]
    assert used_up(c)


@pytest.mark.rule("MOON-T32")
def test_MOON_T32_warding_seals_do_not_stack() -> None:
    """MOON-T32 (b): MOON-14.2, MOON-15.5."""
    c = combat([F("B1", "A_front", skills=["strike"], ap=9), F("A1", "A_front", ap=5),
                F("A2", "A_front", skills=["warding_seal"], ap=8), F("A3", "A_front", skills=["warding_seal"], ap=6)],
               dice=[5, 5, 2, 1, 6, 6, 2, 2])
    act(c, "attack", option="strike")
    act(c, "target", target="A1")
    assert who(c) == "A2" and legal(c) == {"cover", "decline"}
    act(c, "decline")
    assert who(c) == "A3"
    act(c, "decline")
    assert who(c) == "A2" and c.decision.step == "interrupt"
    assert legal(c) == {"interrupt warding_seal -> A1", "decline"}
    act(c, "interrupt", target="A1", option="warding_seal")
    assert who(c) == "A3"
    act(c, "interrupt", target="A1", option="warding_seal")
    dmg = events(c, "damage_applied")[-1]
    assert dmg.data["reduction"] == 9 and dmg.data["actual"] == 7
    assert f(c, "A1").hp == 43 and f(c, "A2").tp == 26 and f(c, "A3").tp == 26
    assert used_up(c)


@pytest.mark.rule("MOON-T33")
def test_MOON_T33_no_interrupts_in_standby() -> None:
    """MOON-T33: MOON-9.3, MOON-15.5, MOON-14.1."""
    c = combat([F("B1", "A_front", skills=["strike"], ap=9), F("A1", "A_front", ap=5),
                F("A2", "A_front", state="standby", ap=3, skills=["warding_seal", "charged_blow"],
                  pending={"skill": "charged_blow", "targets": ["B1"]}),
                F("A3", "A_front", state="acted", skills=["warding_seal"])], dice=[5, 5, 2, 1, 4, 4, 1, 1])
    act(c, "attack", option="strike")
    act(c, "target", target="A1")
    assert who(c) == "A2" and legal(c) == {"cover", "decline"}
    act(c, "decline")
    assert who(c) == "A3" and c.decision.step == "interrupt"
    act(c, "interrupt", target="A1", option="warding_seal")
    assert f(c, "A3").tp == 26 and f(c, "A1").hp == 45
    assert not [e for e in c.log if e.kind == "decision" and e.actor == "A2" and e.data["decision"] == "interrupt"]
    assert used_up(c)


def test_cover_not_in_counter_exchange_and_not_by_acted() -> None:
    """MOON-14.1: acted allies and other zones never cover; the counter exchange has no window."""
    c = _t18({"ap": 8, "state": "acted"}, [5, 5, 2, 1, 4, 4, 2, 2])
    assert f(c, "A1").hp == 44 and not events(c, "cover")
    assert used_up(c)
