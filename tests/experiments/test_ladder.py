"""`trpg-arena ladder`: Bradley-Terry ratings with intervals, Wilson intervals per pair, files and a plot."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from rich.console import Console

from tests.experiments.test_cli import CLI, run
from trpg_arena.experiments.ladder import against_reference, default_ladder, ladder_pairs, wilson
from trpg_arena.experiments.ladders import run_ladders


def test_wilson_interval_matches_the_formula() -> None:
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(0, 20)[0] == 0.0 and wilson(20, 20)[1] == 1.0


def test_ladder_pairs_neighbours() -> None:
    names = ["a", "b", "c", "d"]
    assert ladder_pairs(names, 1) == [("a", "b"), ("b", "c"), ("c", "d")]
    assert len(ladder_pairs(names, 0)) == 6


def test_a_reference_plays_every_agent_after_the_neighbours() -> None:
    names = ["a", "b", "c", "d", "e"]
    # the neighbours' pairs first and unchanged (their games keep their places), then the reference's missing ones
    assert ladder_pairs(names, 1, "b") == [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("b", "d"), ("b", "e")]
    assert ladder_pairs(names, 2, "e") == [*ladder_pairs(names, 2), ("a", "e"), ("b", "e")]
    assert ladder_pairs(names, 0, "c") == ladder_pairs(names, 0)
    with pytest.raises(ValueError, match="'z' is not in the line-up"):
        ladder_pairs(names, 1, "z")


def test_the_score_against_the_reference_is_read_from_either_side_of_its_pairs() -> None:
    # points are the pair's first agent's: "a" won 3 of 4 against the reference, the reference 1.5 of 2 against "c"
    results = {("a", "ref"): [1.0, 1.0, 0.0, 1.0], ("ref", "c"): [1.0, 0.5], ("a", "c"): [0.0]}
    got = against_reference(results, "ref")
    assert set(got) == {"a", "c"}
    assert got["a"]["vs_reference"] == 0.75 and got["a"]["vs_reference_games"] == 4
    assert got["c"]["vs_reference"] == 0.25 and got["c"]["vs_reference_games"] == 2
    assert (got["c"]["vs_reference_low"], got["c"]["vs_reference_high"]) == pytest.approx(wilson(0.5, 2), abs=1e-3)


def test_several_encounters_refuse_a_reference_outside_a_line_up_before_any_game(tmp_path: Path) -> None:
    def lineup(encounter: str) -> list[str]:
        return ["random", "scripted"] if encounter == "kiai/duel" else ["random", "scripted", "trained:easy"]

    with pytest.raises(ValueError, match="kiai/duel: the reference 'trained:easy' is not in the line-up"):
        run_ladders(["moonlit/duel", "kiai/duel"], lineup, 2, 0, 1, 5, tmp_path, Console(quiet=True),
                    reference="trained:easy")
    assert list(tmp_path.iterdir()) == []  # refused before any folder or game


def test_the_reference_is_paired_with_every_agent_and_named_in_the_table(tmp_path: Path) -> None:
    agents = "random,scripted,first,trained:easy"
    args = ["ladder", "kiai/duel", "--agents", agents, "--neighbours", "1", "--games", "2", "--bootstrap", "5",
            "--cost-seconds", "0", "--workers", "1", "--out", str(tmp_path)]
    r = run(*args, "--reference", "scripted")
    assert r.returncode == 0, r.stderr
    (folder,) = tmp_path.iterdir()
    res = json.loads((folder / "ladder.json").read_text())
    assert [(p["a"], p["b"]) for p in res["pairs"]] == [("random", "scripted"), ("scripted", "first"),
                                                         ("first", "trained:easy"), ("scripted", "trained:easy")]
    assert res["reference"] == "scripted" and "2 games per pair; scripted plays every agent" in r.stdout
    # every other agent's score against the reference, from its own side of their pair, in the files and the table
    score = {p["b"] if p["a"] == "scripted" else p["a"]: p["a_score"] if p["b"] == "scripted" else 1 - p["a_score"]
             for p in res["pairs"] if "scripted" in (p["a"], p["b"])}
    rows = {row["agent"]: row for row in res["ratings"]}
    assert {n: rows[n]["vs_reference"] for n in score} == pytest.approx(score)
    assert "vs_reference" not in rows["scripted"]
    assert all(rows[n]["vs_reference_games"] == 2 for n in score)
    assert "score against scripted (Wilson 95 %), games" in (folder / "ladder.md").read_text()
    assert "vs_reference" in (folder / "ladder.csv").read_text().splitlines()[0]
    # the reference fixes which games are played: a resume must name it too
    other = run(*args, "--resume", str(folder))
    assert other.returncode == 2 and "reference" in other.stderr and "Traceback" not in other.stderr
    again = run(*args, "--reference", "scripted", "--resume", str(folder))
    assert again.returncode == 0, again.stderr
    # a reference that is not in the line-up is refused in one line before any game
    bad = run(*args, "--reference", "trained:hard")
    assert bad.returncode == 2 and "--reference trained:hard is not in the line-up of kiai/duel" in " ".join(
        bad.stderr.split()) and "Traceback" not in bad.stderr
    assert len(list(tmp_path.iterdir())) == 1


def test_ladder_writes_table_ratings_and_plot(tmp_path: Path) -> None:
    r = run("ladder", "moonlit/duel", "--agents", "random,scripted", "--games", "6", "--bootstrap", "20",
            "--workers", "2", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    (folder,) = tmp_path.iterdir()  # a fresh run folder, named by time and encounter
    assert folder.name.endswith("-moonlit-duel") and f"run folder {folder}" in " ".join(r.stdout.split())
    res = json.loads((folder / "ladder.json").read_text())
    ratings = {row["agent"]: row for row in res["ratings"]}
    assert set(ratings) == {"random", "scripted"}
    # a sweep bounds no rating: those rows say so and give no interval (tournament.unbounded)
    assert all(row["low"] <= row["rating"] <= row["high"] if "unbounded" not in row else row["low"] is None
               for row in ratings.values())
    assert res["pairs"][0]["games"] == 6 and "| random |" in r.stdout
    assert res["monotone"] == (ratings["random"]["rating"] < ratings["scripted"]["rating"])
    assert (folder / "ladder.png").stat().st_size > 0 and (folder / "ladder.csv").exists()
    # not a terminal: plain progress lines a CI log shows
    assert "moonlit/duel [random,scripted]: started, 6 games to go" in r.stderr
    assert re.search(r"moonlit/duel \[random,scripted\]: 6/6 games \(100 %\), [\d.,]+ games/s", r.stderr), r.stderr
    r = run("ladder", "moonlit/duel", "--agents", "random,scripted", "--games", "6", "--bootstrap", "20",
            "--cost-seconds", "0", "--workers", "1", "--out", str(tmp_path))
    assert r.returncode == 0 and len(list(tmp_path.iterdir())) == 2  # the first run is kept


def test_a_stopped_ladder_resumes_from_what_it_kept(tmp_path: Path) -> None:
    args = ["ladder", "moonlit/duel", "--agents", "random,scripted,mcts:easy", "--games", "8", "--bootstrap", "20",
            "--cost-seconds", "0", "--workers", "1", "--out", str(tmp_path)]
    proc = subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:  # stop it once one pair is done and another has begun
        files = list(tmp_path.glob("*/games/*.jsonl"))
        lines = sum(len(f.read_text().splitlines()) for f in files)
        if lines >= 10 or proc.poll() is not None:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGTERM)  # as a CI timeout stops it
    _, stopped_err = proc.communicate(timeout=60)
    assert proc.returncode != 0, "the ladder ended before it could be stopped"
    (folder,) = tmp_path.iterdir()
    assert f"after a stop, run the same command with --resume {folder}" in " ".join(stopped_err.split())
    kept = {f.name: f.read_text().splitlines() for f in (folder / "games").iterdir()}
    assert 10 <= sum(map(len, kept.values())) < 24 and not (folder / "ladder.json").exists()
    r = run(*args, "--resume", str(folder))
    assert r.returncode == 0, r.stderr
    assert f"resuming {folder}: {sum(map(len, kept.values()))} of 24 games kept" in " ".join(r.stderr.split())
    assert len(list(tmp_path.iterdir())) == 1  # the same folder, finished
    res = json.loads((folder / "ladder.json").read_text())
    assert [p["games"] for p in res["pairs"]] == [8, 8, 8]
    for f in (folder / "games").iterdir():
        lines = f.read_text().splitlines()
        assert [json.loads(x)["index"] for x in lines] == list(range(8))
        assert lines[:len(kept.get(f.name, []))] == kept.get(f.name, [])[:len(lines)]
    other = run(*args[:-4], "--games", "9", "--out", str(tmp_path), "--resume", str(folder))
    assert other.returncode == 2 and "games_per_pair 8 -> 9" in other.stderr and "Traceback" not in other.stderr


def test_ladder_refuses_a_repeated_agent(tmp_path: Path) -> None:
    r = run("ladder", "moonlit/duel", "--agents", "random,random", "--out", str(tmp_path))
    assert r.returncode != 0 and "two different agents" in r.stderr


def test_default_ladder_is_every_level_of_trained_and_mcts(tmp_path: Path) -> None:
    assert default_ladder("kiai") == ["random", "scripted", "trained:easy", "mcts:easy", "trained:normal",
                                      "mcts:normal", "trained:hard", "mcts:hard", "trained:deadly", "mcts:deadly"]
    # the command's default is that list: resuming a two-agent ladder without --agents names it as the difference
    r = run("ladder", "kiai/duel", "--agents", "random,scripted", "--games", "1", "--bootstrap", "5",
            "--cost-seconds", "0", "--workers", "1", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    (folder,) = tmp_path.iterdir()
    r = run("ladder", "kiai/duel", "--games", "1", "--out", str(tmp_path), "--resume", str(folder))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "['random', 'scripted', 'trained:easy', 'mcts:easy', 'trained:normal'" in " ".join(r.stderr.split())
    assert "reference None -> 'scripted'" in " ".join(r.stderr.split())  # the default line-up's yardstick


def test_search_pairs_play_their_own_count_and_every_agent_is_costed(tmp_path: Path) -> None:
    r = run("ladder", "kiai/duel", "--agents", "random,scripted,trained:easy,trained:normal,mcts:easy", "--games", "4",
            "--search-games", "2", "--neighbours", "1", "--bootstrap", "10", "--cost-seconds", "0.2", "--workers", "1",
            "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    (folder,) = tmp_path.iterdir()
    res = json.loads((folder / "ladder.json").read_text())
    games = {(p["a"], p["b"]): p["games"] for p in res["pairs"]}
    assert games == {("random", "scripted"): 4, ("scripted", "trained:easy"): 4,
                     ("trained:easy", "trained:normal"): 4, ("trained:normal", "mcts:easy"): 2}
    assert res["games_per_search_pair"] == 2 and set(res["presets_monotone"]) == {"trained"}
    for row in res["ratings"]:
        assert 0 <= row["cpu_ms_p50"] <= row["cpu_ms_p95"] and row["cost_decisions"] >= 5
    costs = {row["agent"]: row["cpu_ms_p50"] for row in res["ratings"]}
    assert costs["trained:normal"] > costs["scripted"]  # it plays the script's candidates out on 16 dice samples
    assert "4 games per pair, 2 where mcts plays" in r.stdout and "CPU ms per decision, p50 / p95" in r.stdout
    assert "trained's presets monotone" in r.stdout
    # the pairs' own counts are part of the settings a resumed ladder must share
    r = run("ladder", "kiai/duel", "--agents", "random,scripted,trained:easy,trained:normal,mcts:easy", "--games", "4",
            "--neighbours", "1", "--out", str(tmp_path), "--resume", str(folder))
    assert r.returncode == 2 and "games_per_search_pair 2 -> None" in r.stderr


def test_several_encounters_make_one_page_of_ladders_and_resume_together(tmp_path: Path) -> None:
    args = ["ladder", "moonlit/duel", "kiai/duel", "--agents", "random,scripted", "--games", "2", "--bootstrap", "5",
            "--cost-seconds", "0", "--workers", "1", "--out", str(tmp_path)]
    r = run(*args)
    assert r.returncode == 0, r.stderr
    (parent,) = tmp_path.iterdir()
    assert parent.name.endswith("-ladders") and f"run folder {parent}" in " ".join(r.stdout.split())
    # one folder per encounter, each named <date>-<time>-<encounter> (both may share a second: the page keeps the order)
    folders = [p.name for p in parent.iterdir() if p.is_dir()]
    assert sorted(name.split("-", 2)[2] for name in folders) == ["kiai-duel", "moonlit-duel"]
    page = (parent / "ladders.md").read_text()
    assert page.index("## Ladder on moonlit/duel (2 games per pair)") < page.index("## Ladder on kiai/duel")
    assert "## Ladder on kiai/duel" in r.stdout
    # the same command resumes both ladders from the parent folder, playing nothing they kept
    r = run(*args, "--resume", str(parent))
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("2 of 2 games kept") == 2 and len(list(parent.iterdir())) == 4  # two folders, two files
    # another list of encounters does not resume it
    r = run("ladder", "kiai/duel", "moonlit/duel", *args[3:], "--resume", str(parent))
    assert r.returncode == 2 and "that ladder was run on moonlit/duel, kiai/duel" in " ".join(r.stderr.split())
    assert "Traceback" not in r.stderr


def test_a_bad_encounter_among_several_is_refused_before_any_game(tmp_path: Path) -> None:
    r = run("ladder", "moonlit/duel", "moonlit/nowhere", "--agents", "random,scripted", "--games", "2",
            "--out", str(tmp_path))
    assert r.returncode != 0 and "nowhere" in r.stderr and "Traceback" not in r.stderr
    assert not tmp_path.exists() or not list(tmp_path.iterdir())
    r = run("ladder", "moonlit/duel", "kiai/duel", "--agents", "random,scripted:nonsense=1", "--games", "2",
            "--out", str(tmp_path))
    assert r.returncode != 0 and "nonsense" in r.stderr and "Traceback" not in r.stderr
    assert not tmp_path.exists() or not list(tmp_path.iterdir())



def test_a_local_ladder_plays_one_game_a_task_so_a_stop_loses_only_the_games_in_play(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    from typing import Any

    from rich.console import Console

    import trpg_arena.experiments.ladder as ladder_module
    import trpg_arena.experiments.series.resume as resume_module

    asked: list[Any] = []
    real = resume_module.run_series

    def recording(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs.get("batch"))
        return real(*args, **kwargs)

    monkeypatch.setattr(resume_module, "run_series", recording)
    result = ladder_module.run_ladder("moonlit/duel", ["random", "scripted"], 2, 7, 1, 10, tmp_path,
                                      Console(file=io.StringIO()), workers=1)
    assert asked == [1]
    (games,) = (Path(result["folder"]) / "games").iterdir()
    assert len(games.read_text().splitlines()) == 2
