"""tools/changed_pairs.py, run as docs/strength.md runs it: the pairs a trained agent changed, played again."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def evaluate(out: Path, lineup: str) -> Path:
    """A 12-game side-swapped investigator/duel series; its folder."""
    r = subprocess.run([sys.executable, "-m", "trpg_arena.experiments.cli", "evaluate", "investigator/duel", "--agents",
                        lineup, "--games", "12", "--seed", "4000", "--workers", "1", "--out", str(out)],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    (folder,) = out.glob("*/spec.json")
    return folder.parent


def changed_pairs(folder: Path, pairs: int = 3) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "tools" / "changed_pairs.py"), str(folder), str(pairs), "4"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


@pytest.fixture(scope="module")
def series(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return evaluate(tmp_path_factory.mktemp("changed"), "trained:hard:samples=4,scripted")


def test_the_pairs_won_and_lost_twice_are_played_again_and_every_departure_played_out(series: Path) -> None:
    points: dict[int, int] = defaultdict(int)
    sides = ("investigators", "cult")
    for line in (series / "results.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        points[rec["seed"]] += rec["result"] == sides[1 if rec["swapped"] else 0]
    won, lost = (min(3, sum(p == k for p in points.values())) for k in (2, 0))
    assert won + lost > 0  # the agent changed a pair: something to play again
    r = changed_pairs(series)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == (f"investigator/duel, trained:hard:samples=4 vs scripted, seed 4000: {won} pairs won twice "
                        f"and {lost} lost twice played again, 4 play-outs a departure")
    rows = {cells[0]: cells[1:] for cells in ([c.strip() for c in line.strip("|").split("|")] for line in lines[3:])}
    assert list(rows) == [f"{kind}{side}" for kind in ("won twice", "lost twice")
                          for side in ("", ", as investigators", ", as cult")]
    for kind, pairs in (("won twice", won), ("lost twice", lost)):
        count = int(rows[kind][0])
        assert count == sum(int(rows[f"{kind}, as {side}"][0]) for side in sides)  # each departure on one side
        # scripted against itself splits every pair, so a pair won or lost twice had a departure in it
        assert count >= pairs
        if count:
            assert -1.0 <= float(rows[kind][2].split()[0]) <= 1.0  # a difference of two results in [0, 1]


def test_a_record_the_replay_does_not_reproduce_is_refused(series: Path, tmp_path: Path) -> None:
    # the tool reads departures off games played again; one that ends otherwise than its record is another game
    copy = tmp_path / series.name
    copy.mkdir()
    (copy / "spec.json").write_text((series / "spec.json").read_text(encoding="utf-8"), encoding="utf-8")
    records = [json.loads(line) for line in (series / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    sides = ("investigators", "cult")
    won = {rec["seed"]: [] for rec in records}
    for rec in records:
        won[rec["seed"]].append(rec["result"] == sides[1 if rec["swapped"] else 0])
    seed = next(s for s, games in won.items() if not all(games))  # a pair the agent did not win twice...
    for rec in records:  # ...recorded as won twice: at least one of its games ends otherwise when played again
        if rec["seed"] == seed:
            rec["result"] = sides[1 if rec["swapped"] else 0]
    (copy / "results.jsonl").write_text("".join(json.dumps(rec) + "\n" for rec in records), encoding="utf-8")
    r = changed_pairs(copy, pairs=len(won))  # every pair won twice is played again, the altered one too
    assert r.returncode != 0 and r.stdout == ""
    assert f"error: seed {seed} (swapped " in r.stderr and "when played again" in r.stderr, r.stderr


def test_a_series_without_a_trained_agent_against_scripted_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = evaluate(tmp_path, "scripted,random")
    r = changed_pairs(folder)
    assert r.returncode != 0 and r.stdout == ""
    assert r.stderr.strip() == (f"error: {folder}: expected a side-swapped series of a trained agent against "
                                "scripted")
