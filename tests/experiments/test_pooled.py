"""`trpg-arena pool`: evaluation runs of one pairing read as one series, refused when they are not one pairing."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from rich.console import Console

from tests.conftest import SYSTEMS
from tests.experiments.test_cli import run
from trpg_arena.experiments.evaluate import run_evaluation
from trpg_arena.experiments.ladder import run_ladder
from trpg_arena.experiments.pooled import chi_square_p, runs_agreement

QUIET = Console(quiet=True)


@pytest.mark.parametrize(("statistic", "df"), [(3.841459, 1), (5.991465, 2), (7.814728, 3), (9.487729, 4),
                                                (11.070498, 5), (18.307038, 10)])
def test_chi_square_tail_at_the_tables_five_percent_points(statistic: float, df: int) -> None:
    assert chi_square_p(statistic, df) == pytest.approx(0.05, abs=1e-6)


def test_chi_square_tail_ends() -> None:
    assert chi_square_p(0.0, 1) == 1.0 and chi_square_p(0.0, 4) == 1.0
    assert chi_square_p(1.0, 2) == pytest.approx(math.exp(-0.5))  # df 2 is the exponential
    with pytest.raises(ValueError):
        chi_square_p(1.0, 0)


def test_runs_agree_or_differ_by_their_shares_of_decided_games() -> None:
    same = runs_agreement([(30, 20), (60, 40)])
    assert same == {"chi2": 0.0, "df": 1, "p_value": 1.0, "runs_differ": False}
    # 30-10 against 10-30: each cell 10 from its expected 20, (10^2 / (40 * 0.25)) * 2 runs = 20
    apart = runs_agreement([(30, 10), (10, 30)])
    assert apart is not None and apart["chi2"] == 20.0 and apart["runs_differ"] and apart["p_value"] < 1e-4
    assert runs_agreement([(5, 5)]) is None and runs_agreement([(5, 5), (0, 0)]) is None


def _evaluation(out: Path, agents: list[str], seed: int, games: int = 4) -> Path:
    summary = run_evaluation(f"{SYSTEMS[0]}/duel", agents, games, seed, True, out, QUIET, workers=1)
    return Path(summary["folder"])


def test_pool_adds_up_the_runs_and_never_writes_to_them(tmp_path: Path) -> None:
    first = _evaluation(tmp_path / "a", ["scripted", "random"], seed=10)
    second = _evaluation(tmp_path / "b", ["scripted", "random"], seed=20, games=6)
    # a stopped run: its last line cut short, as a stop can leave it; the pool reads the games before it
    results = second / "results.jsonl"
    results.write_text(results.read_text()[:-25], encoding="utf-8")
    before = {p: p.read_bytes() for p in [*first.iterdir(), *second.iterdir()]}

    r = run("pool", str(first), str(second))
    assert r.returncode == 0, r.stderr
    pooled = json.loads(r.stdout)
    own = [json.loads((f / "summary.json").read_text()) for f in (first, second)]
    assert [p["games"] for p in pooled["runs"]] == [4, 5] and pooled["runs"][1]["planned"] == 6
    assert pooled["games"] == 9 and [p["seeds"] for p in pooled["runs"]] == [[10, 11], [20, 22]]
    a_wins = own[0]["a_wins"] + pooled["runs"][1]["a_wins"]
    b_wins = own[0]["b_wins"] + pooled["runs"][1]["b_wins"]
    assert (pooled["a_wins"], pooled["b_wins"]) == (a_wins, b_wins)
    if a_wins + b_wins:
        assert pooled["a_decided_share"] == round(a_wins / (a_wins + b_wins), 4)
    assert pooled["seed_pairs"]["pairs"] == 2 + 2  # the cut run's lone seed 22 is no pair
    assert "pooled, 9 games: scripted against random: " in r.stderr
    assert "seeds 20-22, 5 games (of 6 planned)" in r.stderr
    assert {p: p.read_bytes() for p in before} == before and set(before) == {*first.iterdir(), *second.iterdir()}

    for name in ("forest.png", "forest-2.png"):  # a plot already there is kept
        r = run("pool", str(first), str(second), "--plot", str(tmp_path / "forest.png"))
        assert r.returncode == 0 and json.loads(r.stdout)["plot"] == str(tmp_path / name), r.stderr
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG")

    r = run("pool", str(first), str(second), "--markdown")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 5 and lines[2].startswith(f"| {first.name} | 10-11 | 4 |") and "**pooled**" in lines[4]


def test_pool_refuses_what_is_not_one_pairing_in_one_line(tmp_path: Path) -> None:
    first = _evaluation(tmp_path / "a", ["scripted", "random"], seed=30)
    overlap = _evaluation(tmp_path / "b", ["scripted", "random"], seed=31)  # seed 31 is in the first run too
    reversed_ = _evaluation(tmp_path / "c", ["random", "scripted"], seed=40)
    garbled = _evaluation(tmp_path / "d", ["scripted", "random"], seed=70)
    (garbled / "results.jsonl").write_bytes(b"\xff\xfe not text")
    refusals = [((str(first), str(overlap)), "seed 31 in the line-up's order is also in"),
                ((str(first), str(garbled)), "results.jsonl: cannot be read"),
                ((str(first), str(reversed_)), "another pairing (line-up ['random', 'scripted']"),
                ((str(first), str(tmp_path)), "not an evaluation run folder (no spec.json)")]
    for folders, message in refusals:
        r = run("pool", *folders)
        assert r.returncode == 2 and message in r.stderr, r.stderr
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_ladders_pair_pools_with_an_evaluation_of_the_same_pairing(tmp_path: Path) -> None:
    ladder = run_ladder(f"{SYSTEMS[0]}/duel", ["random", "scripted"], 4, 50, 1, 10, tmp_path / "ladder", QUIET,
                        workers=1)
    pair = Path(ladder["folder"]) / "games" / "random--scripted.jsonl"
    evaluation = _evaluation(tmp_path / "e", ["random", "scripted"], seed=60)
    r = run("pool", str(pair), str(evaluation))
    assert r.returncode == 0, r.stderr
    pooled = json.loads(r.stdout)
    assert [p["seeds"] for p in pooled["runs"]] == [[50, 51], [60, 61]] and pooled["games"] == 8
    assert (pooled["agent_a"], pooled["agent_b"]) == ("random", "scripted")
    # the pool's first seed is the lowest played, not the first folder's: the evaluation named first said 60
    r = run("pool", str(evaluation), str(pair))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["first_seed"] == 50 == pooled["first_seed"]
    r = run("pool", pair.name, cwd=pair.parent)  # named from inside the ladder's games folder
    assert r.returncode == 0 and json.loads(r.stdout)["games"] == 4, r.stderr

    # a ladder of an encounter that has changed since is refused: its games are of another fight
    settings = Path(ladder["folder"]) / "ladder-spec.json"
    settings.write_text(json.dumps({**json.loads(settings.read_text()), "content_hash": "0" * 16}))
    r = run("pool", str(pair))
    assert r.returncode == 2 and "has changed since the ladder was played" in r.stderr, r.stderr
