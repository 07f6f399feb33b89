"""GM edits at the terminal table (``e``), every rule system, in a pseudo-terminal as a GM types them.

A value the rules refuse is one line and the prompt asks again; the edit is narrated as the GM's line,
stored (a resumed table has it) and taken back by ``u``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.experiments.test_autopilot import Gm, only_session

# per system: a combatant, a field, a value the rules refuse, and one they allow
CASES = [("moonlit/skirmish", "ghoul_1", "hp", "99", "12"),
         ("kiai/skirmish", "goblin_a", "wounds_light", "5", "1"),
         ("investigator/skirmish", "knifeman", "hp", "999", "1"),
         ("reincarnator/skirmish", "brute", "lethal", "99", "2")]


@pytest.mark.parametrize(("encounter", "cid", "field", "bad", "good"), CASES)
def test_the_gm_edits_at_the_table_is_refused_in_one_line_and_undo_and_resume_keep_it(
        tmp_path: Path, encounter: str, cid: str, field: str, bad: str, good: str) -> None:
    db = tmp_path / "s.db"
    gm = Gm(encounter, "--seed", "1", db=db, out=tmp_path)
    try:
        assert gm.wait() in ("confirm", "menu")
        decisions = len(only_session(db).records)
        gm.send("e")
        gm.child.expect("edit> ")
        assert f"{cid} (" in gm.child.before and f"{field} " in gm.child.before  # the fields are listed
        gm.send(f"{cid} {field} {bad}")
        gm.child.expect("edit> ")
        refusal = [line for line in gm.child.before.splitlines() if "refused" in line]
        assert len(refusal) == 1 and f"refused: changes.{field}:" in refusal[0], gm.child.before
        gm.send(f"{cid} {field} {good}")
        assert gm.wait() in ("confirm", "menu")
        assert f"GM: {cid} " in gm.screen and f"-> {good}" in gm.screen
        gm.send("q")
        assert gm.wait() == "eof"
    finally:
        gm.child.terminate(force=True)
    session = only_session(db)
    assert len(session.records) == decisions + 1
    assert session.records[-1]["source"] == "gm" and session.records[-1]["edit"]["changes"] == {field: int(good)}

    again = Gm("--resume", session.id, db=db, out=tmp_path)  # the edit is there, and u takes it back
    try:
        assert again.wait() in ("confirm", "menu")
        again.send("u")
        assert again.wait() in ("confirm", "menu") and "undone 1 decision" in again.screen
        again.send("q")
        assert again.wait() == "eof"
    finally:
        again.child.terminate(force=True)
    assert len(only_session(db).records) == decisions


def test_the_gm_adds_a_combatant_at_the_table_and_a_wrong_one_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    gm = Gm("moonlit/skirmish", "--seed", "1", db=db, out=tmp_path)
    try:
        assert gm.wait() in ("confirm", "menu")
        gm.send("e")
        gm.child.expect("edit> ")
        gm.send("add ghoul_3 like ghoul_1 zone nowhere")
        gm.child.expect("edit> ")
        shown = " ".join(gm.child.before.split())  # one message, wrapped between words at 80 columns
        refusal = shown.partition("refused: add:")[2]
        assert shown.count("refused") == 1 and "zone" in refusal, gm.child.before
        gm.send("add ghoul_3 like ghoul_1 zone B_rear")
        assert gm.wait() in ("confirm", "menu")
        assert "GM: adds ghoul_3 (B) like ghoul_1" in gm.screen
        gm.send("q")
        assert gm.wait() == "eof"
    finally:
        gm.child.terminate(force=True)
    session = only_session(db)
    assert session.records[-1]["edit"]["add"] == {"id": "ghoul_3", "like": "ghoul_1", "zone": "B_rear"}
    assert "ghoul_3" in {v.id for v in session.combat.combatants}
