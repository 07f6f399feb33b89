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
from typing import Any

import pytest

import trpg_arena.rules
from tests.test_docs import rule_ids

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = Path(trpg_arena.rules.__file__).parent / "_template"
SUITES = ["tests/conformance", "tests/envs/test_envs.py", "tests/golden"]


def run_on_a_copy(script: str, into: Path) -> dict[str, Any]:
    """The JSON a Python `script` prints last, run in a fresh interpreter that finds a copy ``mygame`` in `into`."""
    copy_as("mygame", into)
    env = {**os.environ, "TRPG_ARENA_RULES_PATH": str(into), "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    return dict(json.loads(run.stdout.strip().splitlines()[-1]))


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
    played = run_on_a_copy(PLAY, tmp_path)
    assert played["outcome"] in ("A", "B", "draw"), played  # played to the end
    assert played["decisions"] > 4 and played["agent"] == "TemplateTactics", played
    assert "to hit" in played["reasons"][0], played
    assert played["first"]["verb"] == "hit" and played["legal"] >= 2, played  # the search's prior is the ranking


def test_every_import_inside_the_template_is_relative() -> None:
    # an absolute `trpg_arena.rules._template...` import makes a renamed copy use the template's code and types:
    # the copy still plays, but `make lint` (mypy) fails on it
    absolute = [f"{path.name}:{n}: {line.strip()}" for path in sorted(TEMPLATE.glob("*.py"))
                for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if re.search(r"\btrpg_arena\.rules\._template\b", line)]
    assert not absolute, "absolute imports of the template itself:\n" + "\n".join(absolute)


def test_a_renamed_copy_type_checks(tmp_path: Path) -> None:
    # `make lint` on a checkout with the copy: mypy reads the package through a view of links, here one whose
    # rules/ holds the copy beside the built-in systems
    pytest.importorskip("mypy")
    view = tmp_path / "view" / "trpg_arena"
    (view / "rules").mkdir(parents=True)
    (view / "__init__.py").write_text("", encoding="utf-8")
    for top in ("agents", "table", "envs", "experiments", "server"):
        (view / top).symlink_to(ROOT / top)
    for entry in TEMPLATE.parent.iterdir():
        if entry.name != "__pycache__":
            (view / "rules" / entry.name).symlink_to(entry)
    copy_as("mygame", view / "rules")
    env = {**os.environ, "MYPYPATH": str(tmp_path / "view")}
    run = subprocess.run([sys.executable, "-m", "mypy", "-p", "trpg_arena.rules.mygame", "--cache-dir",
                          str(tmp_path / "cache")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "rules/mygame" not in run.stdout, run.stdout[-3000:]


def test_the_template_cites_its_rules_in_the_form_the_checks_see() -> None:
    # the rules-page check and the coverage tool see only dotted ids (PREFIX-1.1): `TPL-1` would be invisible
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(TEMPLATE.glob("*.py")))
    assert rule_ids(text, "TPL") == {"TPL-1.1", "TPL-1.2", "TPL-1.3"}
    assert not re.findall(r"\bTPL-\d+\b(?!\.\d)", text)


CHECK = """
import json
from trpg_arena.rules import Combat, Dice, EncounterError
from trpg_arena.rules.core.edits import EditError, fields_of
from trpg_arena.rules.core.features import markdown

asked = []

class Named(Dice):
    def roll(self, sides, what="", *, roller="", purpose=""):
        asked.append([roller, purpose])
        return super().roll(sides, what, roller=roller, purpose=purpose)

combat = Combat("mygame/skirmish", dice=Named(5))
while not combat.over:
    combat.act(combat.legal_actions()[-1])  # a hit whenever one is legal
roster = [{"id": "ana", "side": "A", "hp": 3}, {"id": "bo", "side": "B", "hp": 3}]
started = Combat({"ruleset": "mygame", "combatants": roster,
                  "start": {"round": 5, "actor": "bo", "hp": {"ana": 1}}}, seed=1)
refused = {}
for name, section in [("start", {"start": {"hp": {"zed": 1}}}), ("start_hp", {"start": {"hp": {"ana": 9}}}),
                      ("map", {"map": {"zones": ["a", "b"]}}), ("shape", {"start": "anything at all"})]:
    try:
        Combat({"ruleset": "mygame", "combatants": roster, **section})
    except EncounterError as e:
        refused[name] = str(e)
try:
    fields_of(started, "ana")
    edits = ""
except EditError as e:
    edits = str(e)
print(json.dumps({"asked": asked, "round": started.round, "actor": started.decision.actor,
                  "hp": {v.id: v.hp for v in started.combatants}, "refused": refused, "edits": edits,
                  "features": markdown("mygame")}))
"""


def test_a_renamed_copy_names_its_rolls_honours_its_start_and_refuses_what_it_does_not_read(tmp_path: Path) -> None:
    got = run_on_a_copy(CHECK, tmp_path)
    # every roll says who rolls and what for: a table rolling by hand asks exactly that
    assert got["asked"] and all(roller and purpose for roller, purpose in got["asked"]), got["asked"]
    assert {r for r, _ in got["asked"]} <= {"ana", "cy", "dee", "bo", "ed", "fay"}, got["asked"]
    assert all(purpose.startswith("the hit on ") for _, purpose in got["asked"]), got["asked"]
    # the start section is read: round 5, bo's turn, ana down to 1 hit point
    assert (got["round"], got["actor"], got["hp"]) == (5, "bo", {"ana": 1, "bo": 3}), got
    # a section the template does not read, or a start that does not fit the roster, is refused where it is wrong
    assert "start.hp.zed" in got["refused"]["start"] and "not in the roster" in got["refused"]["start"], got
    assert "start.hp.ana" in got["refused"]["start_hp"] and "from 0 to ana's 3" in got["refused"]["start_hp"], got
    assert "field 'map': this system has no map" in got["refused"]["map"], got["refused"]
    assert "field 'start'" in got["refused"]["shape"], got["refused"]
    # GM edits: the refusal says what a system adds to support them
    assert "does not support GM edits" in got["edits"] and "`editor`" in got["edits"], got["edits"]
    assert "writing-a-rule-system.md" in got["edits"], got["edits"]
    # the features page's notes are for its readers, not the template's instructions to an author
    assert "every reach is 0" in got["features"] and "A new rule system" not in got["features"], got["features"]
