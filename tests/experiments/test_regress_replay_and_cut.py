"""What a paired `regress` run played reads one way: an identical replay changed nothing, and --games cut to the
baseline's games is said from the first progress line.

An unchanged build replays the baseline's games, yet its change read ``0 points [-1, +1]`` in one table and
``[-0.6, +0.6]`` in the next (the tests' variance floor, no spread the games showed); a fixed-N run asked for more
games than the baseline holds played the baseline's count while its progress said "8 games to go", then
"stopped early".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.experiments.test_cli import run

DUEL = ("regress", "kiai/duel", "--agents", "scripted,random")


def _record(tmp_path: Path, games: int) -> tuple[str, ...]:
    """The command line comparing with a baseline of `games` games just recorded on the default seed."""
    args = (*DUEL, "--baseline", str(tmp_path / "b.json"), "--out", str(tmp_path / "runs"))
    recorded = run(*args, "--record", "--games", str(games))
    assert recorded.returncode == 0, recorded.stderr
    return args


def test_an_identical_replay_reads_no_change_in_every_table_and_file(tmp_path: Path) -> None:
    r = run(*_record(tmp_path, 6), "--games", "6", "--test", "fixed")
    assert r.returncode == 0, r.stderr
    folder = Path(re.findall(r"report (\S+)/report\.html", r.stdout)[-1])
    for name in ("report.md", "report.html", "junit.xml"):
        said = set(re.findall(r"points \[[^\]]*\]", (folder / name).read_text(encoding="utf-8")))
        assert said == {"points [0, 0]"}, (name, said)
    (entry,) = json.loads((folder / "summary.json").read_text(encoding="utf-8"))["entries"]
    assert entry["change"] == {m: {"shift": 0.0, "interval95": [0.0, 0.0]} for m in ("win", "loss")}, entry


def test_games_cut_to_the_baselines_are_said_from_the_first_progress_line(tmp_path: Path) -> None:
    r = run(*_record(tmp_path, 4), "--games", "8", "--test", "fixed")
    assert r.returncode == 0, r.stderr
    assert "kiai/duel [scripted,random] (--games 8 cut to the baseline's 4): started, 4 games to go" in r.stderr
    assert "4/4 games (100 %)" in r.stderr and "stopped early" not in r.stderr, r.stderr
