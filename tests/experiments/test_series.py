"""Series: the frozen spec, reproducible games whatever the worker count, reducers, run folders."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from trpg_arena.experiments.series import SeriesSpec, play_one, run_series, runner
from trpg_arena.experiments.series.folders import run_folder

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def test_the_spec_is_frozen_hashable_and_hashes_the_content(tmp_path: Path) -> None:
    a = SeriesSpec.build("moonlit/duel", ["scripted", "random"], 10)
    b = SeriesSpec.build("moonlit/duel", ["scripted", "random"], 10)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    with pytest.raises(AttributeError):
        a.games = 3  # type: ignore[misc]
    copy = tmp_path / "duel.yaml"
    from trpg_arena.rules import RULESETS

    text = (RULESETS["moonlit"].info.data_dir / "encounters" / "duel.yaml").read_text()
    copy.write_text(text.replace("max_hp: 40", "max_hp: 60"), encoding="utf-8")
    c = SeriesSpec.build(str(copy), ["scripted", "random"], 10)
    assert c.content_hash != a.content_hash and c.env_version == a.env_version
    assert SeriesSpec.from_json(json.loads(json.dumps(a.to_json()))) == a


def test_pairs_share_a_seed_with_the_line_up_swapped() -> None:
    spec = SeriesSpec.build("kiai/duel", ["scripted", "random"], 4)
    assert spec.swap  # different agents: swapped pairs by default
    r0, r1 = play_one(spec, 0), play_one(spec, 1)
    assert r0.seed == r1.seed == 0 and r1.swapped and r0.agents == ("scripted", "random") == r1.agents[::-1]
    mirror = SeriesSpec.build("kiai/duel", ["scripted", "scripted"], 4)
    assert not mirror.swap and [mirror.seed(i) for i in range(4)] == [0, 1, 2, 3]


def test_one_and_two_workers_give_the_same_games() -> None:
    spec = SeriesSpec.build("kiai/duel", ["scripted", "random"], 14, first_seed=7)
    one = [r.line() for r in run_series(spec, workers=1)]
    two = [r.line() for r in run_series(spec, workers=2, batch=3)]
    assert one == two and len(one) == 14
    assert [json.loads(x)["index"] for x in two] == list(range(14))
    assert one[3] == play_one(spec, 3).line()  # each game stands alone


def test_no_more_processes_than_batches_of_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--workers 1000000` for two games started a million processes (the machine's process table filled up)."""
    started: list[int] = []
    real = runner._pool
    monkeypatch.setattr(runner, "_pool", lambda spec, workers, *rest: started.append(workers) or real(spec, workers,
                                                                                                     *rest))
    spec = SeriesSpec.build("kiai/duel", ["random", "random"], 10)
    assert len(list(run_series(spec, workers=200))) == 10 and started == [3]  # three batches of at most four
    assert len(list(run_series(SeriesSpec.build("kiai/duel", ["random", "random"], 2), workers=200))) == 2
    assert started == [3], "one batch is played in this process"


def test_leaving_early_stops_the_pool() -> None:
    spec = SeriesSpec.build("kiai/duel", ["random", "random"], 400)
    got = []
    for r in run_series(spec, workers=2):
        got.append(r)
        if len(got) == 5:
            break
    assert [r.index for r in got] == [0, 1, 2, 3, 4]


def test_records_carry_damage_falls_and_rules() -> None:
    r = play_one(SeriesSpec.build("moonlit/duel", ["scripted", "scripted"], 1), 0)
    assert r.result in ("A", "B", "draw") and r.rounds > 0 and r.decisions > 0
    assert r.damage and all(v > 0 for _, _, v in r.damage)
    assert all(rid.startswith("MOON-") for rid in r.rules) and r.rules
    if r.result != "draw":
        assert r.falls


def test_run_folders_never_overwrite(tmp_path: Path) -> None:
    a, b = run_folder(tmp_path, "moonlit/duel"), run_folder(tmp_path, "moonlit/duel")
    assert a != b and a.is_dir() and b.is_dir()


def test_evaluate_echoes_the_name_typed_and_keeps_each_run(tmp_path: Path) -> None:
    for _ in range(2):
        r = subprocess.run([*CLI, "evaluate", "moonlit/skirmish", "--agents", "random,random", "--games", "2",
                            "--out", str(tmp_path), "--workers", "1"], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    folders = sorted(tmp_path.iterdir())
    assert len(folders) == 2
    for f in folders:
        assert json.loads((f / "summary.json").read_text())["encounter"] == "moonlit/skirmish"


def test_a_bad_line_up_or_worker_count_is_one_line() -> None:
    r = subprocess.run([*CLI, "evaluate", "kiai/duel", "--agents", "random", "--games", "2"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "one agent per side" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([*CLI, "evaluate", "kiai/duel", "--agents", "random,random", "--workers", "0"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--workers" in r.stderr and "Traceback" not in r.stderr


def test_evaluate_reports_each_agent_on_each_side(tmp_path: Path) -> None:
    """Sides swapped by default: an agent's results per side show (a one-sided model on its wrong side would)."""
    r = subprocess.run([*CLI, "evaluate", "kiai/duel", "--agents", "scripted,random", "--games", "8", "--workers", "1",
                        "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    cells = {(p["agent"], p["side"]): p for p in summary["per_side"]}
    assert set(cells) == {(a, s) for a in ("scripted", "random") for s in ("wanderers", "raiders")}
    assert all(p["games"] == 4 for p in cells.values())
    assert sum(p["wins"] for p in cells.values() if p["agent"] == "scripted") == summary["a_wins"]
    for agent, side in cells:
        assert re.search(rf"{agent} \([AB]\) as side {side}: wins \d of 4, \d+ % \[\d+, \d+\]", r.stderr), r.stderr
    assert "kiai/duel [scripted,random]: started, 8 games to go" in r.stderr  # plain progress: not a terminal
    (folder,) = tmp_path.iterdir()
    md = (folder / "report.md").read_text()
    assert "| agent | won as side wanderers | won as side raiders | won in all |" in md
    assert re.search(r"\| scripted \(line-up slot 1\) \| \d of 4: [\d.]+ % \[", md)


_SERIES_WHILE_A_THREAD_HOLDS_A_LOCK = """
import threading
from trpg_arena.experiments.series import SeriesSpec, run_series
from trpg_arena.experiments.series.game import play_batch

HELD = threading.Lock()


def play_taking_the_lock(spec, indices):
    with HELD:  # a forked worker would copy HELD locked and wait here for ever
        return play_batch(spec, indices)


if __name__ == "__main__":
    release = threading.Event()
    HELD.acquire()
    holder = threading.Thread(target=release.wait, daemon=True)
    holder.start()
    spec = SeriesSpec.build("kiai/duel", ["random", "random"], 6)
    print(len(list(run_series(spec, workers=2, batch=2, play=play_taking_the_lock))))
    release.set()
"""


def test_a_pool_started_while_another_thread_holds_a_lock_still_plays(tmp_path: Path) -> None:
    script = tmp_path / "series_beside_a_thread.py"
    script.write_text(_SERIES_WHILE_A_THREAD_HOLDS_A_LOCK, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["6"]
