"""Edge cases beyond the acceptance scenarios: revival order, summons and poison, mixed counters in zone attacks."""

from __future__ import annotations

import pytest

from tests.rules.moonlit.helpers import F, act, combat, events, f, used_up, who


@pytest.mark.parametrize(("action", "gets_turn"), [(4, True), (8, False)])
def test_revived_in_setup_acts_only_if_its_place_is_ahead(action: int, gets_turn: bool) -> None:
    """MOON-11.4: revived during setup skills, a combatant gets that step's turn only if its place is ahead."""
    c = combat([F("A1", "A_front", action=action, hp=0, state="incapacitated", skills=["battle_focus"]),
                F("A2", "A_front", action=6, skills=["field_dressing"], ap=9), F("B1", "B_front", ap=5)],
               dice=[2, 3, 4], step="setup_skills")
    act(c, "use_skill", target="A1", option="field_dressing")
    assert f(c, "A1").state == "not_acted" and f(c, "A1").ap == action + 7
    assert (who(c) == "A1" and c.decision.step == "setup_skill") is gets_turn
    assert used_up(c)


def test_summoner_downed_by_poison_loses_its_summon() -> None:
    """MOON-15.7: a summoner incapacitated by poison at the end phase: its summon vanishes at once."""
    c = combat([F("A1", "A_rear", hp=2, conditions={"poison": 1}), F("A2", "A_front"), F("B1", "B_front")],
               step="end", start={"summons": [{"summoner": "A1", "template": "puppet"}]})
    assert f(c, "A1").state == "incapacitated" and f(c, "A1.puppet").state == "absent"
    assert not c.over


def test_zone_attack_with_a_counter_and_a_hit() -> None:
    """MOON-8.1 step 7 dice order: base damage, critical die, then each successful counterer's dice."""
    c = combat([F("A1", "A_rear", ranged=3, skills=["flame_burst"], state="standby", ap=6,
                  pending={"skill": "flame_burst", "zone": "B_front"}),
                F("B1", "B_front", ranged=3, skills=["shot"], state="standby", ap=2,
                  pending={"skill": "shot", "targets": ["A1"]}),
                F("B2", "B_front", state="acted")],
               dice=[4, 4, 6, 5, 1, 1, 2, 2, 1, 1], options={"moon_round_cap": 1})
    # A1 continues: hit 11; B1 counters (11 + 3 = 14 > 11); B2 dodges [1,1] -> fumble -> hit
    assert who(c) == "B1" and c.decision.step == "reaction"
    act(c, "counter")
    assert events(c, "counter_decided")[-1].data["outcome"] == "counter"
    purposes = [e.data["purpose"] for e in events(c, "roll")]
    assert purposes == ["hit check (flame_burst)", "counter check (shot)", "dodge check", "damage (flame_burst)",
                        "damage (shot)"]  # fire attacks: attribute points, no reduction dice (MOON-8.15, 10.9)
    # B2: fire 0 -> 7 actual; exchange: A1 7 vs B1 5 -> B1 smaller, fire 0 -> 7 - 5 = 2
    assert f(c, "B2").hp == 43 and f(c, "B1").hp == 48 and f(c, "A1").hp == 50
    assert f(c, "A1").state == "acted" and f(c, "B1").state == "acted"
    assert used_up(c)


def test_no_interrupt_offers_without_a_hit() -> None:
    """MOON-15.5: the window opens only for targets that were hit."""
    c = combat([F("B1", "A_front", skills=["strike"], ap=9), F("A1", "A_front", ap=5),
                F("A2", "A_front", skills=["warding_seal"], state="acted")], dice=[1, 1])
    act(c, "attack", option="strike")
    act(c, "target", target="A1")
    assert not [e for e in c.log if e.kind in ("decision", "auto_decision") and e.data["decision"] == "interrupt"]
    assert used_up(c)
