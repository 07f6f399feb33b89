"""Bad or odd input at the GM table: one clear line and a non-zero exit, never a traceback; nothing hangs; no user
file is overwritten.

Run as a user would: ``trpg-arena autopilot`` in a subprocess, its answers on standard input. Names, paths and
ids holding Rich markup (``[red]``, ``[/x]``) are printed as written; ``--out`` is checked before play; a stored
time that is no time is listed as ``?``; a die entry of thousands of digits is refused and asked again.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from trpg_arena.experiments.table import report
from trpg_arena.rules import load_encounter
from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]
MARKUP = "dd[/x] [red]"  # a closing tag that matches nothing (MarkupError) and an opening one (eats the text)


def autopilot(*args: str, db: Path, answers: str = "q\n", out: Path | None = None,
              timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """As in test_autopilot_setup, but PYTHONPATH is passed on: the same test can be run against another copy."""
    extra = ["--out", str(out)] if out is not None else []
    env = {"COLUMNS": "80", "PATH": "/usr/bin:/bin", "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    return subprocess.run([*CLI, "autopilot", *args, "--db", str(db), *extra], capture_output=True, text=True,
                          input=answers, timeout=timeout, env=env)


def one_error_line(r: subprocess.CompletedProcess[str]) -> str:
    """The refusal: exit 2 and a single line on stderr, no traceback."""
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    return lines[0]


def stored(db: Path, encounter: str = "moonlit/duel", *, finished: bool, name: str | None = None) -> str:
    """A session stored in `db`, played to its end or not begun (its NPCs then under review); its id."""
    store = SessionStore(db)
    data = load_encounter(encounter).model_dump(mode="json")
    if name is not None:  # as an encounter sent over HTTP (``encounter_text``) may name itself
        data["encounter"] = name
    session = Session(data, seed=2, pc="scripted", npc="scripted" if finished else "review:scripted", store=store)
    if finished:
        session.run()
    sid = session.id
    store.close()
    assert sid is not None
    return sid


# --- the report folder ---------------------------------------------------------------------------------------------
def test_a_broken_link_under_a_report_name_is_passed_over_not_spun_on(tmp_path: Path) -> None:
    db, out = tmp_path / "s.db", tmp_path / "out"
    sid = stored(db, finished=True)
    out.mkdir()
    link = out / f"{sid}-stats.json"
    link.symlink_to("/nonexistent/x")  # exists() says no, open(..., "x") says the name is taken
    r = autopilot("--resume", sid, db=db, answers="\n", out=out, timeout=60)  # it spun for ever at full CPU
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert link.is_symlink() and os.readlink(link) == "/nonexistent/x"  # left as it was
    assert json.loads((out / f"{sid}-stats-2.json").read_text())["fighters"]
    assert (out / f"{sid}-log.md").exists() and (out / f"{sid}-events.jsonl").exists()


def test_the_search_for_a_free_report_name_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report, "NAME_LIMIT", 3)
    for name in ("r.json", "r-2.json", "r-3.json"):
        (tmp_path / name).symlink_to(tmp_path / "nowhere")
    with pytest.raises(FileExistsError, match="are all taken"):
        report.fresh_path(tmp_path, "r", ".json")


@pytest.mark.parametrize("kind", ["file", "under a file", "broken link"])
def test_an_out_that_cannot_be_a_folder_is_refused_before_play(kind: str, tmp_path: Path) -> None:
    db, file = tmp_path / "s.db", tmp_path / "outfile"
    file.write_text("the user's own\n")
    out = {"file": file, "under a file": file / "sub", "broken link": tmp_path / "link"}[kind]
    if kind == "broken link":
        out.symlink_to(tmp_path / "nowhere")
    r = autopilot("moonlit/duel", "--pc", "scripted", "--npc", "scripted", "--no-review", db=db, answers="\n",
                  out=out)
    line = one_error_line(r)  # it played the whole fight, then FileExistsError and no reports
    assert line.startswith(f"error: --out {out} ") and ("not a folder" in line or "cannot be made" in line), line
    assert not db.exists()  # no session was started
    assert file.read_text() == "the user's own\n"


# --- markup in what a user wrote -----------------------------------------------------------------------------------
def test_an_id_and_a_path_holding_markup_are_quoted_as_written_in_an_error(tmp_path: Path) -> None:
    db = tmp_path / "b[red]z.db"
    stored(db, finished=True)
    line = one_error_line(autopilot("--resume", "[/b]", db=db))  # was a MarkupError traceback
    assert line.startswith(f"error: {db}: no session '[/b]' (stored: "), line


def test_an_encounter_name_holding_markup_is_listed_and_resumed_as_written(tmp_path: Path) -> None:
    db = tmp_path / "s[red].db"
    sid = stored(db, finished=False, name=MARKUP)
    listed = autopilot("--list", db=db)  # was a MarkupError traceback
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr[-2000:]
    assert listed.stdout.startswith(f"sessions in {db}\n") and f"moonlit/{MARKUP}" in listed.stdout, listed.stdout
    r = autopilot("--resume", sid, db=db)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert f"resumed session {sid}: moonlit/{MARKUP}, 0 decisions" in r.stdout, r.stdout[:2000]
    assert f"left the table: session {sid} is stored" in r.stdout and str(db) in r.stdout


def test_a_new_session_and_its_reports_name_their_paths_as_written(tmp_path: Path) -> None:
    db, out = tmp_path / "b[red]z.db", tmp_path / "o[red]ut"
    r = autopilot("moonlit/duel", "--pc", "scripted", "--npc", "scripted", "--no-review", "--seed", "2", db=db,
                  answers="\n", out=out)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-2000:]
    (row,) = SessionStore(db).sessions()
    assert f"new session {row.id} (seed 2) in {db};" in r.stdout  # was printed as .../bz.db
    assert f"written {out / (row.id + '-stats.json')}" in r.stdout, r.stdout[-2000:]


# --- a stored row edited by hand -----------------------------------------------------------------------------------
def test_a_stored_time_that_is_no_time_is_listed_as_unknown(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    words, huge = stored(db, finished=True), stored(db, "moonlit/brawl", finished=True)
    con = sqlite3.connect(db)
    con.execute("UPDATE sessions SET updated = 'yesterday' WHERE id = ?", (words,))  # was a TypeError
    con.execute("UPDATE sessions SET updated = 1e300 WHERE id = ?", (huge,))  # beyond what localtime can show
    con.commit()
    con.close()
    listed = autopilot("--list", db=db)
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr[-2000:]
    rows = {sid: line for line in listed.stdout.splitlines() for sid in (words, huge) if sid in line}
    assert len(rows) == 2 and all(line.rstrip(" │|").endswith("?") for line in rows.values()), listed.stdout


# --- dice typed at the table ---------------------------------------------------------------------------------------
def test_a_die_entry_of_thousands_of_digits_is_refused_and_asked_again(tmp_path: Path) -> None:
    r = autopilot("moonlit/duel", "--pc", "scripted", "--npc", "scripted", "--no-review", "--dice", "--seed", "1",
                  db=tmp_path / "s.db", answers=f"1 {'9' * 5000}\nq\n", out=tmp_path / "out")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-2000:]  # was exit 2: 'Exceeds the limit'
    assert "refused: '999999999999...' is not a face of this die (1-6)" in r.stdout, r.stdout[-2000:]
    assert "left the table" in r.stdout and r.stdout.count("9" * 13) == 0


@pytest.mark.parametrize("option, words", [
    (("--seed", "4"), "--seed: a resumed session keeps the seed it was started with"),
    (("--option", "moon_round_cap=5"), "--option: a resumed session keeps its encounter's options"),
    (("--no-review",), "--no-review on --resume applies to the seats given with it"),
])
def test_options_a_resumed_session_cannot_take_are_refused_not_ignored(tmp_path: Path, option: tuple[str, ...],
                                                                       words: str) -> None:
    db = tmp_path / "s.db"
    sid = stored(db, finished=False)
    assert words in one_error_line(autopilot("--resume", sid, *option, db=db))


def test_resume_applies_ask_routine_and_new_default_seats(tmp_path: Path) -> None:
    """--ask-routine was stored only beside --seat or --dice; --pc and --npc were dropped."""
    db = tmp_path / "s.db"
    sid = stored(db, finished=False)
    r = autopilot("--resume", sid, "--ask-routine", "--npc", "random", db=db)
    assert r.returncode == 0, r.stderr[-2000:]
    setup = SessionStore(db).setup(sid)
    assert setup["ask_routine"] is True and setup["npc"] == "review:random", setup
