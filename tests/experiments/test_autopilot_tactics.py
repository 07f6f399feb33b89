"""NPC temperaments in the GM's terminal: given with ``--tactics``, shown under the roster, followed by the
NPC's proposals, kept by ``--resume``; a wrong one is one line and a non-zero exit.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.experiments.test_autopilot import Gm, only_session


def test_the_terminal_shows_the_temperaments_and_resume_keeps_them(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    gm = Gm("kiai/skirmish", "--seed", "3", "--pc", "scripted", "--tactics", "gorza=focus:casters",
            "--tactics", "goblin_a=aggression:bold,morale:40%", db=db, out=tmp_path)
    reasons_seen = False
    for _ in range(60):
        kind = gm.wait()
        assert kind != "eof", gm.screen[-2000:]
        if kind == "confirm" and gm.match is not None and gm.match.group(1) == "gorza" and "mio" in gm.screen:
            reasons_seen = reasons_seen or "focus casters" in gm.screen
        if "~ gorza: focus casters" in gm.screen and reasons_seen:
            break
        gm.answer_simply()
    assert "~ gorza: focus casters" in gm.screen
    assert "~ goblin_a: bold, flees below 40 % HP" in gm.screen
    assert reasons_seen, "gorza's proposal never cited its focus"
    gm.send("q")
    gm.child.expect(r"\$|resume|$")
    gm.child.close()

    assert only_session(db).temperament("gorza") is not None
    again = Gm("--resume", db=db, out=tmp_path)
    while again.wait() not in ("confirm", "menu", "eof"):
        again.answer_simply()
    again.send("m")  # the map and roster again
    again.wait()
    assert "~ gorza: focus casters" in again.screen and "~ goblin_a: bold, flees below 40 % HP" in again.screen
    again.send("q")
    again.child.close()


@pytest.mark.parametrize(("encounter", "npc", "tactics", "shown"), [
    ("investigator/skirmish", "ghoul", "morale:25%,focus:casters", "flees below 25 % HP, focus casters"),
    ("moonlit/skirmish", "count", "aggression:cautious,protect:puppeteer", "cautious, protects puppeteer"),
    ("reincarnator/skirmish", "brute", "aggression:reckless,focus:weakest", "reckless, focus weakest")])
def test_every_system_shows_its_temperaments_under_the_roster(tmp_path: Path, encounter: str, npc: str,
                                                             tactics: str, shown: str) -> None:
    gm = Gm(encounter, "--seed", "2", "--tactics", f"{npc}={tactics}", db=tmp_path / "s.db", out=tmp_path)
    assert gm.wait() != "eof", gm.screen[-2000:]
    gm.send("m")  # the map and the roster
    gm.wait()
    assert f"~ {npc}: {shown}" in gm.screen, gm.screen[-2500:]
    gm.send("q")
    gm.child.close()


def test_a_wrong_temperament_is_one_line_and_a_failure(tmp_path: Path) -> None:
    for arg, words in [("gorza=focus:nobody", "tactics.gorza.focus: focus 'nobody' is neither"),
                       ("gorza", "--tactics needs ID=KEY:VALUE")]:
        run = subprocess.run([sys.executable, "-m", "trpg_arena.experiments.cli", "autopilot", "kiai/skirmish",
                              "--tactics", arg, "--db", str(tmp_path / "s.db"), "--out", str(tmp_path)],
                             capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert run.returncode != 0
        lines = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
        assert len(lines) == 1 and words in lines[0], lines
