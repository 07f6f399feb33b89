"""`evaluate` and `tournament` keep each game as it ends; a stopped run resumes to the files of an unbroken one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from tests.experiments.test_cli import CLI, run

GAMES = 120


def evaluate_args(out: Path, games: int = GAMES) -> list[str]:
    return ["evaluate", "moonlit/duel", "--agents", "scripted,random", "--games", str(games), "--seed", "5",
            "--workers", "1", "--out", str(out)]


def stop_after(args: list[str], out: Path, games: int, pattern: str = "*/results.jsonl") -> tuple[Path, str]:
    """Start the command, SIGTERM it (as a CI timeout or `kill` does) once `games` results are kept."""
    proc = subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if sum(len(f.read_text().splitlines()) for f in out.glob(pattern)) >= games:
            break
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, f"the run ended before it could be stopped: {proc.returncode} {stderr}"
    (folder,) = out.iterdir()
    return folder, " ".join(stderr.split())


def test_a_stopped_evaluation_resumes_to_the_files_of_an_unbroken_run(tmp_path: Path) -> None:
    whole = run(*evaluate_args(tmp_path / "whole"))
    assert whole.returncode == 0, whole.stderr
    (unbroken,) = (tmp_path / "whole").iterdir()

    out = tmp_path / "stopped"
    folder, said = stop_after(evaluate_args(out), out, 5)
    kept = (folder / "results.jsonl").read_text().splitlines()
    assert 5 <= len(kept) < GAMES and not (folder / "summary.json").exists()
    assert f"after a stop, run the same command with --resume {folder}" in said
    assert f"stopped after {len(kept)} of {GAMES} games, all kept in {folder}" in said and "Traceback" not in said

    r = run(*evaluate_args(out), "--resume", str(folder))
    assert r.returncode == 0, r.stderr
    assert f"resuming {folder}: {len(kept)} of {GAMES} games kept" in " ".join(r.stderr.split())
    assert len(list(out.iterdir())) == 1  # the same folder, finished
    resumed = (folder / "results.jsonl").read_text()
    assert resumed.splitlines()[:len(kept)] == kept
    assert resumed == (unbroken / "results.jsonl").read_text()  # game i depends on the spec and i alone
    summary, whole_summary = (json.loads((f / "summary.json").read_text()) for f in (folder, unbroken))
    assert {k: v for k, v in summary.items() if k != "folder"} == {
        k: v for k, v in whole_summary.items() if k != "folder"}
    assert (folder / "winrate.png").stat().st_size > 0 and (folder / "report.html").exists()


def test_a_line_cut_short_by_a_stop_is_played_again(tmp_path: Path) -> None:
    out = tmp_path / "cut"
    folder, _ = stop_after(evaluate_args(out, 40), out, 3)
    results = folder / "results.jsonl"
    lines = results.read_text().splitlines()
    results.write_text("\n".join(lines[:2]) + "\n" + lines[2][: len(lines[2]) // 2])  # a write a kill cut short
    r = run(*evaluate_args(out, 40), "--resume", str(folder))
    assert r.returncode == 0, r.stderr
    assert f"resuming {folder}: 2 of 40 games kept" in " ".join(r.stderr.split())
    assert [json.loads(x)["index"] for x in results.read_text().splitlines()] == list(range(40))


def test_resume_refuses_another_evaluation_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "done"
    assert run(*evaluate_args(out, 4)).returncode == 0
    (folder,) = out.iterdir()

    def refused(args: list[str], target: Path, said: str) -> None:
        r = run(*args, "--resume", str(target))
        assert r.returncode == 2 and said in " ".join(r.stderr.split()), r.stderr
        assert "Traceback" not in r.stderr

    done = run(*evaluate_args(out, 4), "--resume", str(folder))  # a finished folder: nothing left to play
    assert done.returncode == 0 and f"resuming {folder}: 4 of 4 games kept" in " ".join(done.stderr.split())
    refused(evaluate_args(out, 6), folder, "games 4 -> 6")
    swapped = ["evaluate", "moonlit/duel", "--agents", "random,scripted", "--games", "4", "--seed", "5", "--workers",
               "1", "--out", str(out)]
    refused(swapped, folder, "lineup ['scripted', 'random'] -> ['random', 'scripted']")
    refused(evaluate_args(out, 4), tmp_path, "not an evaluation run folder (no spec.json)")


def test_a_stopped_tournament_resumes_to_the_files_of_an_unbroken_run(tmp_path: Path) -> None:
    def args(out: Path, games: int = 30) -> list[str]:
        return ["tournament", "moonlit/duel", "--agents", "random,scripted,first", "--games", str(games), "--seed",
                "3", "--workers", "1", "--out", str(out)]

    whole = run(*args(tmp_path / "whole"))
    assert whole.returncode == 0, whole.stderr
    (unbroken,) = (tmp_path / "whole").iterdir()

    out = tmp_path / "stopped"
    folder, said = stop_after(args(out), out, 35, "*/games/*.jsonl")  # the second pair begun
    kept = {f.name: f.read_text() for f in (folder / "games").iterdir()}
    assert 35 <= sum(len(v.splitlines()) for v in kept.values()) < 90 and not (folder / "ratings.json").exists()
    assert f"stopped after {sum(len(v.splitlines()) for v in kept.values())} of 90 games" in said

    r = run(*args(out), "--resume", str(folder))
    assert r.returncode == 0, r.stderr
    for f in (unbroken / "games").iterdir():
        assert (folder / "games" / f.name).read_text() == f.read_text()
        assert (folder / "games" / f.name).read_text().startswith(kept.get(f.name, ""))
    assert (folder / "matrix.csv").read_text() == (unbroken / "matrix.csv").read_text()
    ratings = [json.loads((f / "ratings.json").read_text()) for f in (folder, unbroken)]
    assert ratings[0] == ratings[1] and (folder / "matrix.png").stat().st_size > 0
    other = run(*args(out, 31), "--resume", str(folder))
    assert other.returncode == 2 and "games_per_pair 30 -> 31" in other.stderr and "Traceback" not in other.stderr
