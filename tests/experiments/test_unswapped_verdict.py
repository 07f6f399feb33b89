"""A series whose sides were not swapped says its verdict of the seat: `scripted,scripted` (a mirror is not swapped)
read "better beyond doubt" at 76.5 %, which was side wanderers' advantage, not one script's over itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.experiments.test_cli import run
from trpg_arena.experiments.evaluate import verdict


def test_the_verdict_of_an_unswapped_series_names_the_seat() -> None:
    assert verdict(0.70, 0.82) == "better beyond doubt"
    said = verdict(0.70, 0.82, seat="wanderers")
    assert said.startswith("side wanderers wins more beyond doubt (sides not swapped") and "better" not in said
    assert verdict(0.2, 0.4, seat="B").startswith("side B wins less beyond doubt")
    assert verdict(0.4, 0.6, seat="B").startswith("not separated: the interval holds 50 % (sides not swapped")


@pytest.mark.parametrize("line", [("--agents", "scripted,scripted"), ("--agents", "scripted,random", "--no-swap")])
def test_evaluate_says_the_seat_when_sides_stay(tmp_path: Path, line: tuple[str, ...]) -> None:
    r = run("evaluate", "kiai/duel", *line, "--games", "6", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout[r.stdout.index("{"):])
    said = summary["verdict"]
    assert "sides not swapped" in said and "better" not in said and "worse" not in said, said
