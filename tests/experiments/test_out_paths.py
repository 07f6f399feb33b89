"""Where commands write, checked before their work: a person's file is never replaced, a wrong path is one line.

Found by running the commands as a user would: ``regress --record --baseline notes.txt`` replaced the notes with
a baseline, ``--junit`` replaced any file, ``balance``/``train-value`` with ``--out`` naming a file searched or
played first and then failed with a traceback, and ``--games 10**12`` filled the memory before the first game.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]
NOTES = "my notes, not a baseline\n"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    r = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, cwd=cwd,
                       env={"PATH": "/usr/bin:/bin", "COLUMNS": "200"})
    assert "Traceback" not in r.stderr, r.stderr[-2000:]
    return r


def one_line(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    return r.stderr.strip()


def test_recording_never_replaces_a_file_that_is_no_baseline(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(NOTES)
    r = run("regress", "kiai/duel", "--agents", "scripted,random", "--games", "2", "--record", "--baseline",
            "notes.txt", "--workers", "1", cwd=tmp_path)
    assert "notes.txt exists and is not a trpg-arena baseline" in one_line(r)
    assert (tmp_path / "notes.txt").read_text() == NOTES and not (tmp_path / "runs").exists()
    r = run("regress", "kiai/duel", "--agents", "scripted,random", "--games", "2", "--record", "--baseline",
            "base.json", "--workers", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    again = run("regress", "kiai/duel", "--agents", "scripted,random", "--games", "4", "--record", "--baseline",
                "base.json", "--workers", "1", cwd=tmp_path)  # an earlier baseline is what recording replaces
    assert again.returncode == 0 and json.loads((tmp_path / "base.json").read_text())["spec"]["games"] == 4


@pytest.mark.parametrize("junit, words", [("notes.txt", "exists and is not a JUnit report"),
                                          ("folder", "is a folder: name a file")])
def test_junit_replaces_only_a_junit_report(tmp_path: Path, junit: str, words: str) -> None:
    (tmp_path / "notes.txt").write_text(NOTES)
    (tmp_path / "folder").mkdir()
    r = run("regress", "kiai/duel", "--agents", "scripted,random", "--games", "2", "--record", "--baseline",
            "base.json", "--junit", junit, "--workers", "1", cwd=tmp_path)
    assert words in one_line(r)
    assert (tmp_path / "notes.txt").read_text() == NOTES and not (tmp_path / "base.json").exists()


@pytest.mark.parametrize("command", [
    ("evaluate", "kiai/duel", "--agents", "scripted,random", "--games", "2", "--workers", "1"),
    ("tournament", "kiai/duel", "--agents", "scripted,random", "--games", "2", "--workers", "1"),
    ("balance", "kiai/duel", "--knob", "gorza.max_hp=5..20", "--target", "0.5", "--screen", "4", "--confirm", "8",
     "--budget", "40", "--workers", "1"),
    ("train-value", "kiai", "--games", "10", "--generations", "0", "--workers", "1"),
])
@pytest.mark.parametrize("out", ["notes.txt", "notes.txt/below"])
def test_an_out_that_cannot_be_a_folder_is_refused_before_the_work(tmp_path: Path, command: tuple[str, ...],
                                                                    out: str) -> None:
    (tmp_path / "notes.txt").write_text(NOTES)
    line = one_line(run(*command, "--out", out, cwd=tmp_path))
    assert "not a folder" in line or "cannot hold run folders" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"] and (tmp_path / "notes.txt").read_text() == NOTES


@pytest.mark.parametrize("command", [
    ("evaluate", "kiai/duel", "--agents", "scripted,random", "--games", "1000000000000", "--workers", "1"),
    ("regress", "kiai/duel", "--agents", "scripted,random", "--games", "1000000000000", "--record", "--baseline",
     "b.json"),
])
def test_a_series_of_a_trillion_games_is_refused(tmp_path: Path, command: tuple[str, ...]) -> None:
    assert "1,000,000" in one_line(run(*command, cwd=tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_a_suite_entry_of_a_trillion_games_or_a_seed_out_of_range_is_refused(tmp_path: Path) -> None:
    for setting, words in (("games: 1000000000000", "games must be a whole number from 2 to 1,000,000"),
                           ("seed: 99999999999999", "seed must be a whole number from 0 to 4294967295")):
        (tmp_path / "suite.yaml").write_text(f"entries:\n  - {{encounter: kiai/duel, agents: 'scripted,random', "
                                             f"{setting}}}\n")
        r = run("regress", "suite.yaml", "--record", cwd=tmp_path)
        assert r.returncode == 2 and words in " ".join(r.stderr.split()), r.stderr


def test_features_of_an_encounter_are_written_to_out(tmp_path: Path) -> None:
    """With --encounter, --out was silently ignored: nothing written, exit 0."""
    r = run("features", "kiai", "--encounter", "kiai/duel", "--out", "f.txt", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = (tmp_path / "f.txt").read_text().splitlines()
    assert lines[0].startswith("kiai layout ") and "global.decider_is_ours = 1" in lines
    assert "exists" in one_line(run("features", "kiai", "--encounter", "kiai/duel", "--out", "f.txt", cwd=tmp_path))
