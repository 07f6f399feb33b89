"""Designers' small mistakes read as what they are: a knob named twice, a suite file that is empty or a list, and a
count of errors in words."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.experiments.test_cli import run
from trpg_arena.experiments.regression import tally


def test_a_knob_named_twice_is_refused_before_any_game(tmp_path: Path) -> None:
    """It ran: the first range was dropped and one setting screened twice (100 games thrown away)."""
    r = run("balance", "moonlit/duel", "--target", "0.5", "--knob", "ghoul.max_hp=10..60", "--knob",
            "ghoul.max_hp=20..30", "--screen", "4", "--confirm", "4", "--budget", "20", "--out", str(tmp_path))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "ghoul.max_hp given more than once" in r.stderr and "screen" not in r.stdout, (r.stdout, r.stderr)


@pytest.mark.parametrize(("text", "said"), [("", "empty"), ("- kiai/duel\n", "no mapping")])
def test_a_suite_that_is_no_mapping_is_named_as_neither_suite_nor_encounter(tmp_path: Path, text: str,
                                                                            said: str) -> None:
    """It said "field '<root>': an encounter must be a mapping of fields" of a suite file."""
    suite = tmp_path / "suite.yaml"
    suite.write_text(text)
    r = run("regress", str(suite), "--out", str(tmp_path))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert f"{said}: neither a suite" in r.stderr and "encounter must be a mapping" not in r.stderr, r.stderr


def test_errors_are_counted_in_words() -> None:
    """It read "2 entries: 2 error" (the console and report.html)."""
    def done(*statuses: str) -> list[Any]:  # tally reads an outcome's status alone
        return [SimpleNamespace(status=s) for s in statuses]

    assert tally(done("error", "error")) == "2 entries: 2 errors"
    assert tally(done("ok", "error")) == "2 entries: 1 ok, 1 error"
