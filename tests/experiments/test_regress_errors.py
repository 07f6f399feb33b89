"""regress names the real cause of bad input: one line, exit 2, never a traceback nor a wrong hint."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]
KNOWN = "known: agents, alpha, baseline, beta, delta, encounter, games, seed, swap, test"


def regress(*args: str, cwd: Path) -> tuple[int, str]:
    r = subprocess.run([*CLI, "regress", *args], capture_output=True, text=True, timeout=300, cwd=cwd)
    out = " ".join((r.stdout + r.stderr).split())
    assert "Traceback" not in out
    return r.returncode, out


@pytest.mark.parametrize(("suite", "words"), [
    ("entries:\n  - {encounter: kiai/duel, agents: 'scripted,random'\n",
     "suite.yaml: broken YAML (line 3, column 1: expected ',' or '}'"),
    ("entrys:\n  - {encounter: kiai/duel, agents: 'scripted,random'}\n",
     "suite suite.yaml: unknown key(s) entrys (known: baselines, defaults, entries)"),
    ("defaults: {gamez: 10}\nentries:\n  - {encounter: kiai/duel, agents: 'scripted,random'}\n",
     f"suite suite.yaml: defaults: unknown setting(s) gamez ({KNOWN})"),
    ("entries:\n  - {encounter: kiai/duel, agents: 'scripted,random', gamez: 10}\n",
     f"suite suite.yaml: entries[0]: unknown setting(s) gamez ({KNOWN})"),
    ("baselines: 5\nentries:\n  - {encounter: kiai/duel, agents: 'scripted,random'}\n",
     "suite suite.yaml: baselines must name a folder (text, relative to the suite file), got 5"),
    ("entries:\n  - {encounter: kiai/duel, agents: 'scripted,random', swap: maybe}\n",
     "suite suite.yaml: entries[0]: swap must be true or false (leave it out: swap when the agents differ), "
     "got 'maybe'"),
    # a bad default is named where it is written, not at the first entry it reaches
    ("defaults: {delta: 2}\nentries:\n  - {encounter: kiai/duel, agents: 'scripted,random'}\n",
     "suite suite.yaml: defaults.delta: delta must lie strictly between 0 and 1, got 2"),
    ("defaults: {agents: 5}\nentries:\n  - {encounter: kiai/duel}\n",
     "suite suite.yaml: defaults.agents: agents must be 'a,b' or a list of agent specs"),
])
def test_a_bad_suite_names_its_fault(tmp_path: Path, suite: str, words: str) -> None:
    (tmp_path / "suite.yaml").write_text(suite)
    for extra in ((), ("--record",)):  # --record must not write a baseline from a bad suite either
        code, out = regress("suite.yaml", *extra, cwd=tmp_path)
        assert code == 2 and words in out, out
        assert "needs --baseline" not in out
    assert not (tmp_path / "baselines").exists()


def test_a_missing_suite_or_encounter_file_is_named(tmp_path: Path) -> None:
    code, out = regress("suite.yaml", cwd=tmp_path)
    assert code == 2 and "error: suite.yaml: no such file" in out and "--baseline" not in out
    code, out = regress("fight.json", cwd=tmp_path)
    assert code == 2 and "fight.json: no such file" in out and "--baseline" not in out


def test_a_bad_agent_spec_is_named_not_taken_for_a_missing_baseline(tmp_path: Path) -> None:
    code, out = regress("kiai/duel", "--agents", "scripted,mcts:hardd", "--baseline", "b.json", cwd=tmp_path)
    assert code == 2 and "agent 'mcts' has no preset 'hardd' (presets: easy, normal, hard, deadly)" in out
    assert "no such file" not in out


def test_games_zero_is_refused_not_ignored(tmp_path: Path) -> None:
    code, out = regress("kiai/duel", "--baseline", "b.json", "--record", "--games", "0", cwd=tmp_path)
    assert code == 2 and "--games must be from 2 to 1,000,000, got 0" in out and not (tmp_path / "b.json").exists()
    (tmp_path / "suite.yaml").write_text("entries:\n  - {encounter: kiai/duel, agents: 'scripted,random'}\n")
    code, out = regress("suite.yaml", "--record", "--games", "0", cwd=tmp_path)
    assert code == 2 and "--games must be from 2 to 1,000,000, got 0" in out
    code, out = regress("suite.yaml", "--delta", "0", cwd=tmp_path)
    assert code == 2 and "--delta must lie strictly between 0 and 1, got 0.0" in out


def test_a_stale_baseline_names_the_combatant_by_id(tmp_path: Path) -> None:
    enc = tmp_path / "duel.yaml"
    from trpg_arena.rules import RULESETS

    text = (RULESETS["moonlit"].info.data_dir / "encounters" / "duel.yaml").read_text()
    enc.write_text(text)
    code, out = regress("duel.yaml", "--baseline", "b.json", "--record", "--games", "4", cwd=tmp_path)
    assert code == 0, out
    assert json.loads((tmp_path / "b.json").read_text())["spec"]["games"] == 4
    enc.write_text(text.replace("    max_hp: 40\n", "    max_hp: 60\n"))
    code, out = regress("duel.yaml", "--baseline", "b.json", cwd=tmp_path)
    assert code == 3 and "combatants[1] (id 'ghoul').max_hp 40 -> 60" in out, out


@pytest.mark.parametrize("option", [("--workers", "0"), ("--backend", "nosuch")])
def test_a_bad_run_option_is_refused_before_any_entry_or_folder(tmp_path: Path, option: tuple[str, str]) -> None:
    # with a baseline still to record, --workers 0 went unseen: the entry failed on its missing baseline and a run
    # folder with a report of that error was written, the real fault never named
    code, out = regress("kiai/duel", "--baseline", "b.json", *option, "--out", "runs", cwd=tmp_path)
    assert code == 2 and ("--workers must be at least 1, got 0" in out or "unknown backend 'nosuch'" in out), out
    assert "no such file" not in out and not (tmp_path / "runs").exists()


@pytest.mark.parametrize(("entries", "first", "second", "file"), [
    # two encounter files of one name in two folders: the default name keeps the file name only
    (["{encounter: a/duel.yaml, agents: 'scripted,random'}", "{encounter: b/duel.yaml, agents: 'scripted,random'}"],
     "a/duel.yaml [scripted,random]", "b/duel.yaml [scripted,random]", "base/duel--scripted-random.json"),
    # one encounter and line-up at two seeds, or swapped and not
    (["{encounter: kiai/duel, agents: 'scripted,random'}",
      "{encounter: kiai/duel, agents: 'scripted,random', seed: 500, swap: false}"],
     "kiai/duel [scripted,random]", "kiai/duel [scripted,random]", "base/kiai-duel--scripted-random.json"),
])
def test_two_entries_on_one_baseline_file_are_refused_before_any_game(tmp_path: Path, entries: list[str], first: str,
                                                                    second: str, file: str) -> None:
    from trpg_arena.rules import RULESETS

    duel = (RULESETS["moonlit"].info.data_dir / "encounters" / "duel.yaml").read_text()
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "duel.yaml").write_text(duel)
    (tmp_path / "suite.yaml").write_text("baselines: base\ndefaults: {games: 4}\nentries:\n"
                                         + "".join(f"  - {e}\n" for e in entries))
    for extra in (("--record",), ()):  # recording the second entry overwrote the first entry's baseline
        code, out = regress("suite.yaml", *extra, "--out", "runs", cwd=tmp_path)
        assert code == 2, out
        assert (f"suite suite.yaml: entries[0] ({first}) and entries[1] ({second}) both use the baseline file "
                f"{file}; give one of them its own 'baseline: FILE'") in out, out
    assert not (tmp_path / "base").exists() and not (tmp_path / "runs").exists()
