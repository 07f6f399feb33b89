"""`trpg-arena ladder`: Bradley-Terry ratings with intervals, Wilson intervals per pair, files and a plot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.experiments.test_cli import run
from trpg_arena.experiments.ladder import ladder_pairs, wilson


def test_wilson_interval_matches_the_formula() -> None:
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(0, 20)[0] == 0.0 and wilson(20, 20)[1] == 1.0


def test_ladder_pairs_neighbours() -> None:
    names = ["a", "b", "c", "d"]
    assert ladder_pairs(names, 1) == [("a", "b"), ("b", "c"), ("c", "d")]
    assert len(ladder_pairs(names, 0)) == 6


def test_ladder_writes_table_ratings_and_plot(tmp_path: Path) -> None:
    r = run("ladder", "moonlit/duel", "--agents", "random,scripted", "--games", "6", "--bootstrap", "20",
            "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    res = json.loads((tmp_path / "ladder.json").read_text())
    ratings = {row["agent"]: row for row in res["ratings"]}
    assert set(ratings) == {"random", "scripted"}
    assert all(row["low"] <= row["rating"] <= row["high"] for row in ratings.values())
    assert res["pairs"][0]["games"] == 6 and "| random |" in r.stdout
    assert res["monotone"] == (ratings["random"]["rating"] < ratings["scripted"]["rating"])
    assert (tmp_path / "ladder.png").stat().st_size > 0 and (tmp_path / "ladder.csv").exists()


def test_ladder_refuses_a_repeated_agent(tmp_path: Path) -> None:
    r = run("ladder", "moonlit/duel", "--agents", "random,random", "--out", str(tmp_path))
    assert r.returncode != 0 and "two different agents" in r.stderr
