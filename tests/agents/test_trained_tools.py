"""The tools behind docs/strength.md's figures on `trained`, run as the docs run them.

Latency: kiai_sorcery (held out: a sorcerer and a fighter against four goblins) is the encounter whose series
take longest: its games run to about 250 decisions, three times a skirmish's. Each decision must
still be cheap: the bar is a p95 of 0.5 s of one core's CPU time per `propose`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_latency_tool_times_trained_normal_on_a_held_out_encounter() -> None:
    # The tool's figures, not the 0.5 s bar: a timed assertion fails on a loaded machine (the bar is measured by
    # the tool and `trpg-arena bench` on an idle core, docs/strength.md)
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "trained_latency.py"), "trained:hard", "20",
                        "tests/unseen/kiai_sorcery.yaml"], capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    rows = [line for line in r.stdout.splitlines() if line.startswith("| tests/unseen/kiai_sorcery.yaml")]
    assert len(rows) == 1, r.stdout
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    decisions, p50, p95 = int(cells[1]), float(cells[2]), float(cells[3])
    assert decisions == 20
    assert 0 < p50 <= p95, rows[0]
    most = int(cells[5].split("/")[1])
    assert most > 1  # a real choice was timed, and the legal-action count is read from the games
    assert int(cells[6]) > 100  # its games are long: this, not the single decision, is what a series pays for


def test_the_deviation_check_plays_departures_out_to_the_end() -> None:
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "deviation_check.py"), "kiai/duel", "trained:hard",
                        "2", "4"], capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    head = r.stdout.splitlines()[0]
    assert head.startswith("kiai/duel, trained:hard: ") and "4 play-outs each" in head, r.stdout
    decisions = int(head.split(": ")[1].split()[0])
    departures = int(head.split("games, ")[1].split()[0])
    assert decisions > 10 and 0 <= departures <= decisions
    rows = [line for line in r.stdout.splitlines() if "<-" in line and line.split("|")[2].strip().isdigit()]
    assert sum(int(line.split("|")[2]) for line in rows) == departures  # every departure is in one kind's row
    for line in rows:  # a play-out gain is a difference of two results in [0, 1]
        assert -1.0 <= float(line.split("|")[4].split()[0]) <= 1.0


def test_seed_pairs_reads_a_scripted_mirror_as_all_split_and_counts_the_pairs_an_agent_changes(tmp_path: Path) -> None:
    # a side-swapped series seeds the scripted agent, the dice and the encounter by the pair's seed, so the
    # scripted policy against itself splits every pair; a weaker agent loses pairs twice (a mirror swaps only
    # when asked: by default it plays a fresh seed per game)
    summaries: dict[str, dict] = {}
    for lineup in ("scripted,scripted", "random,scripted"):
        r = subprocess.run([sys.executable, "-m", "trpg_arena.experiments.cli", "evaluate", "kiai/duel", "--agents",
                            lineup, "--swap", "--games", "12", "--seed", "4000", "--workers", "1", "--out",
                            str(tmp_path / lineup.split(",")[0])], capture_output=True, text=True, timeout=240,
                           cwd=ROOT)
        assert r.returncode == 0, r.stderr
        summaries[lineup] = json.loads(r.stdout)
        assert "seed pairs: " in " ".join(r.stderr.split())  # evaluate's own head-to-head line
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "seed_pairs.py"), str(tmp_path / "scripted"),
                        str(tmp_path / "random")], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in r.stdout.splitlines()[2:]]
    assert [row[0] for row in rows] == ["kiai/duel, scripted vs scripted, seed 4000",
                                        "kiai/duel, random vs scripted, seed 4000"]
    mirror, weak = ([int(c) for c in row[1:6]] for row in rows)
    assert mirror == [6, 6, 0, 0, 0]
    assert weak[0] == 6 and sum(weak[1:]) == 6 and weak[3] > weak[2]  # every pair counted once; random loses more
    assert rows[1][6] == f"{100 * (weak[1] + 2 * weak[2]) / 12:.1f} %"
    # the tool and evaluate's summary count the same pairs
    for lineup, counts in (("scripted,scripted", mirror), ("random,scripted", weak)):
        p = summaries[lineup]["seed_pairs"]
        assert [p["pairs"], p["split"], p["won_twice"], p["lost_twice"], p["with_draw"]] == counts
    assert summaries["scripted,scripted"]["verdict"] == "not separated: the interval holds 50 %"


def test_seed_pairs_refuses_a_folder_without_a_series_in_one_line(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "seed_pairs.py"), str(tmp_path)], capture_output=True,
                       text=True, timeout=60, cwd=ROOT)
    assert r.returncode != 0 and r.stdout == ""
    assert r.stderr.strip() == f"error: {tmp_path}: expected one series folder (spec.json and results.jsonl), found 0"


def test_seed_pairs_reads_a_ladders_pair_of_agents(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "trpg_arena.experiments.cli", "ladder", "kiai/duel", "--agents",
                        "scripted,random", "--games", "6", "--seed", "4000", "--workers", "1", "--cost-seconds", "0.2",
                        "--out", str(tmp_path)], capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    (pair,) = tmp_path.glob("*/games/*.jsonl")
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "seed_pairs.py"), str(pair)], capture_output=True,
                       text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    (row,) = [[c.strip() for c in line.strip("|").split("|")] for line in r.stdout.splitlines()[2:]]
    assert row[0] == "kiai/duel, scripted vs random, ladder seed 4000"
    pairs, split, won, lost, other = (int(c) for c in row[1:6])
    assert pairs == 3 and split + won + lost + other == 3 and won >= lost  # scripted does not lose to random
