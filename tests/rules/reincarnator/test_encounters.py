"""Encounter validation (bad input names the field), built-in encounters, options and persistence."""

from __future__ import annotations

import json
import pickle

import pytest

from tests.rules.reincarnator.helpers import PISTOL, H, act, at_turn, combat, defaults, encounter, rolls
from trpg_arena.rules import Combat, EncounterError, load_encounter
from trpg_arena.rules.core.dice import ScriptedDice


def error_of(enc) -> EncounterError:
    with pytest.raises(EncounterError) as info:
        load_encounter(enc)
    return info.value


def test_unknown_weapon_names_the_item_field() -> None:
    err = error_of(encounter(*defaults(a={"items": ["lightsaber"]})))
    assert err.path == "combatants[0] (id 'A').items[0]" and "lightsaber" in str(err)


def test_cell_off_the_map_names_the_position() -> None:
    err = error_of(encounter(*defaults(d={"position": [12, 3]})))
    assert err.path == "combatants[1].position" and "off the map" in str(err)


HUGE = 10**9


@pytest.mark.parametrize(("where", "path"), [
    (["combatants", 0, "speed_m"], "combatants[0] (id 'A').speed_m"),
    (["combatants", 0, "base_defense"], "combatants[0] (id 'A').base_defense"),
    (["combatants", 0, "max_health"], "combatants[0] (id 'A').max_health"),
    (["combatants", 0, "natural_weapons", 0, "damage"], "combatants[0] (id 'A').natural_weapons[0].damage"),
    (["combatants", 0, "start", "lethal"], "combatants[0] (id 'A').start.lethal"),
    (["map", "cells", 0, "area", 1, 0], "map.cells[0].area"),
])
def test_a_number_beyond_any_game_is_refused_at_its_field(where: list, path: str) -> None:
    # a billion dice of damage or metres of speed was accepted and then held the process for ever (memory, time) at
    # its first roll or walk; an area reaching a billion cells out ran out of memory while the file was checked
    data = load_encounter("reincarnator/brawl").model_dump(mode="json")
    data["map"]["cells"] = [{"area": [[0, 0], [1, 1]], "terrain": "difficult"}]
    data["combatants"][0]["id"] = "A"
    node = data
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = HUGE
    err = error_of(data)
    assert err.path.startswith(path), (err.path, str(err))


def test_wrong_type_names_the_field() -> None:
    err = error_of(encounter(*defaults(a={"base_defense": "high"})))
    assert err.path == "combatants[0] (id 'A').base_defense"


def test_a_missing_stat_block_is_an_error_and_cross_checks_name_the_file(tmp_path) -> None:
    _, d = defaults()
    a = {"id": "A", "side": "P", "position": [5, 5], "base_defense": 2}  # no stat block, no attributes
    assert error_of(encounter(a, d)).path == "combatants[0] (id 'A').attributes"
    path = tmp_path / "off.json"
    path.write_text(json.dumps(encounter(*defaults(d={"position": [40, 40]}))))
    err = error_of(path)
    assert err.source == str(path) and str(err).startswith(f"{path}: field 'combatants[1].position'")
    alert = encounter(*defaults(), surprise={"side": "P", "alert": ["mirra"]})
    path.write_text(json.dumps(alert))
    assert error_of(path).source == str(path) and "mirra" in str(error_of(path))


def test_unknown_stat_block_and_references() -> None:
    assert "stat block" in str(error_of(encounter(H("A", "P", (1, 1), stat_block="dragon"), H("D", "N", (2, 2)))))
    assert error_of(encounter(*defaults(), start=at_turn(["A", "Z"]))).path == "start.order[1]"
    assert error_of(encounter(*defaults(), surprise={"side": "X"})).path == "surprise.side"
    assert error_of(encounter(*defaults(), cells=[{"area": [[0, 0], [20, 1]], "terrain": "wall"}])).path == \
        "map.cells[0].area"
    bad_ammo = {**PISTOL, "ammo": {"capacity": 2, "loaded": 5}}
    assert error_of(encounter(*defaults(a={"items": [bad_ammo]}))).path.startswith("combatants[0] (id 'A').items[0]")
    assert error_of(encounter(*defaults(), options={"again_threshold": 7})).path == "options.again_threshold"
    walled = encounter(*defaults(d={"position": [6, 5]}), cells=[{"at": [6, 5], "terrain": "wall"}])
    assert error_of(walled).path == "combatants[1].position"


def test_builtin_encounters_load_and_skirmish_matches_section_10() -> None:
    for name in ("duel", "skirmish", "brawl"):
        enc = load_encounter(f"reincarnator/{name}")
        assert enc.ruleset == "reincarnator"
    brawl = load_encounter("reincarnator/brawl")
    sides = [c.side for c in brawl.combatants]
    assert sides.count("heroes") >= 6 and sides.count("cult") >= 6 and brawl.map.width * brawl.map.height > 192
    c = Combat("reincarnator/skirmish", seed=3)
    assert c.log[0].kind == "scene_change" and any(e.kind == "surprise_round_start" for e in c.log)


def test_options_thresholds_and_exploding_chance_die() -> None:
    """REI-3.1 and REI-3.2 options: success/again thresholds and an exploding chance die."""
    d = {"base_defense": 6, "dodge_defense": 3}
    c = combat(encounter(*defaults(d=d), options={"chance_die_explodes": True}, start=at_turn(["A", "D"])), 10, 9)
    act(c, "melee_attack", "D", option="unarmed")
    assert rolls(c)[-1].data["dice"] == [[10], [9]] and rolls(c)[-1].data["r"] == 2
    c = combat(encounter(*defaults(), options={"success_threshold": 7, "again_threshold": 9},
                         start=at_turn(["A", "D"])), 7, 9, *[1] * 6, 1)
    act(c, "melee_attack", "D", option="sword")
    assert rolls(c)[-1].data["r"] == 2 and rolls(c)[-1].data["dice"][1] == [1]


def test_hidden_targetable_option_and_blast_dodge() -> None:
    """REI-6.6 option hidden_targetable; REI-8.1 option blast_dodge."""
    enc = encounter(*defaults(H("S", "N", (4, 5), start={"hidden": True})), options={"hidden_targetable": False},
                    start=at_turn(["A", "D", "S"]))
    c = combat(enc)
    assert not any(a.target == "S" for a in c.legal_actions() if a.verb == "melee_attack")
    grenade = {"id": "grenade", "kind": "thrown", "size": 0, "explosive": {"blast": 5, "radius_m": 1}}
    for opts, pool in (({}, 4), ({"blast_dodge": False}, 5)):
        enc = encounter(H("A", "P", (1, 5), items=[grenade]), H("D", "N", (8, 5)), options=opts,
                        start=at_turn(["A", "D"]))
        c = combat(enc, 8, *[1] * 6, *[1] * pool)
        act(c, "throw", dest=(8, 5), option=("grenade", "dex"))
        assert len(rolls(c)[-1].data["dice"][0]) == pool and c.dice.remaining == 0


def test_vehicle_accel_multiplier_option() -> None:
    """REI-2.15 option vehicle_accel_multiplier: how far an accelerated drive reaches."""
    v = H("V", "P", None, in_vehicle="buggy")
    for mult, far in ((2, 32), (3, 48)):
        enc = encounter(v, H("D", "N", (49, 11)), width=50, options={"vehicle_accel_multiplier": mult},
                        vehicles=[{"use": "buggy", "id": "buggy", "position": [0, 5], "driver": "V"}],
                        start=at_turn(["V", "D"], actor="V"))
        c = combat(enc)
        dests = {a.dest for a in c.legal_actions() if a.verb == "drive_fast"}
        assert (far, 5) in dests and (far + 1, 5) not in dests


def test_alternating_diagonals_option() -> None:
    """Section 5 option diagonal_rule = alternating: every second diagonal step costs 2."""
    enc = encounter(H("A", "P", (0, 0), speed_m=4), H("D", "N", (11, 11)), options={"diagonal_rule": "alternating"},
                    start=at_turn(["A", "D"]))
    c = combat(enc)
    legal = {a.dest for a in c.legal_actions() if a.verb == "move"}
    assert (3, 3) in legal and (4, 4) not in legal


def test_snapshot_and_pickle_round_trip_mid_procedure() -> None:
    """A combat paused in a reaction window restores identically from JSON and from pickle."""
    enc = encounter(*defaults(), start=at_turn(["A", "D"]))
    c = Combat(enc, dice=ScriptedDice([(10, 8)] + [(10, 1)] * 4 + [(10, 8)] * 8 + [(10, 1)] * 8))
    act(c, "grapple", "D")
    assert c.decision.step == "grapple_resist"
    r = Combat.restore(json.loads(json.dumps(c.snapshot())))
    assert r.legal_actions() == c.legal_actions()
    state = pickle.loads(pickle.dumps(c.state))
    assert state == c.state
    act(r, "grapple_resist", option="break")
    act(c, "grapple_resist", option="break")
    assert [e.json_line() for e in r.log] == [e.json_line() for e in c.log]
