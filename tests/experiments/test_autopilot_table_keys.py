"""The autopilot in a pseudo-terminal: undo at a person's dice, resuming at a routine answer's dice, Ctrl-C while
an agent thinks, undo with NPCs unattended, and the routine answers given before the table listened.
"""

from __future__ import annotations

import time
from pathlib import Path

import pexpect

from tests.experiments.test_autopilot import Gm


def _said(gm: Gm) -> str:
    """The screen before the prompt as one line (the terminal wraps at 80 columns)."""
    return " ".join(gm.screen.split())


def test_undo_at_a_persons_dice_takes_back_the_action_waiting_for_them(tmp_path: Path) -> None:
    """It said 'nothing to undo: no decision has been made by a person yet' (nothing was stored yet)."""
    gm = Gm("moonlit/duel", "--seed", "4", "--dice", db=tmp_path / "s.db", out=tmp_path)
    assert gm.wait() == "dice"  # kei's routine answer: stays, its AP to roll
    gm.send("c")  # given up: the question is put to the person
    assert gm.wait() == "menu"
    gm.send(gm.key_of("stays"))
    assert gm.wait() == "dice" and "for kei" in gm.child.after
    gm.send("3 4")
    assert gm.wait() == "dice" and "for ghoul" in gm.child.after  # kei's stay still waits for the ghoul's AP
    gm.send("u")
    assert gm.wait() == "menu"
    assert "undone 1 decision: back to kei in round 1" in _said(gm) and "nothing to undo" not in _said(gm)
    assert "try to escape, or stay?" in _said(gm)
    gm.send("q")
    assert gm.finish() == 0


def test_resumed_at_a_routine_answers_dice_the_dice_are_asked_again(tmp_path: Path) -> None:
    """It asked the person 'try to escape, or stay?', which the table answers as usual."""
    db = tmp_path / "s.db"
    gm = Gm("moonlit/duel", "--seed", "4", "--dice", db=db, out=tmp_path)
    assert gm.wait() == "dice" and "(after kei: stays)" in _said(gm)
    gm.send("q")
    assert gm.finish() == 0
    again = Gm("--resume", db=db, out=tmp_path)
    assert again.wait() == "dice", again.screen
    assert "for kei" in again.child.after and "(after kei: stays)" in _said(again)
    again.send("q")
    assert again.finish() == 0


def test_ctrl_c_while_an_agent_thinks_says_how_to_continue(tmp_path: Path) -> None:
    """It left with status 130 and no word of the stored session."""
    # a search of a minute: the interrupt surely comes while it thinks, however loaded the machine
    gm = Gm("reincarnator/skirmish", "--seed", "1", "--npc", "mcts:simulations=100000:time_limit=60",
            db=tmp_path / "s.db", out=tmp_path)
    gm.child.expect("new session")  # then the surprise round's first NPC proposal is computed
    time.sleep(1)
    gm.child.sendintr()
    gm.child.expect(r"left the table: session \w+ is stored; continue with")
    gm.child.expect(pexpect.EOF)
    gm.child.close()
    assert gm.child.exitstatus == 130


def test_undo_with_npcs_unattended_gives_the_table_back(tmp_path: Path) -> None:
    """'u' at 'combat over' replayed the whole fight to a new end at once, writing a second set of reports."""
    gm = Gm("kiai/duel", "--seed", "1", "--pc", "scripted", db=tmp_path / "s.db", out=tmp_path)
    assert gm.wait() == "confirm"
    gm.send("")  # a person's decision: what undo goes back to
    assert gm.wait() == "confirm"
    gm.send("a")
    assert gm.wait() == "over"
    gm.send("u")
    assert gm.wait() == "confirm", gm.screen
    assert "NPC proposals are shown for review again after the undo" in _said(gm)
    gm.send("q")
    assert gm.finish() == 0
    assert len(list(tmp_path.glob("*-stats*.json"))) == 1


def test_routine_answers_given_as_the_session_starts_are_narrated(tmp_path: Path) -> None:
    """Only the NPCs' stays were shown: mio's and kei's were stored unsaid."""
    gm = Gm("moonlit/skirmish", "--seed", "3", db=tmp_path / "s.db", out=tmp_path)
    gm.wait()
    for who in ("mio", "kei", "puppeteer", "sayo", "count"):
        assert f"r1 {who}: stays (as usual: not asked)" in _said(gm), gm.screen
    gm.send("q")
    assert gm.finish() == 0
