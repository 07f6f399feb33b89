"""The encounter balancer: knobs parsed and checked, a target hit and verified, the tuned file written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from trpg_arena.experiments.balance import BalanceError, Knob, balance, write_balance
from trpg_arena.rules import load_encounter

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def test_knobs_are_parsed_and_checked() -> None:
    assert Knob.parse("gorza.life=5..30") == Knob("gorza", "life", 5, 30)
    for bad in ("gorza.life=30..5", "gorza=5..30", "gorza.life=a..b"):
        with pytest.raises(BalanceError, match="--knob"):
            Knob.parse(bad)
    with pytest.raises(BalanceError, match="no combatant 'nobody'.*ids: kaede, gorza"):
        balance("kiai/duel", [Knob.parse("nobody.life=1..9")], 0.5, ("random", "random"))
    with pytest.raises(BalanceError, match="no whole-number field 'charm'.*life"):
        balance("kiai/duel", [Knob.parse("gorza.charm=1..9")], 0.5, ("random", "random"))


def test_a_target_is_hit_verified_on_fresh_seeds_and_written(tmp_path: Path) -> None:
    summary = balance("kiai/duel", [Knob.parse("gorza.life=4..30")], 0.5, ("scripted", "random"),
                      tolerance=0.1, screen=30, confirm=100, budget=2000, workers=2)
    assert summary["found"], summary["tried"]
    lo, hi = summary["verified_interval95"]
    assert 0.4 <= lo and hi <= 0.6
    assert summary["tried"][-1]["phase"] == "verify" and summary["tried"][-1]["first_seed"] == 20_000
    folder = write_balance(summary, tmp_path)
    tuned = folder / "tuned.yaml"
    enc = load_encounter(tuned)
    gorza = next(c for c in yaml.safe_load(tuned.read_text())["combatants"] if c["id"] == "gorza")
    assert gorza["life"] == summary["setting"]["gorza.life"] and enc.encounter == "duel"
    assert (folder / "report.html").exists() and (folder / "summary.json").exists()
    assert re.search(r"Verdict: side wanderers wins [\d.]+ % \[[\d.]+, [\d.]+\]", (folder / "report.md").read_text())


def test_an_unreachable_target_exits_1_with_the_search_shown(tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "balance", "kiai/duel", "--target", "0.5", "--knob", "gorza.life=60..61", "--agents",
                        "scripted,random", "--screen", "20", "--budget", "200", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "no setting found" in r.stderr, r.stderr
    # a line per series as it ends (progress in a log), rates in percent with their intervals
    line = r"\[20/200 games, \d+ s, [\d,]+ games/s\] screen +\{'gorza.life': 6[01]\}: [\d.]+ % \[[\d.]+, [\d.]+\]"
    assert re.search(line + " over 20 games", r.stderr), r.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--knob", "gorza.life=-5..30"], r"--knob gorza.life=-5..30: life -5 is not allowed \(kiai/duel: field"),
    (["--tolerance", "0"], "--tolerance must lie strictly between 0 and 0.5, got 0.0"),
    (["--tolerance", "nan"], "--tolerance must lie strictly between 0 and 0.5, got nan"),
    (["--confirm", "0"], "--confirm must be at least 1 game, got 0"),
    (["--budget", "10"], r"--budget 10 leaves no room to screen both ends of a knob's range \(2 x --screen 100 games"),
    (["--budget", "150"], r"--budget 150 leaves no room to screen both ends"),  # one series screened nothing
    (["--agents", "scripted"], "--agents needs one agent per side"),
    (["--workers", "0"], "--workers must be at least 1, got 0"),
])
def test_a_search_that_could_not_work_is_refused_before_its_first_game(tmp_path: Path, args: list[str],
                                                                        message: str) -> None:
    # each of these used to play games first: a range end the rules refuse stopped the search mid-run, a tolerance
    # of 0 or NaN or a confirmation of 0 games could never be met, and a budget under one series was overrun
    knob = [] if "--knob" in args else ["--knob", "gorza.life=4..30"]  # a field named twice is refused first
    cmd = [*CLI, "balance", "kiai/duel", "--target", "0.5", *knob, "--out", str(tmp_path)]
    r = subprocess.run(cmd + args, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert re.search(message, r.stderr) and "balancing" not in r.stderr and "games/s" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not list(tmp_path.iterdir())


def test_two_knobs_stay_within_the_budget() -> None:
    """The second knob's bisection screened both its ends whatever was left: 80 games on a budget of 60."""
    summary = balance("moonlit/duel", [Knob.parse("ghoul.max_hp=10..60"), Knob.parse("kei.max_hp=20..60")], 0.5,
                      ("scripted", "scripted"), screen=10, confirm=20, budget=60, workers=1)
    assert summary["games"] <= 60 and sum(t["games"] for t in summary["tried"] if t["phase"] == "screen") <= 60
