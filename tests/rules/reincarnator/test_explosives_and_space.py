"""Explosives (T63, T64) and the battlefield's sight, occupancy and corners (T65)."""

from __future__ import annotations

import pytest

from tests.rules.reincarnator.helpers import PISTOL, F, H, act, at_turn, combat, encounter, has, kinds, rolls

CLUSTER = {"id": "cluster", "kind": "cluster", "size": 1,
           "components": [{"blast": 5, "radius_m": 2}, {"blast": 5, "radius_m": 2}, {"blast": 5, "radius_m": 2}]}


def roster(cluster=CLUSTER):
    return [H("A", "P", (3, 5), items=[cluster]), H("B", "P", (10, 6), start={"in_cover": [11, 6]}),
            H("D", "N", (9, 5)), H("E", "N", (11, 11))]


@pytest.mark.rule("REI-8.1")
def test_REI_T63_cluster_explosive() -> None:
    """REI-T63: REI-8.1, REI-8.3 - a thrown cluster detonates at a cell; overlap per covered cell."""
    crate = [{"at": [11, 6], "object": {"name": "crate", "cover": 3}}]
    c = combat(encounter(*roster(), cells=crate, start=at_turn(["A", "B", "D", "E"])), 8, *[1] * 6, 8, 1,
               8, 8, 1, 1, 1)
    act(c, "throw", dest=(8, 5), option=("cluster", "dex"))
    ex = kinds(c, "explosion")[0].data
    assert rolls(c)[0].data["pool"] == 7 and ex["affected"] == ["B", "D"] and ex["ratings"] == {"B": 6, "D": 6}
    assert [len(r.data["dice"][0]) for r in rolls(c)[1:]] == [2, 5]
    assert (F(c, "B").lethal, F(c, "D").lethal) == (1, 2) and c.dice.remaining == 0
    c = combat(encounter(*roster(), cells=crate, start=at_turn(["A", "B", "D", "E"])), *[1] * 7)
    act(c, "throw", dest=(8, 5), option=("cluster", "dex"))
    assert not kinds(c, "explosion") and c.state.items["cluster"].loc == "gone"
    mixed = {**CLUSTER, "components": [{"blast": 6, "radius_m": 3}, {"blast": 6, "radius_m": 2}]}
    people = [H("A", "P", (3, 5), items=[mixed]), H("D", "N", (9, 5)), H("E", "N", (11, 5))]
    c = combat(encounter(*people, start=at_turn(["A", "D", "E"])), 8, *[1] * 6, *[1] * 12)
    act(c, "throw", dest=(8, 5), option=("cluster", "dex"))
    assert kinds(c, "explosion")[0].data["ratings"] == {"D": 8, "E": 6}


def test_REI_T64_one_attack_several_shells() -> None:
    """REI-T64: REI-8.4, REI-8.1 - a burst's shells never combine; min(burst, loaded) shells are spent."""
    gl = {"id": "gl", "kind": "launcher", "damage": 0, "specialty": "launchers", "size": 4, "hands": 2,
          "range_m": 100, "burst": 3,
          "ammo": {"capacity": 6, "loaded": 6, "reload_kind": "magazine", "shell": {"blast": 6, "radius_m": 2}}}
    c = combat(encounter(H("A", "P", (5, 5), items=[gl]), H("D", "N", (8, 5)), start=at_turn(["A", "D"])),
               8, *[1] * 6, *[1] * 5)
    act(c, "ranged_attack", dest=(8, 5), option="gl")
    assert rolls(c)[0].data["pool"] == 7 and kinds(c, "explosion")[0].data["ratings"] == {"D": 6}
    assert len(rolls(c)[1].data["dice"][0]) == 5 and c.state.items["gl"].loaded == 3 and c.dice.remaining == 0


def test_REI_T65_line_of_sight_occupancy_corners() -> None:
    """REI-T65: section 5 - walls block sight; enemies block paths, allies only end cells; no corner cutting."""
    c = combat(encounter(H("A", "P", (5, 5), items=[PISTOL]), H("D", "N", (9, 5)),
                         cells=[{"at": [7, 5], "terrain": "wall"}], start=at_turn(["A", "D"])))
    assert not has(c, "ranged_attack", "D", option="pistol") and not has(c, "aim", "D")
    corridor = [{"area": [[0, 4], [11, 4]], "terrain": "wall"}, {"area": [[0, 6], [11, 6]], "terrain": "wall"}]
    c = combat(encounter(H("A", "P", (5, 5)), H("D", "N", (9, 5)), H("E", "N", (6, 5)), cells=corridor,
                         start=at_turn(["A", "D", "E"])))
    assert not has(c, "move", dest=(7, 5))
    c = combat(encounter(H("A", "P", (5, 5)), H("D", "N", (9, 5)), H("B", "P", (6, 5)), cells=corridor,
                         start=at_turn(["A", "D", "B"])))
    assert has(c, "move", dest=(7, 5)) and not has(c, "move", dest=(6, 5))
    c = combat(encounter(H("A", "P", (5, 5), speed_m=1), H("D", "N", (9, 5)),
                         cells=[{"at": [6, 5], "terrain": "wall"}, {"at": [5, 6], "terrain": "wall"}],
                         start=at_turn(["A", "D"])))
    assert not has(c, "move", dest=(6, 6)) and has(c, "move", dest=(4, 4))


def test_own_blast_ends_the_throwers_turn() -> None:
    """REI-8.1: the thrower is affected too; incapacitated on its own turn, its turn ends (REI-2.18)."""
    grenade = {"id": "grenade", "kind": "thrown", "size": 0, "explosive": {"blast": 10, "radius_m": 2}}
    enc = encounter(H("A", "P", (5, 5), items=[grenade], start={"lethal": 7}), H("D", "N", (6, 5)),
                    H("B", "P", (0, 0)), start=at_turn(["A", "D", "B"]))
    c = combat(enc, 8, *[1] * 4, 8, 8, *[1] * 7, *[1] * 9)
    act(c, "throw", dest=(6, 5), option=("grenade", "dex"))
    assert F(c, "A").status in ("dying", "dead") and c.decision.actor == "D"
