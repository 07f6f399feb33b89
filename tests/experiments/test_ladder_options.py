"""`trpg-arena ladder` and `pool` options a user can get wrong: refused before any game, in one line, no folder left.

Every test here drives the command in a subprocess that inherits PYTHONPATH, so the file can be run against
another copy of the package (``PYTHONPATH=/old/copy pytest ...``) to see it fail there.
"""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from tests.experiments.test_cli import CLI, run
from trpg_arena.experiments.evaluate import run_evaluation

# a refused option must come back at once; the old ways round were a hang (--cost-seconds inf, a huge --bootstrap)
QUICK_S = 60
TINY = ["--agents", "random,first", "--games", "1", "--workers", "1"]


def run_quick(*args: str) -> subprocess.CompletedProcess[str]:
    """The command, failed as a test (not waited on for ten minutes) when it does not end in `QUICK_S` seconds."""
    try:
        return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=QUICK_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"trpg-arena {' '.join(args)} still ran after {QUICK_S} s")


def test_a_ladder_of_one_game_a_pair_holds_each_rating_inside_its_interval(tmp_path: Path) -> None:
    # one game a pair, each won by the stronger agent: the fit never settles, so the resamples' fit and the
    # estimate's had to take the same steps (random once rated 676 with an interval of 685 to 685, and the
    # plot's negative error bar stopped the run before ladder.png)
    args = ["ladder", "moonlit/duel", "--agents", "random,first,scripted", "--games", "1", "--cost-seconds", "0",
            "--workers", "1", "--out", str(tmp_path)]
    r = run_quick(*args)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    (folder,) = tmp_path.iterdir()
    with (folder / "ladder.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [row["agent"] for row in rows] == ["random", "first", "scripted"]
    for row in rows:  # a rating the games do not bound (one game each, a sweep) has no interval at all
        assert (row["low"] == row["high"] == "" and row["unbounded"]) if row.get("unbounded") else \
            float(row["low"]) <= float(row["rating"]) <= float(row["high"]), row
    table = (folder / "ladder.md").read_text(encoding="utf-8")
    for row in json.loads((folder / "ladder.json").read_text(encoding="utf-8"))["ratings"]:
        if "unbounded" in row:
            assert row["low"] is None and f"| {row['agent']} | " in table and "| none: " in table, table
            continue
        assert row["low"] <= row["rating"] <= row["high"], row
        assert f"| {row['agent']} | {row['rating']:.0f} | {row['low']:.0f} to {row['high']:.0f} |" in table
    assert (folder / "ladder.png").read_bytes().startswith(b"\x89PNG")

    resumed = run_quick(*args, "--resume", str(folder))  # a finished ladder resumed writes its pages again
    assert resumed.returncode == 0 and "Traceback" not in resumed.stderr, resumed.stderr


@pytest.mark.parametrize(("option", "words"), [
    (["--bootstrap", "0"], "--bootstrap must be from 1 to 100,000 resamples, got 0"),
    (["--bootstrap", "-1"], "--bootstrap must be from 1 to 100,000 resamples, got -1"),
    (["--bootstrap", str(10**12)], "--bootstrap must be from 1 to 100,000 resamples"),
    (["--cost-seconds", "inf"], "--cost-seconds must be from 0 (not measured) to 3,600, got inf"),
    (["--cost-seconds", "nan"], "--cost-seconds must be from 0 (not measured) to 3,600, got nan"),
    (["--cost-seconds", "-1"], "--cost-seconds must be from 0"),
    (["--neighbours", "-1"], "--neighbours must be 0 (every pair) or more, got -1"),
])
@pytest.mark.parametrize("encounters", [["moonlit/duel"], ["moonlit/duel", "kiai/duel"]])
def test_a_bad_ladder_number_is_refused_before_any_game(tmp_path: Path, option: list[str], words: str,
                                                        encounters: list[str]) -> None:
    out = tmp_path / "runs"
    r = run_quick("ladder", *encounters, *TINY, *option, "--out", str(out))
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [r.stderr.strip()] and words in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and not out.exists()  # no run folder for a run that never began


def test_bootstrap_help_gives_its_bound() -> None:
    r = run("ladder", "--help")
    assert r.returncode == 0 and "100,000" in " ".join(r.stdout.split()), r.stdout


def test_pool_refuses_a_folder_for_its_plot_and_writes_nothing(tmp_path: Path) -> None:
    runs = [run_evaluation("moonlit/duel", ["scripted", "random"], 2, seed, True, tmp_path / "runs",
                           Console(quiet=True), workers=1)["folder"] for seed in (10, 20)]
    folder = tmp_path / "plots"
    folder.mkdir()
    r = run_quick("pool", *runs, "--plot", str(folder))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().splitlines() == [r.stderr.strip()] and "is a folder" in r.stderr, r.stderr
    # neither beside the folder (its name with .png added) nor in it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plots", "runs"] and not any(folder.iterdir())


@pytest.mark.parametrize("several", [False, True])
def test_the_library_refuses_a_bad_bootstrap_before_its_folder(tmp_path: Path, several: bool) -> None:
    # imported here, not at the top: the tests above still run against a copy that lacks `check_ladder_options`
    from trpg_arena.experiments.ladder import run_ladder
    from trpg_arena.experiments.ladders import run_ladders

    out, quiet = tmp_path / "runs", Console(quiet=True)
    with pytest.raises(ValueError, match="--bootstrap must be from 1"):
        if several:
            run_ladders(["moonlit/duel", "kiai/duel"], lambda _: ["random", "first"], 1, 0, 2, 0, out, quiet, 1)
        else:
            run_ladder("moonlit/duel", ["random", "first"], 1, 0, 2, 0, out, quiet, 1)
    assert not out.exists()


def test_a_ladder_resumed_with_other_intervals_or_costs_is_refused(tmp_path: Path) -> None:
    """A finished ladder resumed with --cost-seconds 0 or --bootstrap 10 rewrote its tables (cost columns dropped)."""
    args = ["ladder", "moonlit/duel", "--agents", "random,first", "--games", "1", "--bootstrap", "5",
            "--cost-seconds", "0", "--workers", "1", "--out", str(tmp_path)]
    assert run_quick(*args).returncode == 0
    (folder,) = tmp_path.iterdir()
    table = (folder / "ladder.md").read_text(encoding="utf-8")
    for other in (["--bootstrap", "10"], ["--cost-seconds", "1"]):
        changed = [*args]
        changed[changed.index(other[0]) + 1] = other[1]
        r = run_quick(*changed, "--resume", str(folder))
        assert r.returncode == 2 and "other settings" in r.stderr and other[0][2:].replace("-", "_") in r.stderr, \
            r.stderr
        assert (folder / "ladder.md").read_text(encoding="utf-8") == table
    assert run_quick(*args, "--resume", str(folder)).returncode == 0
