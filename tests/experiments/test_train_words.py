"""What `train`, `train-fps` and their model cards say matches what ran, as a researcher reads it.

MaskablePPO trains whole rollouts, so a ``--steps`` that is no whole number of them trains more: `train-fps`
divided the requested steps by the time of the steps trained, and `train` counted to the request
("512/100 steps"). `train`'s last progress line showed the evaluation before the final one; `--steps` with
`--resume` trains that many more, not a total. `train SYSTEM`'s card said "1 epochs", the configured share of
generated games instead of the games played, and a machine it did not know. A card-less model of another
system and SB3's `model.zip` given to `ppo:model=` were refused without saying what they are.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.experiments.test_cli import run
from trpg_arena.rules.core.action_layout import action_layout_for

TINY = ["--n-steps", "64", "--batch-size", "32"]  # rollouts of 64 steps with one env


def fps_of(card: dict[str, Any], steps: int) -> bool:
    """Whether the card's fps are ``steps`` over its seconds (which it rounds to hundredths, the fps to tenths)."""
    seconds = card["seconds"]
    return steps / (seconds + 0.006) - 0.1 <= card["fps"] <= steps / max(seconds - 0.006, 1e-9) + 0.1


@pytest.fixture(scope="module")
def hundred_steps(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, dict[str, Any], Path]:
    """`train moonlit/duel --steps 100` with rollouts of 64 steps and an evaluation at 64: its output, card, folder."""
    out = tmp_path_factory.mktemp("train")
    r = run("train", "moonlit/duel", "--steps", "100", *TINY, "--eval-every", "64", "--eval-games", "2",
            "--out", str(out))
    assert r.returncode == 0, r.stderr[-3000:]
    (folder,) = out.iterdir()
    return r, json.loads((folder / "model.json").read_text()), folder


def test_train_rounds_the_steps_up_to_whole_rollouts_and_says_so(hundred_steps: tuple[Any, Any, Path]) -> None:
    r, card, _ = hundred_steps
    assert "100 steps rounded up to 128: MaskablePPO trains whole rollouts of 64 steps" in r.stdout, r.stdout
    assert "training moonlit/duel: started, 128 steps to go" in r.stdout
    assert re.search(r"training moonlit/duel: 128/128 steps \(100 %\)", r.stdout), r.stdout
    assert "/100 steps" not in r.stdout
    assert card["args"]["steps"] == 100 and card["steps"] == card["steps_this_run"] == 128
    assert fps_of(card, 128)  # of the steps trained, not those asked for


def test_train_shows_the_final_evaluation_and_dates_the_earlier_one(hundred_steps: tuple[Any, Any, Path]) -> None:
    r, card, _ = hundred_steps
    first, final = card["evaluations"]
    assert (first["steps"], final["steps"]) == (64, 128)
    progress = [line for line in r.stdout.splitlines() if line.startswith("training moonlit/duel: 128/128")]
    # the progress line's rate is the evaluation at 64 steps, and says so (before, no step: read as the final one)
    assert progress and f"win rate {first['win_rate']:.0%} vs scripted at 64 steps" in progress[-1], r.stdout
    assert (f"final evaluation: win rate {final['win_rate']:.0%} vs scripted at 128 steps ({final['wins']} won, "
            f"{final['draws']} drawn, {final['losses']} lost)") in r.stdout, r.stdout


def test_steps_with_resume_are_steps_more_as_the_help_says(hundred_steps: tuple[Any, Any, Path],
                                                           tmp_path: Path) -> None:
    _, _, folder = hundred_steps
    r = run("train", "moonlit/duel", "--steps", "64", *TINY, "--eval-games", "1", "--resume",
            str(folder / "model.zip"), "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "started, 64 steps to go" in r.stdout and "rounded up" not in r.stdout, r.stdout
    (run_folder,) = tmp_path.iterdir()
    card = json.loads((run_folder / "model.json").read_text())
    assert (card["steps"], card["steps_this_run"]) == (128 + 64, 64)
    assert fps_of(card, 64)  # this run's steps, not all of them
    help_text = run("train", "--help").stdout.replace("│", " ")
    assert "with --resume, steps more than the checkpoint's" in " ".join(help_text.split()), help_text


def test_train_fps_counts_the_steps_it_trained(tmp_path: Path) -> None:
    r = run("train-fps", "moonlit/duel", "--steps", "100", "--envs", "1", "--clock", "cpu", "--out",
            str(tmp_path / "fps.json"))
    assert r.returncode == 0, r.stderr[-3000:]
    rows = json.loads((tmp_path / "fps.json").read_text())
    assert [(row["target"], row["steps"], row["requested_steps"]) for row in rows] == [
        ("InvalidActionEnvDiscrete", 512, 100), ("moonlit/duel", 512, 100)]
    assert all(row["fps"] == pytest.approx(512 / row["seconds"]) for row in rows)
    words = " ".join(r.stdout.split())
    assert "--steps 100 is not a whole number of rollouts" in words and "512 steps with 1 env" in words, r.stdout


def test_train_fps_sections_train_whole_rollouts(tmp_path: Path) -> None:
    r = run("train-fps", "moonlit/duel", "--steps", "100", "--envs", "1", "--sections", "--out",
            str(tmp_path / "sections.json"))
    assert r.returncode == 0, r.stderr[-3000:]
    rows = json.loads((tmp_path / "sections.json").read_text())
    assert [(row["steps"], row["requested_steps"]) for row in rows] == [(512, 100), (512, 100)]
    assert "512 steps with 1 env" in " ".join(r.stdout.split()), r.stdout


def test_a_cardless_model_of_another_system_is_named_with_both_layouts(hundred_steps: tuple[Any, Any, Path],
                                                                      tmp_path: Path) -> None:
    _, _, folder = hundred_steps
    lone = tmp_path / "lone.zip"  # the moonlit model without its card beside it
    shutil.copy(folder / "model.zip", lone)
    r = run("play", "kiai/duel", "--agents", f"policy:{lone},random", "--quiet")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    kiai, moonlit = action_layout_for("kiai"), action_layout_for("moonlit")
    words = " ".join(r.stderr.split())
    assert f"expects ({moonlit.features.size},) observations and {moonlit.size} actions" in words, words
    assert f"kiai's canonical layout (every kiai encounter) has ({kiai.features.size},) and {kiai.size}" in words
    assert "this encounter's own (" in words and "moonlit's canonical sizes: a moonlit model" in words, words


def test_an_sb3_model_given_to_ppo_is_told_to_play_as_policy(hundred_steps: tuple[Any, Any, Path]) -> None:
    _, _, folder = hundred_steps
    model = folder / "model.zip"
    r = run("play", "moonlit/duel", "--agents", f"ppo:model={model},random", "--quiet")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert f"play it with policy:{model}" in " ".join(r.stderr.split()), r.stderr


def test_the_system_policy_card_says_what_was_played_and_on_what(tmp_path: Path) -> None:
    r = run("train", "kiai", "--games", "4", "--epochs", "1", "--eval-games", "0", "--threads", "1",
            "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    played = re.search(r"4 self-play games of scripted \((\d+) on generated encounters", r.stdout)
    assert played, r.stdout
    (card,) = tmp_path.glob("*/ppo-kiai.md")
    text = " ".join(card.read_text().split())
    generated = int(played.group(1))
    assert card.with_suffix(".json").is_file()
    if 0 < generated < 4:  # the games played, not the configured share (50 %)
        assert f"4 games of the scripted agent against itself, {generated} of them on generated encounters" in text
    assert "1 epoch over the decisions" in text and "1 epochs" not in text, text
    cpus = os.cpu_count()
    assert f"This run: 1 torch thread on a machine of {cpus} CPU{'' if cpus == 1 else 's'}." in text, text
    assert "shared 2-core" not in text
