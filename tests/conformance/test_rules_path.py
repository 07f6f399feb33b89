"""Rule-system folders the registry cannot take are refused at the command line, naming the folders.

The id is the folder's name, so a folder named like no id, two folders of one name, or a copy that still
registers its original's id would otherwise register a system no encounter can open, or leave one silently
unused; a ``TRPG_ARENA_RULES_PATH`` that names no folder of systems is said where the system is not found.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance.test_template import ROOT, copy_as

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]
ID_FORM = "lowercase letters, digits and underscores, starting with a letter"


def cli(rules_path: Path | str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TRPG_ARENA_RULES_PATH": str(rules_path), "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "400"}
    return subprocess.run([*CLI, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("folder", "suggested"), [("my-game", "my_game"), ("MyGame", "mygame")],
                         ids=["hyphen", "capitals"])  # ids unlike the copy's: test_template.py selects by "mygame"
def test_a_folder_whose_name_is_no_id_is_refused_with_the_form_an_id_takes(tmp_path: Path, folder: str,
                                                                          suggested: str) -> None:
    copy_as(folder, tmp_path)
    run = cli(tmp_path, "list")
    assert run.returncode == 2, run.stdout[-2000:]
    assert f"{tmp_path / folder}" in run.stderr and ID_FORM in run.stderr, run.stderr
    assert f"'{suggested}'" in run.stderr, run.stderr


def test_a_folder_named_like_a_built_in_system_is_refused_naming_both(tmp_path: Path) -> None:
    copy_as("moonlit", tmp_path)
    run = cli(tmp_path, "list")
    assert run.returncode == 2, run.stdout[-2000:]
    assert "two rule-system folders are named 'moonlit'" in run.stderr, run.stderr
    assert str(ROOT / "rules" / "moonlit") in run.stderr and str(tmp_path / "moonlit") in run.stderr, run.stderr


def test_a_copy_that_registers_its_originals_id_is_refused_naming_both(tmp_path: Path) -> None:
    # a built-in copied under a new name whose absolute imports still register the original's system
    (tmp_path / "moonvar").mkdir()
    (tmp_path / "moonvar" / "__init__.py").write_text(
        "from trpg_arena.rules.core.system import register\n"
        "from trpg_arena.rules.moonlit.system import MoonlitSystem\n\n"
        "SYSTEM = register(MoonlitSystem())\n", encoding="utf-8")
    run = cli(tmp_path, "list")
    assert run.returncode == 2, run.stdout[-2000:]
    assert "two rule systems have the id 'moonlit'" in run.stderr, run.stderr
    assert str(ROOT / "rules" / "moonlit") in run.stderr and str(tmp_path / "moonvar") in run.stderr, run.stderr


def test_a_rules_path_naming_the_system_folder_itself_is_said_with_the_folder_to_name(tmp_path: Path) -> None:
    folder = copy_as("outer", tmp_path)
    run = cli(folder, "play", "outer/duel", "--quiet")
    assert run.returncode == 2, run.stdout[-2000:]
    said = " ".join(run.stderr.split())
    assert "no rule system 'outer'" in said and f"TRPG_ARENA_RULES_PATH={folder}" in said, said
    assert f"is itself a rule-system folder: name the folder that contains it ({tmp_path})" in said, said
    assert "CONTAIN rule-system folders" in said, said
    assert cli(tmp_path, "play", "outer/duel", "--quiet").returncode == 0  # named as said, it plays


def test_a_rules_path_that_does_not_exist_is_said(tmp_path: Path) -> None:
    run = cli(tmp_path / "nowhere", "play", "outer/duel", "--quiet")
    assert run.returncode == 2, run.stdout[-2000:]
    said = " ".join(run.stderr.split())
    assert f"{tmp_path / 'nowhere'} does not exist" in said and "TRPG_ARENA_RULES_PATH=" in said, said
