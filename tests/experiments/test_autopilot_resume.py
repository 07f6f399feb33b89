"""Killed mid-combat and resumed, the autopilot ends exactly as an uninterrupted run; dice typed by hand."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.conftest import SYSTEMS
from tests.experiments.test_autopilot import Gm, only_session


def _events(folder: Path) -> str:
    (path,) = folder.glob("*-events.jsonl")
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("rid", SYSTEMS)
def test_sigkill_mid_combat_then_resume_ends_with_the_same_log(rid: str, tmp_path: Path) -> None:
    args = (f"{rid}/skirmish", "--seed", "4")
    whole = Gm(*args, db=tmp_path / "whole.db", out=tmp_path / "whole")
    prompts = 0
    while whole.wait() != "eof":
        whole.answer_simply()
        prompts += 1
    whole.child.close()
    assert whole.child.exitstatus == 0 and prompts > 6

    cut = Gm(*args, db=tmp_path / "cut.db", out=tmp_path / "cut")
    for _ in range(prompts // 2):
        cut.wait()
        cut.answer_simply()
    os.kill(cut.child.pid, signal.SIGKILL)  # just after an answer: the decision in flight may be lost
    cut.child.close(force=True)
    assert not list((tmp_path / "cut").glob("*"))  # it never got to the end
    stored = len(only_session(tmp_path / "cut.db").records)
    assert 0 < stored

    resumed = Gm("--resume", db=tmp_path / "cut.db", out=tmp_path / "cut")
    resumed.wait()
    assert f"resumed session {only_session(tmp_path / 'cut.db').id}" in resumed.screen
    assert f"{stored} decisions" in resumed.screen
    resumed.answer_simply()
    assert resumed.finish() == 0
    assert _events(tmp_path / "cut") == _events(tmp_path / "whole")
    (a,) = (tmp_path / "whole").glob("*-stats.json")
    (b,) = (tmp_path / "cut").glob("*-stats.json")
    assert a.read_text() == b.read_text()


def test_a_whole_combat_with_dice_typed_at_the_table(tmp_path: Path) -> None:
    gm = Gm("moonlit/duel", "--seed", "5", "--pc", "scripted", "--dice", db=tmp_path / "s.db", out=tmp_path)
    typed = 0
    refused_checked = False
    while gm.wait() != "eof":
        if gm.kind != "dice":
            gm.answer_simply()
            continue
        assert gm.match is not None
        count, sides = int(gm.match.group(1)), int(gm.match.group(2))
        if not refused_checked:  # a face the die does not have, a missing die, a word: refused, asked again
            for wrong, why in ((" ".join([str(sides + 1)] * count), "shows"), (" ".join(["x"] * count), "not a face"),
                               (" ".join(["³"] * count), "not a face"),  # isdigit() holds, int() refuses
                               (" ".join(["1"] * (count + 1)), "needed")):
                gm.send(wrong)
                assert gm.wait() == "dice"
                assert "refused" in gm.screen and why in gm.screen
            refused_checked = True
        gm.send(" ".join(str((typed + i) % sides + 1) for i in range(count)))
        typed += count
    gm.child.close()
    assert gm.child.exitstatus == 0 and refused_checked and typed > 10

    session = only_session(tmp_path / "s.db")
    assert session.combat.over
    faces = [face for rec in session.records for _, face in rec["faces"]]
    assert len(faces) == typed and all(rec["by_hand"] for rec in session.records)
    (log,) = tmp_path.glob("*-log.md")
    assert "dice by hand" in log.read_text(encoding="utf-8")
