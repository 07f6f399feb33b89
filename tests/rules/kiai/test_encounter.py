"""Encounter validation (located errors), the data library, the start section and the built-in encounters."""

from __future__ import annotations

import copy

import pytest

from tests.rules.kiai.helpers import fighter, fixture
from trpg_arena.rules import Combat, EncounterError, load_encounter


def _err(enc: dict) -> EncounterError:
    with pytest.raises(EncounterError) as exc:
        load_encounter(enc)
    return exc.value


def _mod(**changes):
    enc = fixture()
    for path, value in changes.items():
        node = enc
        keys = path.split("__")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        last = keys[-1]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return enc


@pytest.mark.parametrize("changes, path", [
    ({"combatants__0__position": [12, 0]}, "combatants[0] (id 'A').position"),
    ({"combatants__1__position": [2, 0]}, "combatants[1] (id 'B').position"),
    ({"combatants__0__hit": 250}, "combatants[0] (id 'A').hit"),
    ({"combatants__0__life": 0}, "combatants[0] (id 'A').life"),
    ({"combatants__0__main": "katana"}, "combatants[0] (id 'A').main"),
    ({"combatants__0__off_hand": "sword"}, "combatants[0] (id 'A').off_hand"),
    ({"combatants__0__seat": 1}, "combatants[1] (id 'B').seat"),
    ({"combatants__1__id": "A"}, "combatants[1] (id 'A').id"),
    ({"combatants__1__side": "P"}, "combatants"),
    ({"combatants__0__weapons__0__category": "bow"}, "combatants[0] (id 'A').weapons[0].category"),
    ({"combatants__0__weapons__0__reach": 5}, "combatants[0] (id 'A').weapons[0].reach"),
    ({"combatants__0__armour": "mithril"}, "combatants[0] (id 'A').armour"),
    ({"combatants__0__abilities": ["no_such_spell"]}, "combatants[0] (id 'A').abilities"),
    ({"combatants__0__abilities": [{"id": "x", "kind": "spell", "level": 1, "effect": "damage",
                                    "delivery": "melee"}]}, "combatants[0] (id 'A').abilities[0]"),
    ({"combatants__0__abilities": [{"id": "x", "kind": "spell", "level": 1, "effect": "stun",
                                    "delivery": "ranged"}]}, "combatants[0] (id 'A').abilities[0]"),
    ({"combatants__0__template": "dragon"}, "combatants[0] (id 'A')"),
    ({"map__blocked": [[2, 0]]}, "combatants[0] (id 'A').position"),
    ({"map__difficult": [[20, 0]]}, "map.difficult[0]"),
    ({"map__layout": "square"}, "map.layout"),
    ({"options__fumble_min": 1}, "options.fumble_min"),
    ({"options__turn_order": "random"}, "options.turn_order"),
    ({"options__damage_level_multipliers": {"light": 2}}, "options.damage_level_multipliers"),
    ({"options__wound_boxes": {"grave": 1}}, "options.wound_boxes"),
    ({"options__wound_boxes": {"mortal": 10**9}}, "options.wound_boxes"),  # nobody could ever fall
    ({"options__round_cap": 10**9}, "options.round_cap"),  # nor the game end
    ({"options__wound_penalties": {"moderate": 5}}, "options.wound_penalties"),
    ({"options__status_duration": 0}, "options.status_duration"),
    ({"options__no_such_flag": True}, "options.no_such_flag"),
    ({"start__order": ["A", "Z"]}, "start.order[1]"),
    ({"start__current": "Z"}, "start.current"),
    ({"start__combatants": {"Z": {}}}, "start.combatants.Z"),
    ({"start__combatants": {"A": {"main": "axe"}}}, "start.combatants.A.main"),
    ({"start__ground": [{"hex": [1, 1], "weapon": "A/axe"}]}, "start.ground[0].weapon"),
    ({"start__phase": "whenever"}, "start.phase"),
])
def test_bad_encounter_fields_name_the_path(changes, path) -> None:
    """Every kiai-specific field error is an EncounterError naming the exact field path."""
    err = _err(_mod(**changes))
    assert err.path == path, str(err)


def test_library_templates_and_ids() -> None:
    """Stat-block templates and library ids fill in fields; the encounter's own fields win."""
    enc = fixture()
    enc["combatants"][0] = {"id": "A", "side": "P", "template": "goblin", "position": [2, 0], "hit": 55,
                            "weapons": ["spear", {"id": "dagger", "level": 2}]}
    e = load_encounter(enc)
    a = e.combatants[0]
    assert a.hit == 55 and a.dodge == 40 and a.armour.level == 1
    assert [(w.id, w.level, w.hands) for w in a.weapons] == [("spear", 2, 2), ("dagger", 2, 1)]


def test_builtin_encounters_start_and_roster() -> None:
    """The three built-in encounters load; brawl is at least 6 against 6 on a bigger map."""
    sk = load_encounter("kiai/skirmish")
    assert len(sk.combatants) == 7 and (sk.map.width, sk.map.height) == (12, 8)
    br = load_encounter("kiai/brawl")
    sides = [c.side for c in br.combatants]
    assert sides.count("guards") >= 6 and sides.count("raiders") >= 6 and br.map.width * br.map.height > 96
    du = load_encounter("kiai/duel")
    assert len(du.combatants) == 2
    c = Combat("kiai/skirmish", seed=1)
    assert c.round == 1 and c.decision is not None
    assert [e.kind for e in c.log[:2]] == ["round_started", "initiative_rolled"]


def test_start_section_sets_everything() -> None:
    """Mid-combat start: round, order, current actor, positions, wounds, kiai, gear, conditions, ground."""
    enc = fixture(extra=[fighter("C", "N", 2, [6, 0])], start={
        "round": 4, "order": ["C", "B", "A"], "current": "B",
        "combatants": {"A": {"position": [1, 1], "wounds": {"light": 1}, "kiai": 3, "main": None},
                       "B": {"conditions": [{"type": "deceived", "n": 2}], "parry_used": True},
                       "C": {"dead": True}},
        "ground": [{"hex": [1, 2], "weapon": "A/sword"}]})
    c = Combat(copy.deepcopy(enc), seed=0)
    a = c.state.fighters["A"]
    assert c.round == 4 and c.state.order == ["C", "B", "A"] and c.decision.actor == "B"
    assert a.hex == (1, 1) and a.wounds == [1, 0, 0, 0] and a.kiai == 3 and a.main == "" and a.carried == []
    assert c.state.fighters["C"].out == "dead" and c.state.ground == [((1, 2), "A/sword")]
    assert [x.type for x in c.state.fighters["B"].conds] == ["deceived"]


def test_snapshot_mid_procedure_round_trips() -> None:
    """Pending procedures (a counter strike at R2, an area spell at R3) survive snapshot/restore and pickle."""
    import json
    import pickle

    from tests.rules.kiai.helpers import atk, play
    from trpg_arena.rules import Action

    c = play(fixture(), "d100=30 d100=25 d10=3 d10=4 d10=6 d10=5 d100=90 d10=10", atk("B"), Action("counter"))
    assert c.decision.step == "R2"
    r = Combat.restore(json.loads(json.dumps(c.snapshot())))
    assert pickle.loads(pickle.dumps(c.state)) == c.state
    for x in (c, r):
        x.act(Action("dodge"))
    assert [e.json_line() for e in c.log] == [e.json_line() for e in r.log]
    enc = fixture(a={"position": [0, 0], "knows": ["fire_burst"]}, b={"position": [5, 0]},
                  extra=[fighter("C", "N", 2, [6, 0])])
    c = play(enc, "d100=20 d100=50 d100=10 d10=3 d10=4 d10=2", Action("use_ability", None, (5, 0), "fire_burst"),
             Action("dodge"))
    assert c.decision.step == "R3" and c.decision.actor == "C"
    r = Combat.restore(json.loads(json.dumps(c.snapshot())))
    for x in (c, r):
        x.act(Action("dodge"))
    assert [e.json_line() for e in c.log] == [e.json_line() for e in r.log] and c.dice.remaining == 0


@pytest.mark.parametrize(("where", "value"), [("template", ["orc"]), ("armour", ["chain_shirt"]),
                                              ("weapons", [{"id": ["katana"]}])])
def test_a_library_name_that_is_a_list_is_an_unknown_name_not_a_crash(where: str, value: object) -> None:
    # a list where a library entry's name goes (a YAML slip: `template: [orc]`) could not be looked up at all and
    # raised a TypeError; it is refused as any unknown name, at its field
    enc = load_encounter("kiai/duel").model_dump(mode="json")
    enc["combatants"][1][where] = value
    e = _err(enc)
    assert "combatants[1]" in str(e), str(e)
