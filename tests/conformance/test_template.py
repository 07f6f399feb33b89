"""The template is a whole rule system: a renamed copy in a temporary folder registers and passes the suites.

Exactly what docs/writing-a-rule-system.md tells a newcomer to do: copy ``rules/_template`` under a new
name and make its encounters (and recorded playthroughs) name the new id; nothing outside the folder
changes. The copy is found through ``TRPG_ARENA_RULES_PATH``; the registry-driven conformance, env and
golden suites then run on it in a fresh interpreter.
"""

from __future__ import annotations

import json
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


PLAY = """
import json
from trpg_arena.agents.search.priors import prior_order
from trpg_arena.table.session import Session
from trpg_arena.agents.spec import make_agent
from trpg_arena.rules import Combat

session = Session("mygame/skirmish", seed=3, pc="scripted", npc="scripted")
session.run()
proposal = make_agent("scripted", "mygame", seed=1).propose(Combat("mygame/skirmish", seed=3))
order = prior_order(make_agent("scripted", "mygame", seed=1), Combat("mygame/skirmish", seed=3))
print(json.dumps({"outcome": session.combat.state.outcome.result, "decisions": len(session.records),
                  "agent": session.agents and type(next(iter(session.agents.values()))).__name__,
                  "reasons": proposal.reasons, "first": order[0].to_json(), "legal": len(order)}))
"""


def test_a_renamed_copy_plays_a_whole_session_with_its_own_scripted_agent(tmp_path: Path) -> None:
    # the copy's scripted agent is its own `tactics.py`, named by its RuleSystem: nothing outside the folder
    copy_as("mygame", tmp_path)
    env = {**os.environ, "TRPG_ARENA_RULES_PATH": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run([sys.executable, "-c", PLAY], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    played = json.loads(run.stdout.strip().splitlines()[-1])
    assert played["outcome"] in ("A", "B", "draw"), played  # played to the end
    assert played["decisions"] > 4 and played["agent"] == "TemplateTactics", played
    assert "to hit" in played["reasons"][0], played
    assert played["first"]["verb"] == "hit" and played["legal"] >= 2, played  # the search's prior is the ranking
