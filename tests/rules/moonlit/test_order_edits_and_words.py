"""moonlit details: the setup order flag, damage words, GM edits of AP, the delay bound,
re-inflicted condition words, targets of an incapacitated ally, the clock for a summon, death_rebirth's HP.
"""

from __future__ import annotations

import pytest

from tests.rules.moonlit.helpers import F, act, combat, events, f, legal, legal_of, used_up, who
from trpg_arena.rules import Combat
from trpg_arena.rules.core.edits import EditError, edit_combatant, fields_of

BY_AP = {"moon_setup_order_key": "action_points", "moon_escape_enabled": False}


def _first_deciders(c: Combat) -> list[str]:
    """Who decides, in order, when everyone answers `done` (setup and end steps)."""
    out = []
    while c.decision is not None and c.decision.step in ("purge", "setup_skill", "end_skill", "escape"):
        out.append(who(c))
        act(c, "stay" if c.decision.step == "escape" else "done")
    return out


# --- MOON-4.8 flag: one setup order for 4.7, 4.8 and 7.3 (escape exempt) ---------------------------------
@pytest.mark.rule("MOON-4.7")
@pytest.mark.parametrize(("options", "first"), [({"moon_escape_enabled": False}, "A1"), (BY_AP, "B1")])
def test_MOON_4_7_purge_follows_the_setup_order_flag(options: dict[str, object], first: str) -> None:
    """MOON-4.7 runs in setup order; with `moon_setup_order_key: action_points` that is AP first (MOON-1.1, 4.8)."""
    c = combat([F("A1", action=6, ap=5, conditions={"poison": 1}),
                F("B1", action=3, ap=12, conditions={"poison": 1})], step="purge", options=options)
    assert _first_deciders(c) == [first, "B1" if first == "A1" else "A1"]


@pytest.mark.rule("MOON-7.3")
@pytest.mark.parametrize(("options", "first"), [({"moon_escape_enabled": False}, "A1"), (BY_AP, "B1")])
def test_MOON_7_3_end_skills_follow_the_setup_order_flag(options: dict[str, object], first: str) -> None:
    """MOON-7.3 runs in setup order; the flag makes AP (what is left of it at the end phase) the first key."""
    c = combat([F("A1", action=6, ap=5, hp=40, skills=["regeneration"]),
                F("B1", action=3, ap=12, hp=40, skills=["regeneration"])], step="end_skills",
               options={**options, "moon_round_cap": 1})
    assert _first_deciders(c) == [first, "B1" if first == "A1" else "A1"]


@pytest.mark.rule("MOON-4.3")
def test_MOON_4_3_escape_keeps_the_action_stat_order_under_the_flag() -> None:
    """MOON-4.8: escape decisions come before AP exist, so they keep `action_stat` whatever the flag says."""
    c = combat([F("A1", action=3), F("B1", action=6)], step="escape",
               options={"moon_setup_order_key": "action_points"})
    assert who(c) == "B1"  # by AP (both 0) the pc A1 would come first


# --- MOON-15.6 unacceptable_existence named in the damage words -------------------------------------
@pytest.mark.rule("MOON-15.6")
def test_MOON_15_6_unacceptable_existence_is_named_and_the_numbers_add_up() -> None:
    """The -5 of `unacceptable_existence` appears in the sentence and in the data (MOON-8.16, 15.6)."""
    c = combat([F("A1", skills=["strike"], ap=10), F("B1", "A_front", skills=["unacceptable_existence"], ap=5)],
               dice=[5, 5, 1, 2, 4, 4, 1, 1])
    act(c, "attack", option="strike")
    dmg = events(c, "damage_applied")[0]
    assert dmg.text == "B1 takes 12 (8 rolled + 4 strike) - 2 defence - 5 unacceptable_existence = 5 damage"
    d = dmg.data
    assert (d["damage"], d["reduction"], d["trait_reduction"], d["actual"]) == (12, 2, 5, 5)
    assert f(c, "B1").hp == 45 and used_up(c)


@pytest.mark.rule("MOON-15.6")
def test_MOON_15_6_unacceptable_existence_cuts_only_what_is_left() -> None:
    """A difference below 5 is cut to 0: the data report the 3 points the trait took, so they still add up."""
    trait = ["unacceptable_existence"]
    c = combat([F("A1", skills=["strike"], ap=10), F("B1", "A_front", skills=trait, ap=5, defense=3)],
               dice=[5, 5, 1, 2, 1, 1, 2, 2, 2])
    act(c, "attack", option="strike")
    d = events(c, "damage_applied")[0].data
    assert (d["damage"], d["reduction"], d["trait_reduction"], d["actual"]) == (6, 6, 0, 0)
    c = combat([F("A1", skills=["strike"], ap=10), F("B1", "A_front", skills=trait, ap=5, defense=1)],
               dice=[5, 5, 1, 2, 2, 2, 5])
    act(c, "attack", option="strike")
    dmg = events(c, "damage_applied")[0]
    assert dmg.text.endswith("- 5 defence - 3 unacceptable_existence = 0 damage")
    assert (dmg.data["trait_reduction"], dmg.data["actual"]) == (3, 0) and f(c, "B1").hp == 50


@pytest.mark.rule("MOON-10.9")
def test_MOON_10_9_unacceptable_existence_is_named_in_the_exchange() -> None:
    """MOON-10.9 then MOON-15.6: the exchange's words name the trait's cut too."""
    c = combat([F("A1", skills=["strike"], ap=10),
                F("B1", "A_front", skills=["charged_blow", "unacceptable_existence"], state="standby", ap=2,
                  pending={"skill": "charged_blow", "targets": ["A1"]})],
               dice=[2, 2, 6, 5, 6, 6, 1, 1, 1, 1, 1, 1])
    act(c, "attack", option="strike")
    act(c, "counter")
    dmg = events(c, "damage_applied")[0]
    assert dmg.text == ("B1 takes 16 (12 rolled + 4 strike) - (8 (4 rolled + 4 charged_blow) + 2) "
                        "- 5 unacceptable_existence = 1 damage in the exchange")
    d = dmg.data
    assert d["damage"] - d["reduction"] - d["trait_reduction"] == d["actual"] == 1
    assert f(c, "B1").hp == 49


# --- MOON-2.7 on a GM edit of AP --------------------------------------------------------------------
@pytest.mark.rule("MOON-2.7")
def test_MOON_2_7_a_gm_edit_to_zero_ap_ends_a_not_acted_turn() -> None:
    """A `not_acted` combatant whose AP the GM sets to 0 becomes `acted` at once, and the log says why."""
    c = combat([F("A1", ap=10), F("A2", ap=8), F("B1", "B_front", ap=5)])
    out = edit_combatant(c, "A2", {"ap": 0})
    assert f(c, "A2").state == "acted"
    change = [e for e in out if e.kind == "state_changed"]
    assert [(e.data["combatant"], e.data["to"], e.rule) for e in change] == [("A2", "acted", "MOON-2.7")]
    act(c, "pass")
    assert who(c) == "B1"  # A2's 8 AP would have come first: it has no turn left


@pytest.mark.rule("MOON-2.7")
def test_MOON_2_7_a_gm_edit_spares_standby_and_the_ap_not_yet_rolled() -> None:
    """Standby is exempt (MOON-8.5); before MOON-4.6 the AP is not rolled yet, so 0 means nothing."""
    c = combat([F("A1", ap=10), F("A2", skills=["charged_blow"], state="standby", ap=3,
                                  pending={"skill": "charged_blow", "targets": ["B1"]}), F("B1", ap=5)])
    edit_combatant(c, "A2", {"ap": 0})
    assert f(c, "A2").state == "standby"
    c = combat([F("A1", ap=4), F("B1", ap=5)], step="escape")
    edit_combatant(c, "B1", {"ap": 0})
    assert f(c, "B1").state == "not_acted"


@pytest.mark.rule("MOON-2.7")
def test_MOON_2_7_the_deciding_actor_keeps_its_turn_against_an_ap_edit() -> None:
    """Setting the deciding actor's AP to 0 would end the turn it is choosing: refused, nothing changed."""
    c = combat([F("A1", ap=10), F("B1", ap=5)])
    with pytest.raises(EditError, match="deciding"):
        edit_combatant(c, "A1", {"ap": 0})
    assert f(c, "A1").ap == 10 and f(c, "A1").state == "not_acted" and who(c) == "A1"


# --- MOON-6.3 delay bound covers every AP the encounter and edits allow -----------------------------
@pytest.mark.rule("MOON-6.3")
def test_MOON_6_3_a_start_summons_ap_is_inside_the_delay_bound() -> None:
    """`start.summons[].ap` counts for the catalogue's delay bound: AP 40 offers delay 1..39."""
    c = combat([F("A1", "A_rear", skills=["puppet_soldiers"], ap=3), F("B1", ap=2)],
               start={"summons": [{"summoner": "A1", "template": "puppet", "state": "not_acted", "ap": 40}]})
    assert who(c) == "A1.puppet"
    assert legal_of(c, "delay") == {f"delay {v}" for v in range(1, 40)}
    assert set(c.legal_actions()) <= set(c.system.action_catalogue(c.encounter))


@pytest.mark.rule("MOON-6.3")
def test_MOON_6_3_a_gm_edit_of_ap_stops_at_what_the_catalogue_holds() -> None:
    """The AP field's top is the highest AP of the encounter; a larger value is refused, the top offers 1..top-1."""
    c = combat([F("A1", ap=10), F("B1", ap=5)])
    top = next(x for x in fields_of(c, "A1") if x.name == "ap").high
    assert top == 4 + 12  # Action 4 and double six: nobody here can hold more
    with pytest.raises(EditError, match=f"from 0 to {top}"):
        edit_combatant(c, "A1", {"ap": 60})
    edit_combatant(c, "A1", {"ap": top})
    assert legal_of(c, "delay") == {f"delay {v}" for v in range(1, top)}


# --- MOON-13.1 words of a re-inflicted condition ----------------------------------------------------
@pytest.mark.rule("MOON-13.1")
@pytest.mark.parametrize(("skill", "condition", "word"), [("mind_spike", "trance", "tranced"),
                                                          ("paralysis_needle", "paralysis", "paralysed"),
                                                          ("baptismal_hymn", "baptism", "baptised")])
def test_MOON_13_1_an_already_afflicted_target_is_named_in_plain_words(skill: str, condition: str,
                                                                       word: str) -> None:
    """Re-inflicting a condition has no effect (MOON-13.1); the log says ``B1 is already tranced``."""
    standby = {"state": "standby", "pending": {"skill": skill, "targets": ["B1"]}} if skill == "baptismal_hymn" else {}
    c = combat([F("A1", skills=[skill], ap=10, **standby), F("B1", ap=1, emotion=0, conditions={condition: True})],
               dice=[5, 5, 1, 1, 3, 3, 1, 1], options={"moon_round_cap": 1})
    if not standby:
        act(c, "attack", option=skill)
    assert [e.text for e in events(c, "condition_added")] == [f"B1 is already {word}: no effect"]


@pytest.mark.rule("MOON-13.1")
def test_MOON_13_1_an_already_bound_target_is_named_in_plain_words() -> None:
    """MOON-T29's after-damage bind on a bound target: ``B1 is already bound``."""
    c = combat([F("A1", skills=["strike", "binding_thread"], ap=10),
                F("B1", "A_front", ap=1, conditions={"bind": True})],
               dice=[5, 5, 1, 1, 3, 3, 1, 1], options={"moon_round_cap": 1})
    act(c, "attack", option="strike")
    act(c, "offense", option="binding_thread")
    assert [e.text for e in events(c, "condition_added")] == ["B1 is already bound: no effect"]


# --- MOON-2.5 / 11.3: an incapacitated ally is a target only of healing, items and coup de grace ------
@pytest.mark.rule("MOON-11.3")
def test_MOON_11_3_no_condition_skill_on_an_incapacitated_ally() -> None:
    """`purifying_breath` is no healing: it is not offered on an incapacitated ally (MOON-2.5, 11.3)."""
    c = combat([F("A1", skills=["purifying_breath"], conditions={"bind": True}),
                F("A2", hp=0, state="incapacitated", conditions={"poison": 2}), F("B1", "B_front")],
               step="end_skills")
    assert legal(c) == {"done", "use_skill purifying_breath bind -> A1"}


@pytest.mark.rule("MOON-11.3")
def test_MOON_11_3_healing_still_reaches_an_incapacitated_ally() -> None:
    """Healing may target an incapacitated ally (MOON-11.5), so it is still offered."""
    c = combat([F("A1", skills=["healing_light"], ap=9), F("A2", hp=0, state="incapacitated"), F("B1", ap=5)])
    assert "use_skill healing_light -> A2" in legal(c)


# --- MOON-6.2: a fresh summon's `acted` counts ten seconds --------------------------------------------
@pytest.mark.rule("MOON-6.2")
def test_MOON_6_2_a_summon_in_the_main_phase_adds_ten_seconds() -> None:
    """A fresh summon enters `acted` (MOON-2.4, 15.7) in the main loop: 10 s, as its summoner's action does."""
    c = combat([F("A1", "A_rear", skills=["puppet_soldiers"], ap=9), F("B1", "B_front", ap=5)])
    act(c, "use_skill", option=next(a for a in c.legal_actions() if a.verb == "use_skill").option)
    assert c.state.elapsed == 20
    assert [e.data["elapsed_seconds"] for e in events(c, "time_advanced")] == [10, 20]
    assert [e.text for e in events(c, "state_changed")][:2] == ["A1.puppet: absent -> acted (summoned)",
                                                                "A1: not_acted -> acted (use_skill)"]


# --- MOON-15.6: death_rebirth's HP against the damage event's ------------------------------------------
@pytest.mark.rule("MOON-15.6")
def test_MOON_15_6_death_rebirth_takes_over_from_the_hp_the_damage_left() -> None:
    """`hp_after` of the damage is the HP it left (0); `trait_triggered` says the trait takes it from 0 to 10."""
    c = combat([F("A1", skills=["strike"], ap=10), F("B1", "A_front", hp=5, skills=["death_rebirth"], ap=3)],
               dice=[5, 5, 1, 2, 3, 3, 1, 1])
    act(c, "attack", option="strike")
    dmg, trait = events(c, "damage_applied")[0], events(c, "trait_triggered")[0]
    assert dmg.data["hp_after"] == 0 and dmg.seq < trait.seq
    assert (trait.data["hp_before"], trait.data["hp_after"]) == (0, 10)
    assert trait.text == "B1: death_rebirth! HP 0 -> 10 instead of falling"
    assert f(c, "B1").hp == 10 and f(c, "B1").state == "not_acted"


# --- MOON-8.9: the dodge prompt offers a counter only where one is legal ---------------------------------
@pytest.mark.rule("MOON-8.9")
def test_MOON_8_9_the_reaction_prompt_names_only_legal_answers() -> None:
    """``dodge or counter?`` only when `counter` is legal (MOON-10.1); a plain target is asked ``dodge?``."""
    c = combat([F("A1", skills=["strike"], ap=10), F("B1", "A_front", skills=["guard_stance"], ap=5)], dice=[5, 5])
    act(c, "attack", option="strike")
    assert "counter" not in legal(c)
    assert c.decision.prompt == "A1's strike rolled 13: dodge?"
    c = combat([F("A1", skills=["strike"], ap=10),
                F("B1", "A_front", skills=["charged_blow"], state="standby", ap=2,
                  pending={"skill": "charged_blow", "targets": ["A1"]})], dice=[5, 5])
    act(c, "attack", option="strike")
    assert "counter" in legal(c)
    assert c.decision.prompt == "A1's strike rolled 13: dodge or counter?"
