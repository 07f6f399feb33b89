"""The PPO stage of `trpg-arena train SYSTEM`: MaskablePPO warm-started from the cloned policy, in a league.

- The warm start is exact: the MaskablePPO policy scores every legal action as the cloned numpy policy does.
- The value warm-up leaves the cloned policy untouched; the PPO steps after it change it.
- End to end through the command line: clone, PPO in the league (snapshots in the pool), export, card;
  the result beats random beyond doubt; from a model with DAgger rounds, its card lists each of them once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from trpg_arena.agents import make_agent
from trpg_arena.agents.canonical import CanonicalCodec
from trpg_arena.agents.learned.ppo import PolicyNet, layout_fingerprint
from trpg_arena.experiments.policy_ppo import PPOStageArgs, load_cloned, ppo_stage
from trpg_arena.experiments.policy_train import evaluate_policy
from trpg_arena.rules import Combat, load_encounter

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def _random_layers(ruleset: str, hidden: tuple[int, ...], seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    _, n_obs, n_actions = layout_fingerprint(ruleset)
    rng = np.random.default_rng(seed)
    sizes = [n_obs, *hidden, n_actions]
    return [(rng.normal(0, 0.3, (a, b)).astype(np.float32), rng.normal(0, 0.3, b).astype(np.float32))
            for a, b in zip(sizes, sizes[1:])]


def test_the_warm_start_scores_the_legal_actions_as_the_cloned_policy() -> None:
    from sb3_contrib import MaskablePPO

    from trpg_arena.envs.gym_env import TrpgArenaEnv
    from trpg_arena.experiments.policy_ppo import EncounterMix

    layers = _random_layers("moonlit", (32, 16), seed=4)
    net = PolicyNet("moonlit", layout_fingerprint("moonlit")[0], tuple(layers), {})
    env = EncounterMix([TrpgArenaEnv("moonlit", encounter="moonlit/skirmish", side="both")])
    model = MaskablePPO("MlpPolicy", env, device="cpu", policy_kwargs={
        "net_arch": {"pi": [32, 16], "vf": [32, 16]}, "activation_fn": torch.nn.Tanh})
    load_cloned(model.policy, layers)
    combat = Combat(load_encounter("moonlit/skirmish"), seed=2)
    codec = CanonicalCodec.for_combat(combat)
    for _ in range(30):
        if combat.over:
            break
        obs, legal = codec.observe(combat), codec.legal_indices(combat)
        mask = np.zeros(codec.n_actions, dtype=bool)
        mask[legal] = True
        with torch.no_grad():
            dist = model.policy.get_distribution(torch.tensor(obs[None]), action_masks=mask[None])
            probs = dist.distribution.probs.numpy()[0]
        z = net.legal_logits(obs, legal)
        expected = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        assert np.allclose(probs[legal], expected, atol=1e-5) and probs[~mask].sum() < 1e-6
        combat.act(combat.legal_view()[int(np.argmax(expected))])


def test_the_value_warm_up_leaves_the_cloned_policy_and_ppo_then_changes_it(tmp_path: Path) -> None:
    ruleset = "moonlit"
    layers = _random_layers(ruleset, (16,), seed=1)
    encounters = [load_encounter("moonlit/duel")]
    fingerprint = layout_fingerprint(ruleset)[0]
    args = PPOStageArgs(64, value_warmup=64, n_steps=64, batch_size=32, snapshot_every=10_000, lr=1e-3)
    frozen, record = ppo_stage(ruleset, fingerprint, layers, encounters, tmp_path / "a", args, lambda line: None)
    assert record["steps"] == 64
    for (w, b), (w2, b2) in zip(layers, frozen):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    args = PPOStageArgs(128, value_warmup=64, n_steps=64, batch_size=32, snapshot_every=64, lr=1e-3)
    moved, record = ppo_stage(ruleset, fingerprint, layers, encounters, tmp_path / "b", args, lambda line: None)
    assert record["steps"] == 128 and record["snapshots"] == 3  # the cloned start and two during the run
    assert any(not np.allclose(w, w2) for (w, _), (w2, _) in zip(layers, moved))


def test_train_system_with_ppo_steps_writes_a_policy_that_beats_random(tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "train", "moonlit", "--games", "6", "--epochs", "5", "--ppo-steps", "256",
                        "--value-warmup", "128", "--n-steps", "128", "--batch-size", "64", "--snapshot-every", "128",
                        "--eval-games", "0", "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    model = run / "ppo-moonlit.npz"
    card = json.loads((run / "ppo-moonlit.json").read_text())
    assert card["ppo"]["steps"] == 256 and card["ppo"]["fps"] > 0 and card["ppo"]["episodes"] > 0
    assert "--ppo-steps 256" in card["command"] and "MaskablePPO" in card["recipe"]
    assert sorted(p.name for p in (run / "pool").iterdir()) == ["step-0.npz", "step-128.npz", "step-256.npz"]
    assert "PPO: 256 steps" in (run / "ppo-moonlit.md").read_text()
    result = evaluate_policy("moonlit", model, "moonlit/duel", "random", 30)
    assert result["interval"][0] > 0.5, result  # better than random beyond doubt (Wilson lower bound)
    agent = make_agent(f"ppo:model={model}", "moonlit", seed=0)
    combat = Combat(load_encounter("moonlit/skirmish"), seed=0)
    assert combat.is_legal(agent.act(combat))


def test_init_needs_ppo_steps_and_a_model_file(tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "train", "moonlit", "--init", str(tmp_path / "none.npz"), "--ppo-steps", "10"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--init: no model file" in r.stderr and "Traceback" not in r.stderr, r.stderr
    r = subprocess.run([*CLI, "train", "moonlit", "--init", str(tmp_path / "none.npz")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "give --rounds or --ppo-steps too" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr



def test_ppo_on_plays_the_named_encounters_only(tmp_path: Path) -> None:
    shipped = Path(__file__).parents[2] / "agents/learned/models/ppo-moonlit.npz"
    r = subprocess.run([*CLI, "train", "moonlit", "--init", str(shipped), "--ppo-steps", "128", "--ppo-on",
                        "moonlit/duel", "--value-warmup", "64", "--n-steps", "64", "--batch-size", "64",
                        "--snapshot-every", "128", "--anchors", "random", "--eval-games", "0", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    card = json.loads((run / "ppo-moonlit.json").read_text())
    assert card["ppo"]["encounters"] == ["duel"] and card["ppo"]["steps"] == 128
    assert "--ppo-on moonlit/duel" in card["command"] and "--anchors random" in card["command"]
    # no snapshot was taken before the end: the card says the stage met random alone, not a league
    assert "steps warm-started from those weights against random on moonlit/duel" in card["recipe"], card["recipe"]
    # the DAgger rounds of the model it starts from are listed once each, none as this run's own
    start = json.loads(shipped.with_suffix(".json").read_text())
    rounds = [*start.get("dagger_before", []), *([start["dagger"]] if start.get("dagger") else [])]
    assert card["dagger_before"] == rounds and "dagger" not in card, card.get("dagger")
    text = (run / "ppo-moonlit.md").read_text()
    assert text.count("**DAgger from the model**") == len(rounds) >= 2, text


def test_ppo_on_refuses_another_system_and_needs_ppo_steps() -> None:
    r = subprocess.run([*CLI, "train", "moonlit", "--ppo-steps", "10", "--ppo-on", "kiai/duel"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--ppo-on: kiai/duel is a kiai encounter, not moonlit" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    r = subprocess.run([*CLI, "train", "moonlit", "--ppo-on", "moonlit/duel"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and "give --ppo-steps too" in r.stderr and "Traceback" not in r.stderr, r.stderr


@pytest.mark.parametrize(("option", "words"), [
    (["--ppo-steps", "10", "--ppo-on", "moonlit/duel,no/such_fight"], "no/such_fight"),
    (["--ppo-steps", "10", "--ppo-on", "kiai/duel"], "not moonlit"),
    (["--games", "2", "--teacher", "no_such_agent"], "no_such_agent"),
    (["--ppo-steps", "-5"], "--ppo-steps must be at least 1"),  # the option as typed, not the stage's field
    (["--ppo-steps", "10", "--ppo-lr", "-1"], "--ppo-lr must be a positive number"),
    (["--ppo-steps", "10", "--ppo-lr", "nan"], "--ppo-lr must be a positive number"),
    (["--ppo-steps", "10", "--shaping", "inf"], "--shaping must be a finite number"),
])
def test_a_bad_name_or_value_is_refused_before_the_run_folder_is_made(option: list[str], words: str,
                                                                      tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "train", "moonlit", *option, "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and words in r.stderr, r.stderr
    assert not list(tmp_path.iterdir()), "a refused run left a folder behind"


def _ppo_stage_from_shipped(system: str, tmp_path: Path, *options: str) -> Path:
    """A short PPO stage from the shipped policy through the CLI (64-step rollouts, random the anchor); its run."""
    shipped = Path(__file__).parents[2] / f"agents/learned/models/ppo-{system}.npz"
    r = subprocess.run([*CLI, "train", system, "--init", str(shipped), *options, "--n-steps", "64",
                        "--batch-size", "64", "--anchors", "random", "--eval-games", "0", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    return run


def test_side_keeps_the_ppo_stage_on_one_side(tmp_path: Path) -> None:
    run = _ppo_stage_from_shipped("investigator", tmp_path, "--ppo-steps", "64", "--ppo-on", "investigator/duel",
                                  "--side", "cult", "--value-warmup", "64", "--snapshot-every", "128")
    card = json.loads((run / "ppo-investigator.json").read_text())
    assert card["ppo"]["settings"]["side"] == "cult" and "--side cult" in card["command"]
    assert "as cult only" in card["recipe"]


def test_side_refuses_a_side_an_encounter_lacks_and_needs_ppo_steps() -> None:
    r = subprocess.run([*CLI, "train", "investigator", "--ppo-steps", "64", "--ppo-on", "investigator/duel",
                        "--side", "wanderers", "--init", "agents/learned/models/ppo-investigator.npz"],
                       capture_output=True, text=True, timeout=120, cwd=Path(__file__).parents[2])
    assert r.returncode == 2 and "--side: duel has no side 'wanderers' (its sides: investigators, cult" in r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    r = subprocess.run([*CLI, "train", "investigator", "--side", "cult"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "give --ppo-steps too" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_drawn_episode_costs_the_draw_penalty(tmp_path: Path) -> None:
    import yaml

    from trpg_arena.envs.gym_env import TrpgArenaEnv
    from trpg_arena.experiments.policy_ppo import EncounterMix

    duel = yaml.safe_load((Path(__file__).parents[2] / "rules/kiai/encounters/duel.yaml").read_text())
    duel.update(encounter="one_round_duel", round_cap=1)  # over after one round: a draw unless someone falls
    path = tmp_path / "one_round_duel.yaml"
    path.write_text(yaml.safe_dump(duel))
    for penalty in (0.0, 0.25):
        env = EncounterMix([TrpgArenaEnv("kiai", encounter=str(path), side="both")], draw_penalty=penalty)
        env.reset(seed=1)
        rng = np.random.default_rng(0)
        while True:
            _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            if terminated or truncated:
                break
        assert info["result"] == "draw" and reward == -penalty


def test_draw_penalty_is_refused_out_of_range_and_without_ppo_steps() -> None:
    r = subprocess.run([*CLI, "train", "kiai", "--ppo-steps", "64", "--draw-penalty", "2"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--draw-penalty must lie between 0 and 1" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    r = subprocess.run([*CLI, "train", "kiai", "--draw-penalty", "0.5"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "give --ppo-steps too" in r.stderr and "Traceback" not in r.stderr, r.stderr


@pytest.mark.parametrize("option", [["--draw-penalty", "0.5"], ["--ppo-on", "moonlit/duel"], ["--ppo-steps", "10"],
                                    ["--games", "3"], ["--teacher", "trained"]])
def test_a_policy_option_given_with_an_encounter_is_refused_not_ignored(option: list[str], tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "train", "moonlit/duel", "--steps", "8", *option, "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert f"{option[0]} is read only when training a rule system's ppo policy" in r.stderr, r.stderr
    assert not list(tmp_path.iterdir()), "nothing was trained"


def test_the_card_names_the_opponents_the_ppo_stage_met() -> None:
    from trpg_arena.experiments.policy_ppo import PPOStageArgs
    from trpg_arena.experiments.policy_train import league_opponents

    assert league_opponents(PPOStageArgs(4096, anchors=("random",), snapshot_every=10_000), 4096) == "random"
    assert league_opponents(PPOStageArgs(40_000, anchors=("random", "scripted"), latest=0.0, snapshot_every=10_000),
                            40_000) == "a league of its earlier snapshots and random, scripted"
    assert "the latest snapshot in 50% of episodes" in league_opponents(
        PPOStageArgs(40_000, anchors=("scripted",), latest=0.5, snapshot_every=10_000), 40_000)


def test_generated_in_ppo_on_keeps_each_entrys_share_over_several_layouts() -> None:
    from trpg_arena.experiments.policy_train import GENERATED_PER_NAME, ppo_mix

    named = ppo_mix("moonlit", ("moonlit/duel", "moonlit/duel", "moonlit/skirmish"), seed=5)
    assert [e.encounter for e in named] == ["duel", "duel", "moonlit_alley"]  # the skirmish file's own name
    mix = ppo_mix("moonlit", ("moonlit/duel", "moonlit/duel", "generated"), seed=5)
    assert len(mix) == 3 * GENERATED_PER_NAME
    duels = [e for e in mix if e.encounter == "duel"]
    generated = [e for e in mix if e.encounter.startswith("generated_")]
    assert len(duels) == 2 * GENERATED_PER_NAME and len(generated) == GENERATED_PER_NAME
    assert len({e.encounter for e in generated}) == GENERATED_PER_NAME, "each a layout of its own"
    assert [e.encounter for e in ppo_mix("moonlit", ("generated",), seed=5)] == [e.encounter for e in generated]


def test_checkpoints_are_kept_midway_outside_the_leagues_pool(tmp_path: Path) -> None:
    run = _ppo_stage_from_shipped("moonlit", tmp_path, "--ppo-steps", "128", "--ppo-on", "moonlit/duel,generated",
                                  "--checkpoint-every", "64", "--value-warmup", "0", "--snapshot-every", "100000")
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["step-128.npz", "step-64.npz"]
    assert [p.name for p in (run / "pool").iterdir()] == ["step-0.npz"], "checkpoints are no league opponents"
    midway = PolicyNet.load(run / "checkpoints" / "step-64.npz")
    final = PolicyNet.load(run / "ppo-moonlit.npz")
    assert midway.fingerprint == final.fingerprint and midway.meta["steps"] == 64
    card = json.loads((run / "ppo-moonlit.json").read_text())
    assert "duel" in card["ppo"]["encounters"], card["ppo"]["encounters"]
    assert any(name.startswith("generated_") for name in card["ppo"]["encounters"]), card["ppo"]["encounters"]
    assert card["ppo"]["settings"]["checkpoint_every"] == 64


def test_checkpoint_every_with_a_system_needs_ppo_steps(tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "train", "moonlit", "--checkpoint-every", "64", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "--checkpoint-every with a rule system's id keeps the PPO stage's policies" in r.stderr, r.stderr
