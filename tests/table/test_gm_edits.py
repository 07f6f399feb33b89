"""GM edits in the session layer, every rule system: checked by the rules, stored, undone, resumed, counted apart.

An edit is a decision of the GM's: it never touches the dice, so a combat edited and then undone plays on
exactly as one never edited.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from rich.console import Console

from trpg_arena.experiments.table.edit import field_line, help_line, parse
from trpg_arena.experiments.table.report import stats_view
from trpg_arena.rules.core.edits import EditError
from trpg_arena.table.edits import GmEdit, editable, place_key
from trpg_arena.table.session import Session, SessionError
from trpg_arena.table.stats import session_stats
from trpg_arena.table.store import SessionStore
from trpg_arena.table.transcript import transcript

SYSTEMS = ["moonlit/skirmish", "kiai/skirmish", "investigator/skirmish", "reincarnator/skirmish"]


def _target(s: Session) -> tuple[str, dict]:
    """A standing combatant other than the decider, and its first whole-number field."""
    deciding = s.combat.decision.actor
    row = next(r for r in editable(s.combat) if r["id"] != deciding and r["can_remove"] and r["fields"])
    return row["id"], next(f for f in row["fields"] if f["kind"] == "int")


def _state(s: Session) -> dict:
    return s.combat.snapshot()["state"]


@pytest.mark.parametrize("encounter", SYSTEMS)
def test_an_edit_is_stored_undone_resumed_and_leaves_the_dice_alone(tmp_path: Path, encounter: str) -> None:
    store = SessionStore(tmp_path / "s.db")
    s = Session(encounter, seed=5, pc="scripted", npc="scripted", store=store)
    s.run(max_decisions=3)
    cid, field = _target(s)
    dice = s.combat.dice.state()
    before = _state(s)
    new = field["high"] - 1 if field["value"] != field["high"] - 1 else field["high"]
    events = s.edit(GmEdit(cid, {field["name"]: new}))
    assert events[0].kind == "gm_edit" and events[0].text.startswith(f"GM: {cid} ")
    assert f"{field['value']} -> {new}" in events[0].text
    assert s.combat.dice.state() == dice  # nothing rolled, nothing reseeded
    rec = s.records[-1]
    assert rec["source"] == "gm" and rec["actor"] == "GM" and rec["edit"]["changes"] == {field["name"]: new}
    edited = _state(s)
    assert Session.load(store, s.id).combat.snapshot()["state"] == edited  # resumed exactly
    s.undo(s.to_last_person())  # the GM's edit is what undo takes back
    assert _state(s) == before and len(s.records) == 3
    assert Session.load(store, s.id).combat.snapshot()["state"] == before


@pytest.mark.parametrize("encounter", SYSTEMS)
def test_values_the_rules_do_not_allow_are_refused_naming_the_field(encounter: str) -> None:
    s = Session(encounter, seed=2, pc="scripted", npc="scripted")
    cid, field = _target(s)
    before, revision = _state(s), s.revision
    for changes, where in (({field["name"]: field["high"] + 1}, f"changes.{field['name']}"),
                           ({field["name"]: -1}, f"changes.{field['name']}"),
                           ({field["name"]: "many"}, f"changes.{field['name']}"),
                           ({"no_such_field": 1}, "changes.no_such_field")):
        with pytest.raises(EditError) as e:
            s.edit(GmEdit(cid, changes))
        assert e.value.where == where and "\n" not in str(e.value)
    with pytest.raises(EditError, match="no combatant 'nobody'"):
        s.edit(GmEdit("nobody", {"hp": 1}))
    deciding = s.combat.decision.actor
    with pytest.raises(EditError, match="deciding now"):
        s.edit(GmEdit(deciding, remove=True))
    assert _state(s) == before and s.revision == revision and not s.records  # nothing half-applied


@pytest.mark.parametrize("encounter", SYSTEMS)
def test_taking_a_combatant_out_counts_as_a_fall_to_the_gm_not_as_damage(encounter: str) -> None:
    s = Session(encounter, seed=4, pc="scripted", npc="scripted")
    cid, _ = _target(s)
    s.edit(GmEdit(cid, remove=True))
    view = next(v for v in s.combat.combatants if v.id == cid)
    assert not view.able
    stats = session_stats(s)
    assert stats.edits == 1 and stats.fighters[cid].edits == 1 and stats.fighters[cid].taken == 0
    assert [(f.combatant, f.by) for f in stats.falls] == [(cid, "GM")]
    assert "GM edits: 1" in transcript(s)
    console = Console(record=True, width=80)
    console.print(stats_view(stats))  # what the terminal prints at the end
    assert f"GM edits: 1 ({cid} 1)" in console.export_text()
    s.run(max_decisions=30)  # play goes on without it
    assert s.combat.over or s.combat.decision.actor != cid


def test_hp_set_by_the_gm_is_nobodys_damage_and_the_play_after_it_is_the_same_as_without(tmp_path: Path) -> None:
    s = Session("moonlit/skirmish", seed=3, pc="scripted", npc="scripted")
    plain = Session("moonlit/skirmish", seed=3, pc="scripted", npc="scripted")
    s.run(max_decisions=5)
    plain.run(max_decisions=5)
    s.edit(GmEdit("ghoul_1", {"hp": 12, "poison": 2}))
    assert s.records[-1]["text"] == "GM: ghoul_1 HP 26 -> 12, poison 0 -> 2"
    stats = session_stats(s)
    assert all(f.taken == 0 and f.dealt == 0 and f.healed == 0 for f in stats.fighters.values())
    s.undo(1)
    s.run(max_decisions=40)
    plain.run(max_decisions=40)
    assert _state(s) == _state(plain)


def test_an_edit_waits_for_dice_asked_for_and_a_headless_session_has_none() -> None:
    s = Session("moonlit/duel", seed=1, pc="human", npc="scripted", table_dice=True)
    while s.dice_asked is None:
        p = s.pending()
        s.submit(0) if p.proposal is None else s.confirm()
    other = next(v.id for v in s.combat.combatants if v.able)
    with pytest.raises(SessionError, match="dice are asked for"):
        s.edit(GmEdit(other, {"tp": 0}))


def test_an_edit_from_json_names_what_is_wrong() -> None:
    for data, where in (([], "edit"), ({"combatant": 3}, "combatant"), ({"combatant": "a", "changes": [1]}, "changes"),
                        ({"combatant": "a", "remove": "yes"}, "remove"), ({"combatant": "a", "x": 1}, "x")):
        with pytest.raises(EditError) as e:
            GmEdit.from_json(data)
        assert e.value.where == where


@pytest.mark.parametrize("encounter", ["kiai/skirmish", "investigator/skirmish", "reincarnator/skirmish"])
def test_a_move_goes_only_to_a_free_open_place(encounter: str) -> None:
    s = Session(encounter, seed=6, pc="scripted", npc="scripted")
    rows = {r["id"]: r for r in editable(s.combat)}
    cid, place = next((cid, f) for cid, r in rows.items() for f in r["fields"] if f["kind"] == "place")
    taken = next(v.node for v in s.combat.combatants if v.id != cid and v.node is not None and v.able)
    with pytest.raises(EditError, match="not free or not allowed") as e:
        s.edit(GmEdit(cid, {place["name"]: list(taken)}))
    assert e.value.where == f"changes.{place['name']}"
    with pytest.raises(EditError, match="not a place on this battlefield"):
        s.edit(GmEdit(cid, {place["name"]: [999, 999]}))
    free = next(c for c in place["choices"] if c != ",".join(map(str, place["value"])))
    s.edit(GmEdit(cid, {place["name"]: free}))
    assert ",".join(map(str, next(v.node for v in s.combat.combatants if v.id == cid))) == free
    s.run(max_decisions=20)  # the rules play on from the new place


def test_taking_out_the_last_of_a_side_ends_the_combat() -> None:
    s = Session("kiai/duel", seed=1, pc="scripted", npc="scripted")
    deciding = s.combat.decision.actor
    other = next(v for v in s.combat.combatants if v.side != s.combat.side_of(deciding))
    s.edit(GmEdit(other.id, remove=True))
    assert s.combat.over and s.combat.result == s.combat.side_of(deciding)
    with pytest.raises(EditError, match="combat is over"):
        s.edit(GmEdit(deciding, {"kiai": 0}))
    s.undo(1)
    assert not s.combat.over


def _random_edit(rng: random.Random, s: Session) -> GmEdit | None:
    rows = [r for r in editable(s.combat) if r["fields"]]
    if not rows:
        return None
    row = rng.choice(rows)
    if rng.random() < 0.1:
        return GmEdit(row["id"], remove=True)
    f = rng.choice(row["fields"])
    if f["kind"] == "int":
        value: object = rng.randint(f["low"], f["high"])
    elif f["kind"] == "bool":
        value = not f["value"]
    elif f.get("choices"):
        value = rng.choice(f["choices"])
    else:
        return None
    return GmEdit(row["id"], {f["name"]: value})


@pytest.mark.parametrize("encounter", SYSTEMS)
def test_random_edits_in_random_states_never_break_play_and_replay_exactly(encounter: str) -> None:
    for game in range(3):
        rng = random.Random(game)
        s = Session(encounter, seed=game, pc="random", npc="scripted")
        edits = 0
        for _ in range(300):
            if s.combat.over:
                break
            edit = _random_edit(rng, s) if rng.random() < 0.6 else None
            if edit is not None:
                before = _state(s)
                try:
                    s.edit(edit)
                    edits += 1
                except EditError:
                    assert _state(s) == before  # refused: nothing changed
            s.run(max_decisions=1)
        assert edits > 5
        *_, (_, _, replayed) = s.replay()
        assert replayed.snapshot()["state"] == _state(s)


ADDS = {"moonlit/skirmish": {"id": "ghoul_3", "like": "ghoul_1", "zone": "B_rear"},
        "kiai/skirmish": {"id": "goblin_c", "like": "goblin_a", "position": [5, 5]},
        "investigator/skirmish": {"id": "ghoul_2", "like": "ghoul", "position": [8, 2]},
        "reincarnator/skirmish": {"id": "brute_2", "like": "brute", "position": [9, 9]}}


@pytest.mark.parametrize("encounter", SYSTEMS)
def test_a_combatant_added_mid_fight_takes_turns_later_is_stored_resumed_and_undone(
        tmp_path: Path, encounter: str) -> None:
    store = SessionStore(tmp_path / "s.db")
    s = Session(encounter, seed=1, pc="scripted", npc="scripted", store=store)
    s.run(max_decisions=4)
    spec = ADDS[encounter]
    before, dice = _state(s), s.combat.dice.state()
    events = s.edit(GmEdit(spec["id"], add=spec))
    assert events[0].text.startswith(f"GM: adds {spec['id']} (") and s.combat.dice.state() == dice
    assert spec["id"] in {v.id for v in s.combat.combatants}
    assert Session.load(store, s.id).combat.snapshot() == s.combat.snapshot()  # resumed exactly, encounter too
    s.undo(1)
    assert _state(s) == before and spec["id"] not in {v.id for v in s.combat.combatants}
    s.edit(GmEdit(spec["id"], add=spec))
    s.run(max_decisions=300)
    assert any(r["actor"] == spec["id"] for r in s.records)  # it took turns of its own
    assert spec["id"] in session_stats(s).fighters
    *_, (_, _, replayed) = s.replay()
    assert replayed.snapshot()["state"] == _state(s)


def test_an_added_combatant_is_checked_as_an_encounters() -> None:
    s = Session("kiai/skirmish", seed=1, pc="scripted", npc="scripted")
    before = s.combat.snapshot()
    for spec, where, words in (({"id": "kaede", "like": "goblin_a"}, "add.id",
                                "id 'kaede' is used twice (also a combatant of this combat)"),
                               ({"id": "x", "like": "nobody"}, "add.like", "no combatant 'nobody'"),
                               ({"id": "x", "like": "goblin_a", "position": [99, 99]}, "add", "position"),
                               ({"id": "x", "like": "goblin_a", "kiai": -3}, "add", "kiai"),
                               ({"id": "x", "like": "goblin_a", "position": [2, 5]}, "add", "taken")):
        with pytest.raises(EditError) as e:
            s.edit(GmEdit("x", add=spec))
        assert e.value.where == where and words in str(e.value), str(e.value)
    assert s.combat.snapshot() == before and not s.records


def test_a_kiai_condition_is_cleared_by_hand_and_none_is_added() -> None:
    s = Session("kiai/skirmish", seed=1, pc="scripted", npc="scripted")
    for _ in range(200):  # play until someone stands with a condition on them, not deciding
        s.run(max_decisions=1)
        deciding = s.combat.decision.actor if s.combat.decision else None
        found = [(r["id"], f["name"]) for r in editable(s.combat) if r["id"] != deciding
                 for f in r["fields"] if f["name"].startswith("cond_")]
        if found or s.combat.over:
            break
    assert found, "no condition met in 200 decisions"
    cid, name = found[0]
    with pytest.raises(EditError, match="only be cleared"):
        s.edit(GmEdit(cid, {name: True, "kiai": 0}))  # nothing applied: kiai untouched too
    s.edit(GmEdit(cid, {name: False}))
    assert name.removeprefix("cond_") not in next(v for v in s.combat.combatants if v.id == cid).conditions


# --- a copy with gear of its own, the place under the listing's name, the terminal's words --------------------------
@pytest.mark.parametrize("like", ["skulker", "rifleman", "chen"])
def test_a_reincarnator_copy_of_one_with_its_own_gear_joins_and_uses_it(tmp_path: Path, like: str) -> None:
    """Its items were refused: 'knife' is no item of the encounter (the original's id became 'skulker.knife')."""
    store = SessionStore(tmp_path / "s.db")
    s = Session("reincarnator/skirmish", seed=7, pc="scripted", npc="scripted", store=store)
    s.run(max_decisions=2)
    cid = f"{like}_2"
    s.edit(GmEdit(cid, add={"id": cid, "like": like, "cell": [5, 5]}))  # the listing's name for the place
    own = {uid for uid, owner in s.combat.tables.item_owner.items() if owner == like}
    assert own and all(uid.startswith(f"{like}.") and uid in _state(s)["items"] for uid in own), own
    assert Session.load(store, s.id).combat.snapshot() == s.combat.snapshot()
    s.run(max_decisions=300)
    acted = [r["text"] for r in s.records if r["actor"] == cid]
    assert acted, "the copy never took a turn"
    if like == "rifleman":
        assert any("ranged attack" in text and "with bolt_rifle" in text for text in acted), acted
    *_, (_, _, replayed) = s.replay()
    assert replayed.snapshot()["state"] == _state(s)


@pytest.mark.parametrize(("encounter", "like", "place"), [("kiai/skirmish", "goblin_a", "hex"),
                                                          ("reincarnator/skirmish", "brute", "cell"),
                                                          ("investigator/skirmish", "ghoul", "pos")])
def test_a_new_combatants_place_goes_by_the_name_the_edit_fields_give_it(encounter: str, like: str,
                                                                        place: str) -> None:
    s = Session(encounter, seed=1, pc="scripted", npc="scripted")
    row = next(r for r in editable(s.combat) if r["id"] == like)
    field = next(f for f in row["fields"] if f["name"] == place and f["kind"] == "place")
    cell = [int(n) for n in next(c for c in field["choices"] if c != ",".join(map(str, field["value"]))).split(",")]
    with pytest.raises(EditError) as twice:
        s.edit(GmEdit("x", add={"id": "x", "like": like, place: cell, "position": cell}))
    assert twice.value.where == f"add.{place}" and "given twice" in str(twice.value)
    s.edit(GmEdit("x", add={"id": "x", "like": like, place: cell}))  # was 'Extra inputs are not permitted'
    assert "x" in {v.id for v in s.combat.combatants}


@pytest.mark.parametrize("encounter", ["kiai/skirmish", "reincarnator/skirmish"])
def test_a_copy_left_on_its_originals_cell_is_refused_in_every_grid_system(encounter: str) -> None:
    """Reincarnator let a reinforcement join on a cell someone stood on; kiai refused the hex taken twice."""
    s = Session(encounter, seed=1, pc="scripted", npc="scripted")
    like = {"kiai/skirmish": "goblin_a", "reincarnator/skirmish": "brute"}[encounter]
    with pytest.raises(EditError, match=f"already taken by '?{like}'?"):
        s.edit(GmEdit("x", add={"id": "x", "like": like}))
    assert not s.records


def test_taking_out_is_worded_as_the_combatant_being_taken_out() -> None:
    s = Session("kiai/skirmish", seed=1, pc="scripted", npc="scripted")
    events = s.edit(GmEdit("gorou", remove=True))
    assert events[0].text == "GM: gorou is taken out (fled)"  # was 'GM: gorou takes out (fled)'
    s = Session("reincarnator/skirmish", seed=1, pc="scripted", npc="scripted")
    assert s.edit(GmEdit("brute", remove=True))[0].text == "GM: brute is taken out (left the location)"


@pytest.mark.parametrize("encounter", SYSTEMS)
def test_the_terminals_edit_examples_are_this_combats_and_each_is_accepted(encounter: str) -> None:
    first = Session(encounter, seed=3, pc="scripted", npc="scripted")
    rows, place = editable(first.combat), place_key(first.combat)
    text = help_line(rows, place)
    examples = [e for group in re.findall(r"\(e\.g\. ([^)]*)\)", text) for e in re.findall(r"'([^']+)'", group)]
    ids = {r["id"] for r in rows}
    assert len(examples) >= 4 and all(e.split()[e.startswith("add") * 3] in ids for e in examples), examples
    for example in examples:  # each applies to a fresh copy of the combat
        s = Session(encounter, seed=3, pc="scripted", npc="scripted")
        assert s.edit(parse(example, rows, place))[0].text.startswith("GM: "), example


def test_the_terminal_refuses_a_field_given_twice_and_numbers_python_reads_loosely() -> None:
    s = Session("kiai/skirmish", seed=1, pc="scripted", npc="scripted")
    rows = editable(s.combat)
    with pytest.raises(EditError, match="kiai is given twice") as e:
        parse("kaede kiai 3 kiai 4", rows)  # the last one was applied silently
    assert e.value.where == "changes.kiai"
    with pytest.raises(EditError, match="given twice"):
        parse("add x like goblin_a hex 5,5 hex 6,5", rows)
    with pytest.raises(SessionError, match="e.g. 'kaede wounds_light"):  # was 'kaede hp 12': kiai has no hp
        parse("kaede kiai", rows)
    for typed in ("1_0", "１０", "+3", "٣"):  # int() reads them all; an edit takes ASCII digits and a minus sign
        edit = parse(f"kaede kiai {typed}", rows)
        assert edit.changes == {"kiai": typed}, typed
        with pytest.raises(EditError, match="must be a whole number"):
            s.edit(edit)
    assert parse("kaede kiai -1", rows).changes == {"kiai": -1}
    assert parse("add x like goblin_a hex 5,５", rows).add == {"id": "x", "like": "goblin_a", "hex": "5,５"}


def test_the_terminal_says_what_a_switch_takes_and_who_is_yet_to_join() -> None:
    s = Session("moonlit/skirmish", seed=3, pc="scripted", npc="scripted")
    rows = editable(s.combat)
    with pytest.raises(EditError, match="bind takes on or off, got 'maybe'"):  # was 'must be true or false'
        parse("count bind maybe", rows)
    assert parse("count bind on", rows).changes == {"bind": True}
    summon = next(r for r in rows if r["id"] == "puppeteer.puppet")
    assert field_line(summon) == ("puppeteer.puppet (B, absent): nothing to edit: not in the fight yet "
                                  "('puppeteer.puppet remove' keeps it out)")
    s.edit(GmEdit("puppeteer.puppet", remove=True))
    gone = next(r for r in editable(s.combat) if r["id"] == "puppeteer.puppet")
    assert field_line(gone).endswith("nothing to edit (out of the fight)")
