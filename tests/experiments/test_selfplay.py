"""Self-play data: procedural encounters and ``trpg-arena selfplay`` as users run them."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from trpg_arena.experiments.runner import play_game
from trpg_arena.experiments.selfplay.generate import GENERATORS, generate
from trpg_arena.experiments.selfplay.positions import player
from trpg_arena.experiments.selfplay.run import SelfplayArgs, schedule
from trpg_arena.experiments.series import SeriesSpec, run_series
from trpg_arena.experiments.series.spec import encounter_json
from trpg_arena.rules import load_encounter
from trpg_arena.rules.core.features import layout_for

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]
UNSEEN = Path(__file__).resolve().parents[1] / "unseen"


@pytest.mark.parametrize("rid", sorted(GENERATORS))
def test_generated_encounters_are_valid_seeded_varied_and_fit_the_layout(rid: str) -> None:
    encounters = [generate(rid, seed) for seed in range(12)]
    texts = [encounter_json(e) for e in encounters]
    assert len(set(texts)) == 12, "different seeds give different encounters"
    assert encounter_json(generate(rid, 5)) == texts[5], "the same seed gives the same encounter"
    sizes = set()
    for enc in encounters:
        assert load_encounter(enc.model_dump(mode="json")).ruleset == rid  # valid as a file would be
        layout_for(rid).check(enc)
        sizes.add(tuple(sorted(sum(c.side == s for c in enc.combatants) for s in enc.sides())))
    assert len(sizes) >= 3, f"combatant mixes vary: {sizes}"
    _, result = play_game(encounters[0], ["scripted", "scripted"], seed=1)
    assert result.termination in ("victory", "round_cap", "escape", "surrender", "draw") or result.result


def test_held_out_encounters_stay_out_of_the_schedule() -> None:
    unseen = {encounter_json(load_encounter(str(p))) for p in UNSEEN.glob("*.yaml")}
    by_system: dict[str, int] = {}
    for p in UNSEEN.glob("*.yaml"):
        rid = load_encounter(str(p)).ruleset
        by_system[rid] = by_system.get(rid, 0) + 1
    assert all(by_system.get(rid, 0) >= 3 for rid in GENERATORS), by_system
    for rid in GENERATORS:
        args = SelfplayArgs(rid, 80, Path("x.npz"), per_encounter=4)
        blocks = list(schedule(args))
        assert sum(n for _, _, n, _ in blocks) == 80
        assert {name for name, *_ in blocks if not name.startswith("generated:")} == {
            f"{rid}/{n}" for n in ("brawl", "duel", "skirmish")}
        assert not unseen & {encounter_json(e) for _, e, *_ in blocks}


def test_positions_are_the_same_on_a_pool_and_on_ray() -> None:
    import ray  # noqa: F401 - part of the 'all' extra that make install installs

    spec = SeriesSpec.build(generate("reincarnator", 3), ["scripted", "random"], 6, first_seed=2)
    play = player(0.1, 0.5)
    local = list(run_series(spec, workers=2, play=play))
    remote = list(run_series(spec, workers=2, backend="ray", batch=2, play=play))
    assert [g.index for g in local] == list(range(6))
    for a, b in zip(local, remote):
        assert a.result == b.result and np.array_equal(a.features, b.features) and np.array_equal(a.value, b.value)


def selfplay(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "selfplay", "moonlit", "--out", str(out), *extra], capture_output=True, text=True,
                          timeout=300)


def test_the_selfplay_command_writes_positions_outcomes_and_values(tmp_path: Path) -> None:
    out = tmp_path / "moonlit.npz"
    run = selfplay(out, "--games", "10", "--per-encounter", "2", "--workers", "2", "--noise", "0.2")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "moonlit: 10/10 games" in run.stdout, "plain progress lines off a terminal"
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    assert summary["games"] == 10 and summary["complete"] and summary["positions"] > 100
    d = np.load(out)
    layout = layout_for("moonlit")
    n = summary["positions"]
    assert d["features"].shape == (n, layout.size) and tuple(d["feature_names"]) == layout.names
    assert str(d["fingerprint"]) == layout.fingerprint and bool(d["complete"])
    names = list(d["encounter_names"])
    assert names[0] == "moonlit/brawl" and all(n.startswith("generated:moonlit:") for n in names[1:4])
    assert set(np.unique(d["outcome"])) <= {-1, 0, 1} and np.abs(d["value"]).max() <= 1.0
    # every position's outcome is its game's result seen from the deciding side
    for k in range(10):
        rows = d["game"] == k
        sides = d["encounter_sides"][d["game_encounter"][k]]
        result = d["game_result"][k]
        expected = [0 if result == "draw" else (1 if sides[s] == result else -1) for s in d["side"][rows]]
        assert list(d["outcome"][rows]) == expected
        assert np.all(np.diff(d["decision"][rows]) > 0) and d["decision"][rows].max() < d["game_decisions"][k]
    # the value is the hand-written estimate: it leans the way the game went more often than not
    assert np.mean(np.sign(d["value"][d["outcome"] != 0]) == d["outcome"][d["outcome"] != 0]) > 0.5

    again = tmp_path / "again.npz"
    assert selfplay(again, "--games", "10", "--per-encounter", "2", "--workers", "1", "--noise", "0.2").returncode == 0
    e = np.load(again)
    assert all(np.array_equal(d[k], e[k]) for k in ("features", "outcome", "value", "game_seed")), \
        "the same command writes the same data, whatever the worker count"


def test_a_stopped_run_writes_what_it_played(tmp_path: Path) -> None:
    out = tmp_path / "stopped.npz"
    proc = subprocess.Popen([*CLI, "selfplay", "reincarnator", "--games", "5000", "--workers", "1", "--encounters",
                             "generated", "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # the first progress line: some games are played
    assert line.startswith("reincarnator: "), line + proc.stderr.read() if proc.stderr else line
    proc.send_signal(signal.SIGTERM)  # how a background job is stopped (it starts with SIGINT ignored)
    rest, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "interrupted:" in rest and "Traceback" not in err, err
    d = np.load(out)
    assert not bool(d["complete"]) and 0 < len(d["game_result"]) < 5000 and len(d["features"]) == len(d["outcome"])


@pytest.mark.parametrize(("args", "message"), [
    (["--noise", "2"], "--noise must be in [0, 1]"),
    (["--encounters", "handmade"], "--encounters takes builtin and/or generated"),
    (["--agents", "scripted"], "--agents needs one agent per side"),
])
def test_bad_selfplay_arguments_exit_with_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    run = selfplay(tmp_path / "x.npz", "--games", "2", *args)
    assert run.returncode == 2 and message in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "x.npz").exists()


def test_files_of_one_layout_join_and_others_are_refused(tmp_path: Path) -> None:
    from rich.console import Console

    from trpg_arena.experiments.selfplay.data import load_positions
    from trpg_arena.experiments.selfplay.run import run_selfplay

    quiet = Console(file=io.StringIO())
    paths = []
    for k, rid in enumerate(("kiai", "kiai", "reincarnator")):
        paths.append(tmp_path / f"{k}.npz")
        run_selfplay(SelfplayArgs(rid, 3, paths[-1], encounters=("generated",), per_encounter=2, seed=10 * k,
                                  workers=1), quiet)
    a, b = np.load(paths[0]), np.load(paths[1])
    d = load_positions(paths[:2])
    assert len(d["features"]) == len(a["features"]) + len(b["features"])
    assert list(d["source"]) == [0] * 3 + [1] * 3 and list(np.unique(d["game"])) == list(range(6))
    assert list(d["game_encounter"]) == [0, 0, 1, 2, 2, 3] and len(d["encounter_names"]) == 4
    with pytest.raises(ValueError, match="2.npz: feature layout"):
        load_positions(paths)


def test_pool_workers_keep_the_default_sigterm_so_terminate_never_waits() -> None:
    import multiprocessing as mp

    from trpg_arena.experiments.series.stopping import sigterm_interrupts

    before = signal.getsignal(signal.SIGTERM)
    with sigterm_interrupts():
        ctx = mp.get_context("fork")
        queue = ctx.SimpleQueue()
        child = ctx.Process(target=lambda: queue.put(signal.getsignal(signal.SIGTERM) == signal.SIG_DFL))
        child.start()
        assert queue.get() is True, "a forked worker must die on SIGTERM at once"
        child.join()
        assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL  # the run itself still catches it
    assert signal.getsignal(signal.SIGTERM) == before
