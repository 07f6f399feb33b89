"""Files named on the command line: a damaged model or data file is refused in one line before any run folder is
made, and a file a command is told to write is never replaced without --force.

Damaged as files get damaged: cut short by a copy that stopped, another kind of file under the name, an
archive without the model's entries.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from trpg_arena.agents.learned.model import ModelError, ValueModel, model_path
from trpg_arena.agents.learned.npz import why
from trpg_arena.agents.learned.ppo import PolicyModelError, PolicyNet, policy_path
from trpg_arena.agents.spec import UnknownAgentError, check_agent
from trpg_arena.experiments.selfplay.value_fit import load_positions

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def _damaged(tmp_path: Path) -> dict[str, Path]:
    """Files as a person may hand them over by mistake, each with the reason its refusal must give."""
    cut = tmp_path / "cut.npz"
    cut.write_bytes(policy_path("kiai").read_bytes()[:3000])
    text = tmp_path / "notes.npz"
    text.write_text("ruleset: kiai\n", encoding="utf-8")
    empty = tmp_path / "empty.npz"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("readme.txt", "no arrays here")
    return {"a damaged or cut-short .npz archive": cut, "not an .npz archive of arrays": text,
            "no 'format' entry": empty}


def test_each_way_a_model_file_is_damaged_is_one_plain_reason(tmp_path: Path) -> None:
    for reason, path in _damaged(tmp_path).items():
        with pytest.raises(PolicyModelError) as policy:
            PolicyNet.load(path)
        with pytest.raises(ModelError) as value:
            ValueModel.load(path)
        for error in (policy.value, value.value):
            assert str(error).startswith(f"{path}: not a ") and str(error).endswith(f"({reason})"), error
            assert "pickle" not in str(error)  # numpy's advice to load it unsafely is not passed on
    assert why(OSError(21, "Is a directory")) == "Is a directory"


def test_a_spec_naming_a_damaged_model_is_refused_when_checked(tmp_path: Path) -> None:
    cut = _damaged(tmp_path)
    for reason, path in cut.items():
        for name in ("ppo", "trained"):
            with pytest.raises(UnknownAgentError, match=f"agent '{name}': .*{reason}"):
                check_agent(f"{name}:model={path}", "kiai")
    with pytest.raises(UnknownAgentError, match="trained for kiai, not moonlit"):
        check_agent(f"ppo:model={policy_path('kiai')}", "moonlit")
    with pytest.raises(UnknownAgentError, match="SB3 saves a .zip archive"):
        check_agent(f"policy:{cut['not an .npz archive of arrays']}", "kiai")
    # the shipped models and a good copy pass
    assert check_agent(f"ppo:model={policy_path('kiai')}", "kiai").startswith("ppo:")
    assert check_agent(f"trained:model={model_path('kiai')}", "kiai").startswith("trained")


@pytest.mark.parametrize("command", [["evaluate", "kiai/duel", "--agents", "ppo:model={file},random", "--games", "2"],
                                     ["tournament", "kiai/duel", "--agents", "trained:model={file},random", "--games",
                                      "2"],
                                     ["ladder", "kiai/duel", "--agents", "ppo:model={file},random", "--games", "2"]])
def test_a_run_with_a_damaged_model_makes_no_folder(command: list[str], tmp_path: Path) -> None:
    cut = _damaged(tmp_path)["a damaged or cut-short .npz archive"]
    out = tmp_path / "runs"
    r = subprocess.run([*CLI, *[part.format(file=cut) for part in command], "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert r.stderr.strip().splitlines() == [f"error: agent '{command[3].split(':')[0]}': {cut}: not a "
                                             f"{'policy' if 'ppo' in command[3] else 'value'} model (a damaged "
                                             "or cut-short .npz archive)"], r.stderr
    assert not out.exists(), "a refused run left a folder behind (its --resume hint pointing at nothing)"


def test_damaged_self_play_data_is_refused_before_any_game(tmp_path: Path) -> None:
    cut = _damaged(tmp_path)["a damaged or cut-short .npz archive"]
    with pytest.raises(ValueError, match="not a self-play data file \\(a damaged or cut-short .npz archive\\)"):
        load_positions([cut])
    out = tmp_path / "value"
    r = subprocess.run([*CLI, "train-value", "kiai", "--extra", str(cut), "--out", str(out), "--data",
                        str(tmp_path / "data")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert r.stderr.strip() == f"error: {cut}: not a self-play data file (a damaged or cut-short .npz archive)"
    assert not (tmp_path / "data").exists() and not out.exists()


@pytest.mark.parametrize(("options", "words"), [(["--systems", "kiai,nosuch"], "no rule system 'nosuch'"),
                                                (["--seconds", "0"], "--seconds must be a positive number"),
                                                (["--systems", "kiai", "--search", "nosuch"],
                                                 "agent 'mcts' has no preset 'nosuch'")])
def test_bench_refuses_bad_options_before_measuring(options: list[str], words: str, tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    r = subprocess.run([*CLI, "bench", *options, "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert words in " ".join(r.stderr.split()) and "decisions/s" not in r.stdout, r.stdout + r.stderr
    assert not out.exists()


def test_extra_data_of_another_system_is_refused_and_of_its_own_pooled(tmp_path: Path) -> None:
    def selfplay(system: str) -> Path:
        path = tmp_path / f"{system}.npz"
        r = subprocess.run([*CLI, "selfplay", system, "--games", "4", "--workers", "1", "--out", str(path)],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        return path

    def train_value(extra: Path, out: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*CLI, "train-value", "kiai", "--extra", str(extra), "--games", "10", "--generated",
                               "0", "--generations", "0", "--epochs", "1", "--workers", "1", "--out", str(out),
                               "--data", str(tmp_path / "data")], capture_output=True, text=True, timeout=600)

    r = train_value(selfplay("moonlit"), tmp_path / "refused")
    assert r.returncode == 2 and "holds moonlit positions, not kiai" in " ".join(r.stderr.split()), r.stderr[-2000:]
    assert not (tmp_path / "refused").exists() and not (tmp_path / "data").exists()
    r = train_value(selfplay("kiai"), tmp_path / "value")
    assert r.returncode == 0, r.stderr[-2000:]
    card = (tmp_path / "value" / "kiai.md").read_text(encoding="utf-8")
    assert "kiai.npz" in card and (tmp_path / "value" / "kiai.npz").is_file()


@pytest.mark.parametrize("command", [["play", "kiai/duel", "--quiet", "--log"],
                                     ["selfplay", "kiai", "--games", "2", "--workers", "1"],
                                     ["features", "kiai"],
                                     ["train-fps", "kiai/duel", "--envs", "1", "--steps", "64"],
                                     ["bench", "--seconds", "0.05", "--systems", "kiai", "--search", ""]])
def test_an_existing_out_file_is_replaced_only_with_force(command: list[str], tmp_path: Path) -> None:
    mine = tmp_path / "mine.npz"
    mine.write_text("a file of mine", encoding="utf-8")
    option = [] if command[-1] == "--log" else ["--out"]
    r = subprocess.run([*CLI, *command, *option, str(mine)], capture_output=True, text=True, timeout=300,
                       cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    named = "--log" if command[-1] == "--log" else "--out"
    assert r.stderr.strip() == f"error: {named} {mine} exists: add --force to replace it, or name another file"
    assert mine.read_text(encoding="utf-8") == "a file of mine" and not (tmp_path / "runs").exists()
    if command[0] in ("play", "selfplay", "features"):  # the cheap ones: --force replaces it
        r = subprocess.run([*CLI, *command, *option, str(mine), "--force"], capture_output=True, text=True,
                           timeout=300, cwd=tmp_path)
        assert r.returncode == 0 and mine.read_bytes() != b"a file of mine", r.stderr[-2000:]


def test_bench_writes_a_new_results_file_each_run(tmp_path: Path) -> None:
    for _ in range(2):
        r = subprocess.run([*CLI, "bench", "--seconds", "0.05", "--systems", "kiai", "--search", ""],
                           capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert r.returncode == 0, r.stderr[-2000:]
    written = sorted((tmp_path / "runs" / "bench").glob("*.json"))
    assert len(written) == 2 and all(json.loads(p.read_text())["rows"] for p in written), written


def test_a_file_that_is_no_utf8_text_is_named_and_the_rest_still_checked(tmp_path: Path) -> None:
    """`validate` said only "'utf-8' codec can't decode byte 0xff" and stopped before the other files."""
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"\xff\xfe\x00")
    r = subprocess.run([*CLI, "validate", str(binary), "moonlit/duel"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert f"{binary}: not UTF-8 text (byte 0 is 0xff)" in " ".join(r.stderr.split()), r.stderr
    assert "ok moonlit/duel" in r.stdout


def test_a_run_folder_whose_settings_are_no_text_is_named_on_resume(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "spec.json").write_bytes(b"\xff\xfe\x00")
    r = subprocess.run([*CLI, "evaluate", "kiai/duel", "--agents", "scripted,random", "--games", "2", "--workers", "1",
                        "--resume", str(run)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr and f"--resume {run}: cannot read spec.json" in \
        " ".join(r.stderr.split()), r.stderr
