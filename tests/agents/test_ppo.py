"""The `ppo` agent: a policy network per rule system played in numpy, trained by `trpg-arena train SYSTEM`.

- A tiny policy cloned from a few scripted games beats random (a test that can fail, a few CPU seconds).
- The shipped policies play through the command line as any agent does, on either side, and as the
  Gymnasium env's opponent; what a model cannot play is refused in one line.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import yaml

import trpg_arena.envs  # noqa: F401 - registers the envs
from trpg_arena.agents import make_agent
from trpg_arena.agents.learned.ppo import PolicyModelError, PolicyNet, policy_path
from trpg_arena.experiments.policy_train import PolicyTrainArgs, evaluate_policy, train_policy
from trpg_arena.rules import RULESETS, Combat, load_encounter

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]
ROOT = Path(__file__).resolve().parents[2]


def test_a_tiny_cloned_policy_beats_random(tmp_path: Path) -> None:
    out = tmp_path / "tiny.npz"
    card = train_policy(PolicyTrainArgs("moonlit", games=6, epochs=5, hidden=(64,), eval_games=0, out=out),
                        log=lambda line: None)
    assert card["decisions"] > 100 and card["held_out_agreement"] > 0.3
    assert out.with_suffix(".json").is_file() and "| encounter |" in out.with_suffix(".md").read_text()
    result = evaluate_policy("moonlit", out, "moonlit/duel", "random", 30)
    assert result["interval"][0] > 0.5, result  # better than random beyond doubt (Wilson lower bound)


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_system_ships_a_small_policy_that_fits_its_layout(ruleset: str) -> None:
    path = policy_path(ruleset)
    assert path.stat().st_size < 5_000_000
    assert path.with_suffix(".md").is_file()
    agent = make_agent("ppo", ruleset, seed=1)
    assert isinstance(agent.net, PolicyNet) and agent.net.ruleset == ruleset
    for name in ("duel", "skirmish"):  # either side: the observation is the decider's
        combat = Combat(load_encounter(f"{ruleset}/{name}"), seed=3)
        for _ in range(40):
            if combat.over:
                break
            proposal = agent.propose(combat)
            assert combat.is_legal(proposal.action) and 0.0 < proposal.value <= 1.0 and proposal.reasons
            combat.act(proposal.action)


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_a_proposal_says_how_sure_the_policy_is_its_next_best_and_the_scripted_choice(ruleset: str) -> None:
    agent = make_agent("ppo", ruleset, seed=1)
    combat = Combat(load_encounter(f"{ruleset}/skirmish"), seed=5)
    agreed = differed = 0
    for _ in range(60):
        if combat.over:
            break
        proposal = agent.propose(combat)
        if len(combat.legal_view()) > 1:
            first, next_best, anchor = proposal.reasons
            assert first.endswith(f"the {ruleset} policy gives it {proposal.value:.0%}"), first
            alt = proposal.alternatives[0]
            assert next_best == f"next best: {combat.system.describe(combat, alt.action)} ({alt.value:.0%})"
            choice = make_agent("scripted", ruleset, seed=0).act(combat)  # as a GM would ask it here, fresh
            if choice == proposal.action:
                agreed += 1
                assert anchor == "the scripted policy agrees"
            else:
                differed += 1
                assert anchor.startswith(f"the scripted policy's choice: {combat.system.describe(combat, choice)} (")
        combat.act(proposal.action)
    assert agreed and differed + agreed > 5


def test_evaluate_plays_ppo_against_random_from_both_sides(tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "evaluate", "moonlit/duel", "--agents", "ppo,random", "--games", "12", "--out",
                        str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "ppo" in r.stdout


def test_ppo_is_the_envs_opponent() -> None:
    env = gymnasium.make(RULESETS["moonlit"].info.env_id, encounter="moonlit/duel", opponent="ppo")
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(300):
        action = rng.choice(np.flatnonzero(info["action_mask"]))
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert terminated or truncated


def test_a_model_refuses_what_it_cannot_play_in_one_line(tmp_path: Path) -> None:
    kiai_model = policy_path("kiai")
    r = subprocess.run([*CLI, "evaluate", "moonlit/duel", "--agents", f"ppo:model={kiai_model},random",
                        "--games", "2", "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "trained for kiai, not moonlit" in r.stderr
    assert "Traceback" not in r.stderr
    # a map beyond the canonical action layout's limit (16 x 16 for kiai)
    data = yaml.safe_load((ROOT / "rules" / "kiai" / "encounters" / "duel.yaml").read_text())
    data["map"]["width"] = 30
    big = tmp_path / "big.yaml"
    big.write_text(yaml.safe_dump(data))
    with pytest.raises(PolicyModelError, match="cannot play kiai/duel: .*map"):
        make_agent("ppo", "kiai", seed=0).act(Combat(load_encounter(str(big)), seed=0))
    r = subprocess.run([*CLI, "evaluate", str(big), "--agents", "ppo,scripted", "--games", "2", "--out",
                        str(tmp_path / "o")], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "cannot play kiai/duel" in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a model")
    with pytest.raises(PolicyModelError, match="not a policy model"):
        make_agent(f"ppo:model={broken}", "kiai", seed=0)


def test_train_system_writes_a_playable_policy_with_its_cards(tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "train", "moonlit", "--games", "3", "--epochs", "1", "--eval-games", "2", "--out",
                        str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    (run,) = tmp_path.iterdir()
    model = run / "ppo-moonlit.npz"
    assert model.is_file() and (run / "ppo-moonlit.json").is_file() and (run / "ppo-moonlit.md").is_file()
    assert "trpg-arena train moonlit --games 3 --epochs 1" in (run / "ppo-moonlit.md").read_text()
    agent = make_agent(f"ppo:model={model}", "moonlit", seed=0)
    combat = Combat(load_encounter("moonlit/skirmish"), seed=0)
    assert combat.is_legal(agent.act(combat))
    bad = subprocess.run([*CLI, "train", "moonlit", "--games", "0"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--games must be at least 1" in bad.stderr and "Traceback" not in bad.stderr
