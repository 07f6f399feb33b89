"""The self-play league: who the learner meets, and a training run that fills and rates its pool."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import trpg_arena.envs  # noqa: F401 - registers the envs
from tests.experiments.test_cli import run
from trpg_arena.experiments.league import League
from trpg_arena.rules import RULESETS


def _pool(tmp_path: Path, steps: list[int]) -> Path:
    for n in steps:
        (tmp_path / f"step-{n}.zip").write_bytes(b"")
    return tmp_path


def test_anchors_play_until_the_first_snapshot(tmp_path: Path) -> None:
    league = League("moonlit", tmp_path, anchors=("scripted", "random"))
    rng = np.random.default_rng(0)
    assert {league._choose(rng) for _ in range(200)} == {"scripted", "random"}


def test_the_latest_snapshot_plays_most_episodes(tmp_path: Path) -> None:
    league = League("moonlit", _pool(tmp_path, [10, 200, 30]), anchors=("scripted",), latest=0.8)
    rng = np.random.default_rng(1)
    picks = Counter(league._choose(rng) for _ in range(4000))
    latest = f"policy:{tmp_path / 'step-200.zip'}"
    assert 0.77 < picks[latest] / 4000 < 0.83
    others = [n for n in picks if n != latest]
    assert set(others) == {f"policy:{tmp_path / 'step-10.zip'}", f"policy:{tmp_path / 'step-30.zip'}", "scripted"}


def test_pfsp_prefers_the_opponents_the_learner_still_loses_to(tmp_path: Path) -> None:
    league = League("moonlit", tmp_path, anchors=("scripted", "random"), pfsp=True)
    league.results = {"scripted": [2, 10], "random": [9, 10]}  # 20 % against scripted, 90 % against random
    rng = np.random.default_rng(2)
    picks = Counter(league._choose(rng) for _ in range(2000))
    assert picks["scripted"] > 10 * picks["random"]
    league._current = "random"
    league.episode_over(learner_won=True)
    assert league.results["random"] == [10, 11]


def test_both_sides_are_learned_and_no_episode_starts_over(tmp_path: Path) -> None:
    env = gymnasium.make(RULESETS["moonlit"].info.env_id, encounter="moonlit/duel", side="both",
                         opponent=League("moonlit", tmp_path, anchors=("scripted",)))
    sides = set()
    for seed in range(20):
        _, info = env.reset(seed=seed)
        sides.add(env.unwrapped.side)
        assert not env.unwrapped.combat.over and info["action_mask"].any()
    assert sides == set(env.unwrapped.encounter.sides())


@pytest.mark.slow
def test_self_play_training_fills_and_rates_its_pool(tmp_path: Path) -> None:
    r = run("train", "moonlit/duel", "--steps", "1024", "--self-play", "--snapshot-every", "512", "--envs", "2",
            "--vec", "subproc", "--pfsp", "--eval-games", "2", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    run_dir = Path(json.loads(r.stdout[r.stdout.index("{"):])["run"])
    card = json.loads((run_dir / "model.json").read_text())
    assert card["side"] == "both" and "--self-play" in card["command"]
    snapshots = sorted((run_dir / "pool").glob("step-*.zip"))
    assert len(snapshots) >= 2 and all(p.with_suffix(".json").exists() for p in snapshots)
    assert [entry["snapshot"] for entry in card["league"]] == sorted(p.name for p in snapshots) or \
        {entry["snapshot"] for entry in card["league"]} == {p.name for p in snapshots}
    assert all(a["opponent"] == "scripted" and a["games"] == 2 for e in card["league"] for a in e["against"])
