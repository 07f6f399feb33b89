"""`trpg-arena train` in a log: lines from the first second, no empty folders, a plot for one evaluation."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from tests.experiments.test_cli import run


def test_a_short_training_run_speaks_from_the_start_and_leaves_a_clean_folder(tmp_path: Path) -> None:
    r = run("train", "moonlit/duel", "--steps", "64", "--n-steps", "32", "--batch-size", "32", "--eval-games", "2",
            "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.splitlines()
    # the first line comes before torch is imported; then progress lines a CI log shows (not a terminal here)
    assert lines[0] == "train moonlit/duel: 64 steps against random; loading torch and stable-baselines3"
    assert lines[1].startswith("run folder ")
    assert "training moonlit/duel: started, 64 steps to go" in r.stdout
    assert re.search(r"training moonlit/duel: 64/64 steps \(100 %\), [\d,.]+ steps/s", r.stdout), r.stdout
    (folder,) = tmp_path.iterdir()
    assert not (folder / "pool").exists()  # no league without --self-play, so no empty pool folder
    with (folder / "eval.csv").open() as fh:
        assert len(list(csv.DictReader(fh))) == 1  # one evaluation (at the end) ...
    assert (folder / "eval.png").stat().st_size > 10_000  # ... drawn as a point with its interval


@pytest.mark.parametrize(("option", "words"), [(["--shaping", "nan"], "--shaping must be a finite number"),
                                               (["--latest", "2"], "--latest must lie between 0 and 1"),
                                               (["--n-steps", "0"], "--n-steps must be at least 1")])
def test_a_bad_value_is_refused_in_one_line_before_the_run_folder(option: list[str], words: str,
                                                                  tmp_path: Path) -> None:
    r = run("train", "moonlit/duel", "--steps", "64", *option, "--out", str(tmp_path / "runs"))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {words}"), r.stderr
    assert not (tmp_path / "runs").exists(), "a refused run left a folder behind"
