"""Encounter validation (bad input names the field path), built-in encounters, states, reach and categories."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from tests.rules.moonlit.helpers import F, act, combat, encounter, events, f, legal_of
from trpg_arena.agents import RandomAgent
from trpg_arena.rules import Combat, EncounterError, load_encounter
from trpg_arena.rules.moonlit.data import SKILLS
from trpg_arena.table.session import play


def _enc() -> dict:
    return encounter([F("A1", "A_front", skills=["strike"]), F("B1", "B_front")], step=None)


@pytest.mark.parametrize(("mutate", "path"), [
    (lambda e: e["combatants"][0]["skills"].append("fireball"), "combatants[0] (id 'A1').skills[1]"),
    (lambda e: e["combatants"][0].update(zone="middle"), "combatants[0] (id 'A1').zone"),
    (lambda e: e["combatants"][0].update(zone="B_front"), "combatants[0] (id 'A1')"),
    (lambda e: e["combatants"][1].update(melee="strong"), "combatants[1] (id 'B1').melee"),
    (lambda e: e["combatants"][1].update(defense=9), "combatants[1] (id 'B1').defense"),
    (lambda e: e["combatants"][1].update(weapon="bazooka"), "combatants[1] (id 'B1').weapon"),
    (lambda e: e["combatants"][1].update(items={"potion": 1}), "combatants[1] (id 'B1').items.potion.[key]"),
    (lambda e: e["combatants"][1].update(side="C"), "combatants[1] (id 'B1').side"),
    (lambda e: e["combatants"][1].update(colour="red"), "combatants[1] (id 'B1').colour"),
    (lambda e: e.update(options={"moon_round_cap": 0}), "options.moon_round_cap"),
    (lambda e: e.update(options={"moon_round_cap": 10**9}), "options.moon_round_cap"),  # a game must end
    (lambda e: e.update(options={"moon_deploy": "random"}), "options.moon_deploy"),
    (lambda e: e.update(hazards=[{"zone": "sky", "n": 1}]), "hazards[0].zone"),
    (lambda e: e.update(start={"step": "lunch"}), "start.step"),
    (lambda e: e.update(start={"combatants": {"A1": {"zone": "moon"}}}), "start.combatants.A1.zone"),
    (lambda e: e.update(start={"combatants": {"A1": {"pending": {"skill": "nope"}}}}),
     "start.combatants.A1.pending.skill"),
    (lambda e: [e["combatants"][1].pop(k, None) for k in ("body", "action", "melee", "ranged", "mental", "defense",
                                                           "max_hp")], "combatants[1] (id 'B1')"),
])
def test_bad_encounter_fields_name_the_path(mutate, path: str) -> None:
    """Bad input raises EncounterError naming the field path; nothing starts."""
    e = _enc()
    mutate(e)
    with pytest.raises(EncounterError) as info:
        Combat(e, seed=1)
    assert info.value.path == path, str(info.value)


def test_unknown_combatant_references_are_rejected() -> None:
    for extra in ({"ambushed": ["Z9"]}, {"arrivals": [{"round": 2, "combatant": "Z9", "zone": "B_front"}]},
                  {"start": {"combatants": {"Z9": {"ap": 3}}}}):
        e = {**_enc(), **extra}
        with pytest.raises(EncounterError):
            load_encounter(e)


def test_start_section_consistency_errors() -> None:
    e = encounter([F("A1", state="standby"), F("B1")])
    with pytest.raises(EncounterError) as info:
        Combat(e, seed=1)
    assert info.value.path == "start.combatants.A1.pending"


@pytest.mark.parametrize("name", ["moonlit/duel", "moonlit/skirmish", "moonlit/brawl"])
def test_builtin_encounters_play_and_round_trip(name: str) -> None:
    c = Combat(name, seed=3)
    agent = RandomAgent(seed=3)
    for _ in range(60):
        if c.over:
            break
        c.act(agent.act(c))
    snap = json.loads(json.dumps(c.snapshot()))
    r = Combat.restore(snap)
    assert r.legal_actions() == c.legal_actions()
    assert pickle.loads(pickle.dumps(c.state)) == c.state
    k = c.clone()
    assert k.state == c.state and k.state is not c.state


def test_skirmish_is_the_sample_encounter() -> None:
    enc = load_encounter("moonlit/skirmish")
    assert enc.encounter == "moonlit_alley"
    assert [c.id for c in enc.combatants] == ["kei", "mio", "sayo", "ghoul_1", "ghoul_2", "puppeteer", "count"]
    brawl = load_encounter("moonlit/brawl")
    assert sum(c.side == "A" for c in brawl.combatants) >= 6 and sum(c.side == "B" for c in brawl.combatants) >= 6


@pytest.mark.rule("MOON-2.1")
def test_states_are_exclusive_and_every_change_is_an_event() -> None:
    """MOON-2.1, MOON-2.2: one state at a time; not_acted at round start and after a broken charge at AP > 0."""
    c = combat([F("A1", ap=5), F("B1", ap=4)], step="main", options={"moon_escape_enabled": False, "moon_round_cap": 2},
               dice=[1, 1, 1, 1])
    act(c, "pass")
    ch = events(c, "state_changed")[-1]
    assert ch.data["combatant"] == "A1" and ch.data["from"] == "not_acted" and ch.data["to"] == "acted"
    act(c, "pass")
    assert c.round == 2 and f(c, "A1").state == "not_acted" and f(c, "B1").state == "not_acted"
    assert {e.data["cause"] for e in events(c, "state_changed") if e.round == 2} == {"round start"}


@pytest.mark.rule("MOON-3.4")
def test_melee_reaches_own_zone_ranged_every_zone() -> None:
    """MOON-3.4, MOON-14.9: melee only in the attacker's zone; ranged anywhere."""
    c = combat([F("A1", "A_rear", skills=["strike", "shot"], ap=9), F("B1", "B_rear", ap=2)])
    assert legal_of(c, "attack") == {"attack shot"}
    c = combat([F("A1", "B_rear", skills=["strike", "shot"], ap=9), F("B1", "B_rear", ap=2)])
    assert legal_of(c, "attack") == {"attack shot", "attack strike"}


@pytest.mark.rule("MOON-15.1")
def test_skill_categories_and_timing() -> None:
    """MOON-15.1: each skill has one category; passives are never offered; normal skills are main actions."""
    cats = {s.category for s in SKILLS.values()}
    assert cats == {"attack", "offense", "defense", "interrupt", "setup", "end", "normal", "passive"}
    assert all(s.type in ("melee", "ranged", "mental") for s in SKILLS.values() if s.category == "attack")
    c = combat([F("A1", "A_front", skills=["death_rebirth", "unacceptable_existence", "healing_light"], hp=40, ap=9),
                F("B1", "B_front", ap=2)])
    assert {a.option for a in c.legal_actions() if a.verb == "use_skill"} == {"healing_light"}


def test_encounter_data_is_not_mutated_by_play() -> None:
    e = _enc()
    before = copy.deepcopy(e)
    c = Combat(e, seed=2)
    agent = RandomAgent(seed=2)
    while not c.over:
        c.act(agent.act(c))
    assert e == before


def test_snapshot_mid_attack_continues_identically() -> None:
    """A snapshot taken at a reaction decision restores the attack frame and continues byte for byte."""
    from trpg_arena.rules.core.dice import Dice

    c = combat([F("A1", "A_front", skills=["strike", "charged_blow"], ap=9),
                F("B1", "A_front", skills=["strike", "guard_stance"], ap=7)])
    c.dice = Dice(5)
    act(c, "attack", option="charged_blow")
    act(c, "attack", option="strike")
    assert c.decision.step == "reaction"
    snap = json.loads(json.dumps(c.snapshot()))
    r = Combat.restore(snap)
    assert r.legal_actions() == c.legal_actions()
    a1, a2 = RandomAgent(seed=1), RandomAgent(seed=1)
    while not c.over:
        x, y = a1.act(c), a2.act(r)
        assert x == y
        c.act(x)
        r.act(y)
    assert [e.json_line() for e in c.log] == [e.json_line() for e in r.log]


SPEC_EVENT_KINDS = {
    "round_start", "phase_start", "roll", "ap_set", "decision", "auto_decision", "state_changed", "time_advanced",
    "moved", "move_blocked", "escape", "condition_added", "condition_removed", "skill_used", "item_used",
    "attack_declared", "standby_entered", "standby_broken", "attack_fizzled", "hit_decided", "counter_decided",
    "cover", "damage_applied", "hp_lost", "healed", "cap_damage", "trait_triggered", "summoned", "summon_vanished",
    "combat_end",
}
EXTRA_EVENT_KINDS = {"entered", "purge_failed", "coup_de_grace"}  # documented additions (MOON-4.2, 4.7, 6.10)


def test_event_kinds_follow_section_4_8() -> None:
    """Section 4.8: every roll and state change is an event of a listed kind (plus three documented extras)."""
    seen: set[str] = set()
    for name in ("moonlit/skirmish", "moonlit/brawl"):
        for s in range(15):
            c = Combat(name, seed=s)
            play(c, [RandomAgent(seed=s), RandomAgent(seed=s + 1)])
            seen |= {e.kind for e in c.log}
            for e in c.log:
                assert e.text
    assert seen <= SPEC_EVENT_KINDS | EXTRA_EVENT_KINDS, seen - SPEC_EVENT_KINDS
