"""The template is a whole rule system: a renamed copy in a temporary folder registers and passes the suites.

Exactly what docs/writing-a-rule-system.md tells a newcomer to do: copy ``rules/_template`` under a new
name and make its encounters (and recorded playthroughs) name the new id; nothing outside the folder
changes. The copy is found through ``TRPG_ARENA_RULES_PATH``; the registry-driven conformance, env and
golden suites then run on it in a fresh interpreter.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import trpg_arena.rules

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = Path(trpg_arena.rules.__file__).parent / "_template"
SUITES = ["tests/conformance", "tests/envs/test_envs.py", "tests/golden"]


def copy_as(name: str, into: Path) -> Path:
    """The template copied to `into/name`, its encounters and golden headers naming the new id."""
    folder = into / name
    shutil.copytree(TEMPLATE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for path in [*folder.glob("encounters/*.yaml"), *folder.glob("golden/*.jsonl")]:
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"^ruleset: template$", f"ruleset: {name}", text, flags=re.M)
        path.write_text(text.replace('"encounter": "template/', f'"encounter": "{name}/'), encoding="utf-8")
    return folder


def test_a_renamed_copy_registers_and_passes_the_registry_suites(tmp_path: Path) -> None:
    copy_as("mygame", tmp_path)
    env = {**os.environ, "TRPG_ARENA_RULES_PATH": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-W", "ignore",
                          "-k", "mygame and not renamed_copy", *SUITES], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=900)
    tail = run.stdout[-3000:] + run.stderr[-2000:]
    assert run.returncode == 0, tail
    passed = re.search(r"(\d+) passed", run.stdout)
    assert passed and int(passed.group(1)) >= 30, tail  # every suite ran on it, not a handful of tests
    assert "failed" not in run.stdout and " error" not in run.stdout, tail
