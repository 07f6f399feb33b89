"""A fixed-N test's verdict says what it calls a change: it read "found no change" beside "+27 points [+1, +52]"
(a 95 % interval that leaves out 0) with no word that the test shares its 5 % between the two rates."""

from __future__ import annotations

from pathlib import Path

from tests.experiments.test_cli import run
from trpg_arena.experiments.series.report import _verdict_lines, sequential_words

FIXED = {"kind": "fixed", "paired": False, "alpha": 0.05, "shifted": False,
         "metrics": {"win": {"shift": 0.27, "p_value": 0.04}, "loss": {"shift": -0.1, "p_value": 0.31}}}


def test_the_fixed_test_line_gives_the_bar_a_change_must_pass() -> None:
    lines = _verdict_lines({"status": "ok", "message": "m", "test": FIXED}, "A")
    said = next(line for line in lines if line.startswith("Fixed-N test"))
    assert "(p = 0.04)" in said and "no change (a change needs p below 0.025 for one rate" in said, said


def test_the_fallback_after_the_game_cap_gives_its_p_values() -> None:
    test = {"kind": "sprt", "paired": False, "delta": 0.05, "alpha": 0.05, "beta": 0.05, "decided": {},
            "truncated": True, "fallback": FIXED, "bounds": [-2.98, 4.33], "trace": [{"units": 40, "win+": 0.1}]}
    said = sequential_words(test, "A", 40)
    assert "found no change (win rate p = 0.04, loss rate p = 0.31; a change needs p below 0.025" in said, said


def test_games_cut_to_a_paired_baselines_are_said(tmp_path: Path) -> None:
    """A fixed-N run asked for 8 games on a 4-game baseline's dice played 4, and said only 'stopped early'."""
    baseline = tmp_path / "b.json"
    args = ("regress", "kiai/duel", "--agents", "scripted,random", "--baseline", str(baseline), "--out", str(tmp_path))
    assert run(*args, "--record", "--games", "4").returncode == 0
    r = run(*args, "--games", "8", "--test", "fixed")
    assert r.returncode in (0, 1), r.stderr
    assert "(4 games: --games 8 cut to the baseline's)" in " ".join(r.stdout.split()), r.stdout
