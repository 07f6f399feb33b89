"""What the GM reads at the terminal and in a log: lines broken between words at the terminal's width, ids whole,
counts and results in words, the stored sessions' list and the hints that name the database.

The terminal is `Gm`'s 80 x 24 pseudo-terminal; a log is the same command with its output in a pipe.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.experiments.test_autopilot import Gm
from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli", "autopilot"]


def env(columns: int = 80) -> dict[str, str]:
    """A plain environment of `columns`; PYTHONPATH passed on, so the tests can be run against another copy."""
    return {"COLUMNS": str(columns), "PATH": "/usr/bin:/bin", "PYTHONPATH": os.environ.get("PYTHONPATH", "")}


def logged(gm: Gm) -> io.StringIO:
    """Everything the program writes from now on, as the terminal receives it."""
    log = io.StringIO()
    gm.child.logfile_read = log
    return log


def lines_of(log: io.StringIO) -> list[str]:
    return log.getvalue().replace("\r\n", "\n").split("\n")


def test_at_a_terminal_lines_break_between_words_within_its_width(tmp_path: Path) -> None:
    gm = Gm("reincarnator/skirmish", "--seed", "7", db=tmp_path / "s.db", out=tmp_path)
    log = logged(gm)
    try:
        assert gm.wait() == "confirm"
        gm.send("e")  # the fields of every combatant, the examples, a refusal
        gm.child.expect("edit> ")
        gm.send("chen lethal 99")
        gm.child.expect("edit> ")
        gm.send("")
        assert gm.wait() == "confirm"
        gm.send("q")
        assert gm.wait() == "eof"
    finally:
        gm.child.terminate(force=True)
    lines = lines_of(log)
    assert max(len(line) for line in lines) <= 80, [line for line in lines if len(line) > 80]  # were 100 and more
    text = " ".join(log.getvalue().split())
    for whole in ("Enter confirm · 1-", "a NPCs unattended · ? help · q quit",  # was 'a NPCs unat' / 'tended'
                  "refused: changes.lethal: lethal damage 99 is not allowed here",
                  "'<id> remove' takes it out (e.g. 'rifleman remove')",  # one of this combat's, not 'ghoul_2'
                  "left the table: session", "is stored; continue with trpg-arena autopilot --resume"):
        assert whole in text, whole


def test_in_a_log_a_line_stays_one_line(tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "reincarnator/skirmish", "--seed", "7", "--db", str(tmp_path / "s.db"), "--out",
                        str(tmp_path)], input="q\n", capture_output=True, text=True, timeout=120,
                       env=env())
    assert r.returncode == 0, r.stderr[-2000:]
    keys = [line for line in r.stdout.splitlines() if line.startswith("Enter confirm")]
    assert keys and all(line.endswith("q quit") and len(line) > 80 for line in keys), keys
    assert re.search(r"^new session \w+ \(seed 7\) in .*; continue it later with .* --db .*$", r.stdout, re.MULTILINE)


def test_the_roster_shows_every_id_whole_and_the_edit_prompt_takes_it(tmp_path: Path) -> None:
    gm = Gm("moonlit/skirmish", "--seed", "3", db=tmp_path / "s.db", out=tmp_path)
    try:
        assert gm.wait() in ("confirm", "menu")
        roster = re.findall(r"^[> ] {3}(\S+) +\d+/\d+ ", gm.screen, re.MULTILINE)
        assert "puppeteer.dragon_tooth_soldier" in roster and "puppeteer.puppet" in roster, gm.screen[-1500:]
        gm.send("e")
        gm.child.expect("edit> ")
        gm.send("puppeteer.dragon_tooth_soldier")  # was cut to 'puppeteer.drago', which the prompt refused
        gm.child.expect("edit> ")
        shown = " ".join(gm.child.before.split())
        assert "puppeteer.dragon_tooth_soldier (B, absent): nothing to edit: not in the fight yet" in shown, shown
        gm.send("")
        assert gm.wait() in ("confirm", "menu")
        gm.send("q")
        assert gm.wait() == "eof"
    finally:
        gm.child.terminate(force=True)


def test_the_end_says_who_won_and_counts_in_words(tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "investigator/skirmish", "--pc", "scripted", "--npc", "scripted", "--no-review",
                        "--seed", "3", "--db", str(tmp_path / "s.db"), "--out", str(tmp_path)], input="\n",
                       capture_output=True, text=True, timeout=120, env=env())
    assert r.returncode == 0, r.stderr[-2000:]
    assert re.search(r"^combat over: side investigators wins \(eliminated\) after \d+ rounds, \d+ decisions$", r.stdout,
                     re.MULTILINE), r.stdout[-2000:]  # was 'combat over: investigators (eliminated)'


def stored_with_one_decision(db: Path, n: int) -> list[str]:
    """`n` unfinished duels in `db`, one decision each (the NPCs under review); their ids."""
    store = SessionStore(db)
    ids = []
    for seed in range(n):
        s = Session("moonlit/duel", seed=seed, pc="scripted", npc="review:scripted", store=store)
        s.run(max_decisions=1)
        assert len(s.records) == 1 and s.id is not None
        ids.append(s.id)
    store.close()
    return ids


def test_resume_errors_count_in_words_and_name_the_database_given(tmp_path: Path) -> None:
    db = tmp_path / "mine.db"
    first, _ = stored_with_one_decision(db, 2)
    several = subprocess.run([*CLI, "--resume", "--db", str(db)], capture_output=True, text=True, timeout=60,
                             env=env(200))
    assert several.returncode == 2 and f"{first} (moonlit/duel, 1 decision, running)" in several.stderr
    assert several.stderr.rstrip().endswith(f"name one: trpg-arena autopilot --resume ID --db {db}"), several.stderr
    unknown = subprocess.run([*CLI, "--resume", "nosuch", "--db", str(db)], capture_output=True, text=True,
                             timeout=60, env=env(200))
    assert unknown.returncode == 2 and f"trpg-arena autopilot --list --db {db} shows them)" in unknown.stderr


def test_the_list_shows_ids_whole_and_fits_80_columns(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    ids = stored_with_one_decision(db, 2)
    for columns in (80, 60):
        r = subprocess.run([*CLI, "--list", "--db", str(db)], capture_output=True, text=True, timeout=60,
                           env=env(columns))
        assert r.returncode == 0, r.stderr
        head, *table = r.stdout.splitlines()
        assert max(len(line) for line in table) <= columns, r.stdout
        assert all(re.search(rf"^{sid} ", r.stdout, re.MULTILINE) for sid in ids), r.stdout  # was 'e85f3d0…' at 60
        if columns == 80:  # every heading and value whole
            assert table[0].split() == ["id", "encounter", "decisions", "status", "updated"], r.stdout
            assert all(re.search(rf"^{sid} +moonlit/duel +1 +running +\d\d-\d\d \d\d:\d\d$", r.stdout, re.MULTILINE)
                       for sid in ids), r.stdout
