"""`trpg-arena train` and `train-fps` refuse a bad option before any work, in one line, leaving no run folder.

Through the command line as a person types it: absurd thread and env counts, a zip archive that is no
model, agent specs, sides and files checked before training (and before the cloning of `train SYSTEM`),
the options of `train ENCOUNTER` refused with a rule system's id, an ``--out`` that is a file or lies under one.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]
TINY = ["--steps", "64", "--n-steps", "64", "--batch-size", "32", "--eval-games", "1"]  # an encounter's run
CLONE = ["--games", "10", "--epochs", "1", "--eval-games", "0"]  # a system's run: a few games, one epoch


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=cwd, timeout=600)


def assert_refused(r: subprocess.CompletedProcess[str], words: str, out: Path | None = None) -> None:
    """Exit 2, one line on stderr naming `words`, no traceback, and nothing left in `out`."""
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert len(r.stderr.strip().splitlines()) == 1 and words in r.stderr, r.stderr[-2000:]
    if out is not None:
        assert not out.exists() or not list(out.iterdir()), "a refused run left a folder behind"


@pytest.fixture
def empty_zip(tmp_path: Path) -> Path:
    """A zip archive with nothing in it: a zip, but no model SB3 saved."""
    path = tmp_path / "e.zip"
    zipfile.ZipFile(path, "w").close()
    return path


@pytest.mark.parametrize(("args", "words"), [
    (["train", "moonlit/duel", *TINY, "--threads", "100000"], "--threads must lie between 1 and 256"),
    (["train", "moonlit/duel", *TINY, "--envs", "1000000000000"], "--envs must lie between 1 and 256"),
    (["train", "kiai", *CLONE, "--threads", "100000"], "--threads must lie between 1 and 256"),
])
def test_absurd_thread_and_env_counts_are_refused_before_any_work(args: list[str], words: str,
                                                                  tmp_path: Path) -> None:
    assert_refused(run(*args, "--out", str(tmp_path / "out")), words, tmp_path / "out")


def test_train_fps_refuses_an_absurd_env_count_before_measuring() -> None:
    r = run("train-fps", "moonlit/duel", "--steps", "1", "--envs", "1,257")
    assert_refused(r, "--envs counts must lie between 1 and 256")


def test_a_zip_that_is_no_model_is_refused_by_play_evaluate_and_resume(empty_zip: Path, tmp_path: Path) -> None:
    r = run("play", "moonlit/duel", "--agents", f"policy:{empty_zip},random", "--quiet")
    assert_refused(r, f"{empty_zip}: not a saved MaskablePPO model")
    out = tmp_path / "out"
    r = run("evaluate", "moonlit/duel", "--agents", f"policy:{empty_zip},random", "--games", "2", "--workers", "1",
            "--out", str(out))
    assert_refused(r, "not a saved MaskablePPO model", out)
    r = run("train", "moonlit/duel", *TINY, "--resume", str(empty_zip), "--out", str(out))
    assert_refused(r, "--resume: ", out)


def test_resume_refuses_a_model_of_another_layout_before_the_run_folder(tmp_path: Path) -> None:
    first = tmp_path / "first"
    r = run("train", "moonlit/duel", *TINY, "--out", str(first))
    assert r.returncode == 0, r.stderr[-2000:]
    (model,) = first.glob("*/model.zip")
    r = run("play", "moonlit/duel", "--agents", f"policy:{model},random", "--quiet")  # a real model still plays
    assert r.returncode == 0, r.stderr[-2000:]
    out = tmp_path / "out"
    assert_refused(run("train", "kiai/duel", *TINY, "--resume", str(model), "--out", str(out)),
                   "--resume: ", out)


@pytest.mark.parametrize(("option", "words"), [
    (["--eval-opponent", "nope"], "--eval-opponent: no agent 'nope'"),
    (["--opponent", "nope"], "--opponent: no agent 'nope'"),
    (["--anchors", "scripted,nope"], "--anchors: no agent 'nope'"),
    (["--side", "nope"], "--side: duel has no side 'nope'"),
])
def test_a_bad_spec_or_side_is_refused_before_training(option: list[str], words: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert_refused(run("train", "moonlit/duel", *TINY, *option, "--out", str(out)), words, out)


@pytest.mark.parametrize(("option", "words"), [
    (["--anchors", "nope"], "--anchors: no agent 'nope'"),
    (["--side", "nope"], "has no side 'nope'"),
])
def test_the_ppo_stages_specs_and_side_are_refused_before_the_cloning(option: list[str], words: str,
                                                                      tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = run("train", "kiai", *CLONE, "--ppo-steps", "64", "--value-warmup", "0", "--n-steps", "64", *option,
            "--out", str(out))
    assert_refused(r, words, out)
    assert "epoch" not in r.stdout, "nothing was cloned"


@pytest.mark.parametrize("option", [["--steps", "0"], ["--opponent", "nope"], ["--vec", "nope"],
                                    ["--resume", "/nonexist.zip"], ["--envs", "2"], ["--self-play"]])
def test_an_encounter_option_given_with_a_system_is_refused_not_ignored(option: list[str], tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = run("train", "kiai", *CLONE, *option, "--out", str(out))
    assert_refused(r, f"{option[0]} is read only when training a model for one encounter", out)


@pytest.mark.parametrize("target", ["encounter", "system"])
@pytest.mark.parametrize("under", [False, True])
def test_out_that_is_a_file_or_lies_under_one_is_refused_first(target: str, under: bool, tmp_path: Path) -> None:
    file = tmp_path / "a_file"
    file.write_text("not a folder\n")
    out = file / "x" if under else file
    args = ["moonlit/duel", *TINY] if target == "encounter" else ["kiai", *CLONE]
    r = run("train", *args, "--out", str(out))
    assert_refused(r, f"--out {out}")
    assert file.read_text() == "not a folder\n"


def test_train_fps_refuses_an_out_under_a_file_before_measuring(tmp_path: Path) -> None:
    file = tmp_path / "a_file"
    file.write_text("")
    r = run("train-fps", "moonlit/duel", "--steps", "8", "--envs", "1", "--out", str(file / "rows.json"))
    assert_refused(r, f"--out {file / 'rows.json'}")


@pytest.mark.parametrize("option", [["--latest", "0.5"], ["--anchors", "random"], ["--n-steps", "64"]])
def test_a_ppo_stage_option_without_the_stage_is_refused_not_ignored(option: list[str], tmp_path: Path) -> None:
    """`train SYSTEM` without --ppo-steps clones only: the PPO stage's settings would be dropped silently."""
    r = run("train", "kiai", "--games", "10", *option, "--out", str(tmp_path))
    assert r.returncode == 2 and "is the PPO stage's: give --ppo-steps too" in r.stderr, r.stderr
    assert not list(tmp_path.iterdir())
