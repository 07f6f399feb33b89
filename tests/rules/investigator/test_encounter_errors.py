"""Bad investigator encounters fail with `EncounterError` naming the field path (spec 4, 5, start section)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.investigator.helpers import encounter, std
from trpg_arena.rules import Combat, EncounterError, load_encounter


def _enc(**changes: Any) -> dict[str, Any]:
    enc = encounter(std("A", "A", (0, 0), dex=60, weapons=["knife"], wielded="knife"), std("B", "B", (5, 5)))
    for path, value in changes.items():
        node: Any = enc
        keys = path.split("__")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        last = keys[-1]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return enc


@pytest.mark.parametrize("changes,path", [
    ({"combatants__1__weapons": ["laser"]}, "combatants[1] (id 'B').weapons[0]"),
    ({"combatants__0__wielded": "club"}, "combatants[0] (id 'A').wielded"),
    ({"combatants__1__position": [12, 3]}, "combatants[1] (id 'B').position"),
    ({"combatants__1__position": [0, 0]}, "combatants[1] (id 'B').position"),
    ({"combatants__1__spells": ["Nope"]}, "combatants[1] (id 'B').spells[0]"),
    ({"combatants__1__dex": 0}, "combatants[1] (id 'B').dex"),
    ({"combatants__1__skills": {"Dodge": 300}}, "combatants[1] (id 'B').skills"),
    ({"combatants__0__kind": "investigator", "combatants__0__standard_actions": 2},
     "combatants[0] (id 'A').standard_actions"),
    ({"options": {"priority_mode": "fastest"}}, "options.priority_mode"),
    ({"options": {"round_cap": 0}}, "options.round_cap"),
    ({"options": {"no_such_flag": True}}, "options.no_such_flag"),
    ({"weapons__knife__damage": "1D"}, "weapons.knife.damage"),
    ({"spells__Bolt__target_rule": "anyone"}, "spells.Bolt.target_rule"),
    ({"map": {"width": 12, "height": 12, "terrain": {"wall": [[20, 1]]}}}, "map.terrain.wall[0]"),
    ({"start": {"combatants": {"Q": {"hp": 3}}}}, "start.combatants.Q"),
    ({"start": {"at": "Q"}}, "start.at"),
    ({"start": {"order": ["A"]}}, "start.order"),
    ({"start": {"combatants": {"A": {"loaded": {"revolver": 2}}}}}, "start.combatants.A"),
    ({"start": {"phase": "lunch"}}, "start.phase"),
])
def test_bad_encounter_fields_name_their_path(changes: dict[str, Any], path: str) -> None:
    """Each problem raises EncounterError whose `path` is the offending field; nothing starts."""
    with pytest.raises(EncounterError) as err:
        Combat(_enc(**changes), seed=1)
    assert err.value.path == path, str(err.value)


def test_an_investigator_needs_luck() -> None:
    enc = _enc(combatants__0__kind="investigator")
    del enc["combatants"][0]["luck"]
    with pytest.raises(EncounterError) as err:
        load_encounter(enc)
    assert err.value.path == "combatants[0] (id 'A').luck"


def test_good_encounter_round_trips_with_its_start_section() -> None:
    enc = _enc(start={"round": 3, "phase": "shoot", "combatants": {"A": {"hp": 4, "conditions": ["prone"]}}})
    e = load_encounter(enc)
    again = load_encounter(e.model_dump(mode="json"))
    assert again.model_dump(mode="json") == e.model_dump(mode="json")
    assert e.model_dump(mode="json")["combatants"][0]["str"] == 50
