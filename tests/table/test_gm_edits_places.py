"""GM edits through the session's public API: places as typed, the examples the terminal gives, reincarnator's adds.

A place is written ``x,y`` in ASCII digits (a minus sign allowed), over HTTP, MCP and at the terminal alike; a
moonlit copy is suggested in a zone its side may start in; a reincarnator newcomer added in the surprise round
takes its turns from round 1, one given a cell stands on it (a vehicle's occupant's copy too), one still to join
can always be kept out, and a place field of another system is named as the wrong field.
"""

from __future__ import annotations

import pytest

from trpg_arena.experiments.table.edit import help_line, parse
from trpg_arena.rules.core.edits import EditError
from trpg_arena.table.edits import GmEdit, editable, place_key
from trpg_arena.table.session import Session

LOOSE = ("０,4", "1_0,4", " 1,4", "1, 4", "+1,4", "1,4 ", "١,4")  # int() reads every one of them


@pytest.mark.parametrize(("encounter", "cid", "field", "good"), [
    ("reincarnator/skirmish", "chen", "cell", "1,4"),
    ("kiai/skirmish", "goblin_b", "hex", "11,1"),
    ("investigator/skirmish", "knifeman", "pos", "11,0"),
])
def test_a_place_takes_ascii_digits_only(encounter: str, cid: str, field: str, good: str) -> None:
    s = Session(encounter, seed=1, pc="scripted", npc="scripted")
    before = s.combat.snapshot()
    for typed in (*LOOSE, "1_1,1", "1_1,0"):
        with pytest.raises(EditError, match="is not a place") as e:
            s.edit(GmEdit(cid, {field: typed}))
        assert e.value.where == f"changes.{field}"
    for sent in ([True, 4], [1.0, 4]):  # JSON's true and 1.0 are no coordinates either
        with pytest.raises(EditError, match="not a place"):
            s.edit(GmEdit(cid, {field: sent}))
    assert s.combat.snapshot() == before and not s.records
    s.edit(GmEdit(cid, {field: good}))
    assert next(v.node for v in s.combat.combatants if v.id == cid) == tuple(int(n) for n in good.split(","))


def test_a_moonlit_copy_is_suggested_in_a_zone_its_side_may_start_in() -> None:
    """The ghoul stood in A_front: 'add ghoul_2 like ghoul zone A_front' was suggested, and refused by the rules."""
    s = Session("moonlit/duel", seed=4, pc="scripted", npc="scripted")
    s.edit(GmEdit("ghoul", {"zone": "A_front"}))
    rows = editable(s.combat)
    text = help_line(rows, place_key(s.combat))
    example = text.split("adds one (e.g. '")[1].split("'")[0]
    assert example == "add ghoul_2 like ghoul zone B_front", text
    assert s.edit(parse(example, rows, place_key(s.combat)))[0].text.startswith("GM: adds ghoul_2 (B)")


def _occupant_copy(rounds: int, typed: str) -> tuple[Session, str]:
    s = Session("reincarnator/skirmish", seed=3, pc="scripted", npc="scripted")
    while s.combat.round < rounds:
        s.run(max_decisions=1)
    cid = typed.split()[1]
    s.edit(parse(typed, editable(s.combat), place_key(s.combat)))
    return s, cid


@pytest.mark.parametrize("rounds", [0, 1])
def test_a_reincarnator_newcomer_still_to_join_or_in_a_vehicle_can_be_kept_out(rounds: int) -> None:
    """'sk6 remove' was refused: 'sk6 is in buggy: take it out of the vehicle first'."""
    s, cid = _occupant_copy(rounds, "add sk6 like gearhead")
    row = next(r for r in editable(s.combat) if r["id"] == cid)
    assert row["can_remove"] and row["status"] == ("active" if rounds == 0 else "reserve")
    assert s.edit(GmEdit(cid, remove=True))[0].text == "GM: sk6 is taken out (left the location)"
    s.run(max_decisions=400)
    assert not any(r["actor"] == cid for r in s.records)  # it never joined the buggy
    s.undo(s.to_last_person())
    assert s.edit(GmEdit("gearhead", remove=True))  # the driver too: it gets out as it leaves
    assert s.combat.state.vehicles["buggy"].driver is None


@pytest.mark.parametrize("rounds", [0, 1])
def test_a_reincarnator_copy_of_an_occupant_given_a_cell_stands_there(rounds: int) -> None:
    """It was put in the buggy, the cell ignored."""
    s, cid = _occupant_copy(rounds, "add sk5 like gearhead cell 0,3")
    fighter = s.combat.state.fighters[cid]
    assert (fighter.cell, fighter.in_vehicle) == ((0, 3), None)
    s.run(max_decisions=400)
    assert any(r["actor"] == cid for r in s.records), "the copy never took a turn"
    assert s.combat.state.fighters["gearhead"].in_vehicle == "buggy"  # its original still drives


def test_a_reincarnator_newcomer_added_in_the_surprise_round_takes_turns_from_round_1() -> None:
    """It was a reinforcement of round 2, the log saying 'it takes its turns from the next round'."""
    s = Session("reincarnator/skirmish", seed=4, pc="scripted", npc="scripted")
    assert s.combat.round == 0 and s.combat.decision.actor in ("skulker", "rifleman", "brute", "gearhead")
    events = s.edit(GmEdit("brute_2", add={"id": "brute_2", "like": "brute", "cell": [9, 9]}))
    assert events[0].text.endswith("it takes its turns from the next round")
    s.run(max_decisions=400)
    assert next(r["round"] for r in s.records if r["actor"] == "brute_2") == 1
    later = Session("reincarnator/skirmish", seed=4, pc="scripted", npc="scripted")
    while later.combat.round < 1:
        later.run(max_decisions=1)
    later.edit(GmEdit("brute_2", add={"id": "brute_2", "like": "brute", "cell": [9, 9]}))
    later.run(max_decisions=400)
    assert next(r["round"] for r in later.records if r["actor"] == "brute_2") == 2


@pytest.mark.parametrize("word", ["hex", "pos", "zone"])
def test_another_systems_place_field_is_named_in_reincarnator(word: str) -> None:
    """'add sk7 like brute hex 0,5' answered 'cell 12,6 is already taken by brute'."""
    s = Session("reincarnator/skirmish", seed=1, pc="scripted", npc="scripted")
    with pytest.raises(EditError) as e:
        s.edit(parse(f"add sk7 like brute {word} 0,5", editable(s.combat), place_key(s.combat)))
    assert e.value.where == f"add.{word}" and f"no field '{word}'" in str(e.value) and "'cell" in str(e.value)
    assert not s.records


def test_a_reincarnator_body_keeps_its_cell_from_a_newcomer() -> None:
    """A newcomer could be added on a fallen combatant's cell (only those standing were counted): two bodies a cell."""
    s = Session("reincarnator/skirmish", seed=2, pc="scripted", npc="scripted")
    body = None
    while body is None and not s.combat.over:
        s.run(max_decisions=1)
        body = next((v for v in s.combat.combatants if not v.able and v.node is not None), None)
    assert body is not None, "no combatant fell on the map in this game"
    cell = list(body.node)
    with pytest.raises(EditError, match="already taken"):
        s.edit(GmEdit("brute_9", add={"id": "brute_9", "like": "brute", "cell": cell}))
