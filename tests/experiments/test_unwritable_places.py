"""A place results cannot be written to is refused in one line before any game: permission bits do not say it (root
passes them everywhere), so `regress` and `balance` played every game and then died in a traceback, results lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.experiments.test_cli import run

# /proc exists and is a folder, and nobody, root included, can make a folder in it
UNWRITABLE = "/proc"
DUEL = ("moonlit/duel", "--agents", "scripted,random", "--games", "2")


def _one_line_before_any_game(r, *words: str) -> None:  # noqa: ANN001 - a CompletedProcess
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "started" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), r.stderr


@pytest.mark.parametrize("command", [("evaluate", *DUEL), ("tournament", *DUEL), ("ladder", *DUEL),
                                     ("balance", "moonlit/duel", "--target", "0.5", "--knob", "ghoul.max_hp=10..60",
                                      "--screen", "4", "--confirm", "4", "--budget", "20")])
def test_an_out_folder_nobody_can_write_in_is_refused_at_once(command: tuple[str, ...]) -> None:
    _one_line_before_any_game(run(*command, "--out", UNWRITABLE), UNWRITABLE)


def test_regress_refuses_every_unwritable_place_before_playing(tmp_path: Path) -> None:
    baseline = tmp_path / "b.json"
    args = ("regress", "kiai/duel", "--agents", "scripted,random", "--games", "4")
    assert run(*args, "--baseline", str(baseline), "--record", "--out", str(tmp_path)).returncode == 0
    _one_line_before_any_game(run(*args, "--baseline", str(baseline), "--out", UNWRITABLE), UNWRITABLE)
    _one_line_before_any_game(run(*args, "--baseline", f"{UNWRITABLE}/nope/b.json", "--record",
                                  "--out", str(tmp_path)), f"{UNWRITABLE}/nope")
    _one_line_before_any_game(run(*args, "--baseline", str(baseline), "--junit", f"{UNWRITABLE}/x/j.xml",
                                  "--out", str(tmp_path)), "--junit")
