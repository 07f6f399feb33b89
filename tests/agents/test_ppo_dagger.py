"""DAgger rounds from an existing policy: `trpg-arena train SYSTEM --init MODEL --rounds N [--data-on ENC,...]`.

- The refit starts from the model's weights (with a learning rate of 0 it returns them unchanged).
- End to end through the command line: the policy plays one side of the named encounters, the teacher labels
  every decision, the refitted model differs from the one it started from, plays, and its card says what was done;
  the round prints its progress in games, and a model with a PPO stage keeps that stage's figures on the card.
- A bad ``--data-on`` and ``--init`` without ``--rounds`` or ``--ppo-steps`` are refused in one line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from trpg_arena.agents.learned.ppo import layout_fingerprint, load_policy
from trpg_arena.experiments.policy_train import PolicyTrainArgs, collect, data_encounters, fit

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]
SHIPPED = Path(__file__).parents[2] / "agents/learned/models/ppo-moonlit.npz"


def dagger_round(system: str, start: Path, encounter: str, out: Path, games: int = 2, seed: int = 0) -> Path:
    """`train SYSTEM --init START --rounds 1` on one encounter, through the command line: the model it wrote."""
    r = subprocess.run([*CLI, "train", system, "--init", str(start), "--rounds", "1", "--games", str(games),
                        "--epochs", "1", "--data-on", encounter, "--eval-games", "0", "--seed", str(seed),
                        "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    (run,) = [p for p in out.iterdir() if p.is_dir()]
    return run / f"ppo-{system}.npz"


def test_data_on_plays_the_named_encounters_in_turn_each_from_both_sides() -> None:
    args = PolicyTrainArgs("moonlit", games=9, data_on=("moonlit/duel", "moonlit/skirmish"))
    games = [e.encounter for e in data_encounters(args, seed=0)]
    assert games == ["duel", "duel", "moonlit_alley", "moonlit_alley"] * 2 + ["duel"]
    # a DAgger round's policy plays the side `game % 2`: each encounter must get both
    both_sides = {(n, s) for n in ("duel", "moonlit_alley") for s in (0, 1)}
    assert {(name, g % 2) for g, name in enumerate(games)} == both_sides


def test_generated_in_data_on_is_a_fresh_generated_encounter_at_each_of_its_turns_from_both_sides() -> None:
    args = PolicyTrainArgs("moonlit", games=8, data_on=("moonlit/duel", "generated"))
    games = data_encounters(args, seed=0)
    assert [e.encounter for e in games[:2] + games[4:6]] == ["duel"] * 4
    first, second = games[2:4], games[6:8]
    assert first[0] is first[1] and second[0] is second[1], "each generated one twice: the policy on both sides"
    assert first[0].encounter != second[0].encounter, "a new layout at each turn of `generated`"
    assert "duel" not in {first[0].encounter, second[0].encounter}
    # the same seed gives the same encounters (a run is reproduced by its command)
    again = data_encounters(args, seed=0)
    assert [e.encounter for e in again] == [e.encounter for e in games]


def test_the_refit_starts_from_the_given_weights() -> None:
    start = [(w.astype(np.float32), b.astype(np.float32)) for w, b in load_policy("moonlit", SHIPPED).layers]
    args = PolicyTrainArgs("moonlit", epochs=1, lr=0.0)
    enc = data_encounters(PolicyTrainArgs("moonlit", games=1, data_on=("moonlit/duel",)), seed=0)
    data = collect("moonlit", enc, 0.0, seed=3)
    layers, fitted = fit(data, layout_fingerprint("moonlit")[2], args, lambda line: None, start=start)
    for (w, b), (w0, b0) in zip(layers, start, strict=True):
        assert np.array_equal(w, w0) and np.array_equal(b, b0)
    assert fitted["train_decisions"] + fitted["held_out_decisions"] == len(data)


def test_dagger_rounds_from_a_model_refine_it_and_say_so_on_its_card(tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "train", "moonlit", "--init", str(SHIPPED), "--rounds", "1", "--games", "2",
                        "--epochs", "2", "--data-on", "moonlit/duel", "--eval-games", "0", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "DAgger round 1/1: 2 of 2 games" in r.stdout, r.stdout  # a slow teacher's round shows its progress
    (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    model = run / "ppo-moonlit.npz"
    card = json.loads(model.with_suffix(".json").read_text())
    assert card["dagger"]["rounds"] == 1 and card["dagger"]["encounters"] == "moonlit/duel"
    assert card["dagger"]["decisions"] > 0 and card["dagger"]["teacher"] == "scripted"
    assert f"--init {SHIPPED} --rounds 1 --games 2 --epochs 2 --teacher scripted --data-on moonlit/duel" \
        in card["command"], card["command"]
    assert "then 1 DAgger round from those weights labelled by the scripted agent" in card["recipe"], card["recipe"]
    assert "**DAgger from the model**: 1 round(s) of 2 games on moonlit/duel" in model.with_suffix(".md").read_text()
    before, after = load_policy("moonlit", SHIPPED).layers, load_policy("moonlit", model).layers
    assert any(not np.array_equal(a[0], b[0]) for a, b in zip(before, after, strict=True)), "the refit moved nothing"
    played = subprocess.run([*CLI, "evaluate", "moonlit/duel", "--agents", f"ppo:model={model},random", "--games", "2",
                             "--out", str(tmp_path / "ev")], capture_output=True, text=True, timeout=300)
    assert played.returncode == 0, played.stderr[-2000:]


def test_a_chain_of_dagger_runs_keeps_the_cloning_data_every_command_and_every_round(tmp_path: Path) -> None:
    # a second --init run from the first one's model: the card still describes the cloning at the root (not the
    # first run's DAgger games as if they were the cloning's data) and lists both runs' commands and rounds
    root = load_policy("moonlit", SHIPPED).meta
    cards = []
    start = SHIPPED
    for n, games in enumerate((2, 4)):
        start = dagger_round("moonlit", start, "moonlit/duel", tmp_path / f"r{n}", games, seed=7 + n)
        cards.append((json.loads(start.with_suffix(".json").read_text()), start.with_suffix(".md").read_text()))
    (first, _), (second, text) = cards
    cloning = root.get("init_args") or root["args"]  # the shipped model may itself come from a chain
    before = root.get("init_commands", [])
    assert second["init_args"] == cloning == first["init_args"]
    assert second["init_commands"] == [*before, root["command"], first["command"]], second["init_commands"]
    rounds = [*root.get("dagger_before", []), *([root["dagger"]] if root.get("dagger") else [])]
    assert [d["games"] for d in [*second["dagger_before"], second["dagger"]]] == [d["games"] for d in rounds] + [2, 4]
    assert f"**Data**: {cloning['games']} games of the scripted agent against itself" in text, text
    assert f"`{root['command']}`, then `{first['command']}`." in text, text
    assert text.count("**DAgger from the model**") == len(rounds) + 2 and "1 round(s) of 4 games" in text, text


def test_the_card_of_dagger_from_a_ppo_model_keeps_that_ppo_stage(tmp_path: Path) -> None:
    # the recipe names the PPO stage of the model it starts from; its steps and speed stay on the card too
    shipped = SHIPPED.with_name("ppo-kiai.npz")
    steps = load_policy("kiai", shipped).meta["ppo"]["steps"]
    model = dagger_round("kiai", shipped, "kiai/duel", tmp_path)
    card = json.loads(model.with_suffix(".json").read_text())
    assert card["init_ppo"]["steps"] == steps and "ppo" not in card
    text = model.with_suffix(".md").read_text()
    assert f"PPO (of the model it starts from): {steps:,} steps" in text, text
    assert "No PPO steps after the cloning" not in text


def test_the_card_of_a_model_two_steps_from_its_cloning_names_the_cloned_data(tmp_path: Path) -> None:
    # the shipped investigator policy is a PPO stage from a clone of `trained`; DAgger from it must still describe
    # that clone's games and teacher, not the defaults of the PPO run's arguments
    shipped = SHIPPED.with_name("ppo-investigator.npz")
    meta = load_policy("investigator", shipped).meta
    data = meta.get("init_args") or meta["args"]
    model = dagger_round("investigator", shipped, "investigator/duel", tmp_path)
    card = json.loads(model.with_suffix(".json").read_text())
    assert card["init_args"] == data
    text = model.with_suffix(".md").read_text()
    assert f"**Data**: {data['games']} games of the {data['teacher']} agent against itself" in text, text
    assert f"held-out agreement with the {data['teacher']} choice" in text, text


def test_a_dagger_round_mixes_named_and_generated_encounters_through_the_command_line(tmp_path: Path) -> None:
    model = dagger_round("moonlit", SHIPPED, "moonlit/duel,generated", tmp_path, games=4)
    card = json.loads(model.with_suffix(".json").read_text())
    assert card["dagger"]["encounters"] == "moonlit/duel, generated"
    assert "--data-on moonlit/duel,generated" in model.with_suffix(".md").read_text()


def test_data_on_and_init_without_rounds_are_refused_in_one_line(tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "train", "moonlit", "--data-on", "kiai/duel", "--games", "2", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--data-on: kiai/duel is a kiai encounter, not moonlit" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    r = subprocess.run([*CLI, "train", "moonlit", "--init", str(SHIPPED)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "give --rounds or --ppo-steps too" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    r = subprocess.run([*CLI, "train", "moonlit/duel", "--steps", "8", "--data-on", "moonlit/duel", "--out",
                        str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--data-on is read only when training a rule system's ppo policy" in r.stderr
    assert not [p for p in tmp_path.iterdir() if p.is_dir()], "nothing was trained"
