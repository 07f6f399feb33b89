"""regress: suites, baselines that carry their spec, stale ones refused, exit codes, JUnit XML, the tests."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from trpg_arena.experiments.regression import run_entry
from trpg_arena.experiments.series.sprt import Sequential, fixed_test, wilson
from trpg_arena.experiments.series.suite import SuiteError, load_suite, make_entry
from trpg_arena.rules import RULESETS

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "regress", *args], capture_output=True, text=True, timeout=600)


def flat(r: subprocess.CompletedProcess[str]) -> str:
    return " ".join((r.stdout + r.stderr).split())


def copy_of(tmp_path: Path, rid: str, name: str, old: str = "", new: str = "") -> Path:
    text = (RULESETS[rid].info.data_dir / "encounters" / f"{name}.yaml").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / f"{rid}-{name}.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_bad_baselines_are_one_line_naming_the_file_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    r = cli("kiai/duel", "--baseline", str(missing), "--out", str(tmp_path / "runs"))
    assert r.returncode == 2 and f"baseline {missing}: no such file" in flat(r) and "Traceback" not in flat(r)
    for content, words in (('{"foo": 1}', "not a trpg-arena baseline"), ("garbage", "not JSON")):
        bad = tmp_path / "bad.json"
        bad.write_text(content)
        r = cli("kiai/duel", "--baseline", str(bad), "--out", str(tmp_path / "runs"))
        assert r.returncode == 2 and f"baseline {bad}: {words}" in flat(r) and "Traceback" not in flat(r)


def test_record_without_a_baseline_file_is_refused(tmp_path: Path) -> None:
    r = cli("kiai/duel", "--record")
    assert r.returncode == 2 and "needs --baseline FILE" in r.stderr and "Traceback" not in r.stderr


def test_stale_baselines_are_refused_naming_the_difference(tmp_path: Path) -> None:
    base = tmp_path / "duel.json"
    enc = copy_of(tmp_path, "kiai", "duel")
    assert run_entry(make_entry(str(enc), ("scripted", "random"), base, games=20), record=True,
                     workers=1).status == "recorded"
    text = enc.read_text()
    enc.write_text(text.replace("    dodge: 50\n", "    dodge: 55\n", 1))
    o = run_entry(make_entry(str(enc), ("scripted", "random"), base), workers=1)
    assert o.status == "stale" and "encounter content" in o.message
    assert "combatants[0] (id 'kaede').dodge 50 -> 55" in o.message
    enc.write_text(text)
    o = run_entry(make_entry(str(enc), ("random", "scripted"), base), workers=1)
    assert o.status == "stale" and "line-up (scripted,random -> random,scripted)" in o.message
    data = json.loads(base.read_text())  # as if recorded before a rule change bumped env_version
    data["spec"]["env_version"] -= 1
    base.write_text(json.dumps(data))
    o = run_entry(make_entry(str(enc), ("scripted", "random"), base), workers=1)
    now = RULESETS["kiai"].info.env_version
    assert o.status == "stale" and f"kiai env_version ({now - 1} -> {now})" in o.message


def test_a_baseline_of_another_system_is_refused(tmp_path: Path) -> None:
    base = tmp_path / "moon.json"
    assert run_entry(make_entry("moonlit/duel", ("random", "random"), base, games=4), record=True,
                     workers=1).status == "recorded"
    o = run_entry(make_entry("kiai/duel", ("random", "random"), base), workers=1)
    assert o.status == "stale" and "moonlit/duel" in o.message and "kiai/duel" in o.message


def test_a_real_change_is_flagged_where_the_old_z_test_saw_nothing(tmp_path: Path) -> None:
    """The issue's case: the ghoul's defense 1 -> 2 cut side A's wins from 19 to 1 of 200; p was 0.188."""
    base = tmp_path / "duel.json"
    enc = copy_of(tmp_path, "moonlit", "duel")
    run_entry(make_entry(str(enc), ("scripted", "scripted"), base, games=120), record=True, workers=2)
    enc.write_text(enc.read_text().replace("    defense: 1\n", "    defense: 2\n"))
    o = run_entry(make_entry(str(enc), ("scripted", "scripted"), base, test="fixed"), allow=frozenset({"content"}),
                  workers=2)
    assert o.status == "shifted", o.message
    assert o.summary["test"]["paired"] and o.summary["test"]["metrics"]["win"]["shift"] < 0
    o = run_entry(make_entry(str(enc), ("scripted", "scripted"), base), allow=frozenset({"content"}), workers=2)
    assert o.status == "shifted" and o.summary["test"]["kind"] == "sprt" and o.summary["games_used"] <= 120


def test_a_suite_records_compares_and_writes_junit(tmp_path: Path) -> None:
    enc = copy_of(tmp_path, "kiai", "duel")
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"baselines: base\ndefaults: {{games: 40}}\nentries:\n"
                     f"  - {{encounter: {enc.name}, agents: 'scripted,random'}}\n"
                     f"  - {{encounter: kiai/duel, agents: [random, random], test: fixed, games: 30}}\n")
    entries = load_suite(suite)
    assert [e.games for e in entries] == [40, 30] and entries[0].baseline.parent == tmp_path / "base"
    r = cli(str(suite), "--record", "--out", str(tmp_path / "runs"))
    assert r.returncode == 0, flat(r)
    r = cli(str(suite), "--out", str(tmp_path / "runs"), "--junit", str(tmp_path / "j.xml"))
    assert r.returncode == 0, flat(r)
    root = ET.parse(tmp_path / "j.xml").getroot()
    assert root.tag == "testsuite" and root.get("tests") == "2" and root.get("failures") == "0"
    import yaml

    data = yaml.safe_load(enc.read_text())
    data["description"] = "changed"
    enc.write_text(yaml.safe_dump(data))
    r = cli(str(suite), "--out", str(tmp_path / "runs"), "--junit", str(tmp_path / "j.xml"))
    assert r.returncode == 3 and "description" in flat(r)
    root = ET.parse(tmp_path / "j.xml").getroot()
    assert root.get("errors") == "1" and root.find("testcase/error") is not None
    runs = list((tmp_path / "runs").iterdir())
    assert len(runs) == 3 and all((f / "junit.xml").exists() for f in runs)


def test_suite_errors_name_the_file_and_entry(tmp_path: Path) -> None:
    suite = tmp_path / "s.yaml"
    suite.write_text("entries:\n  - {encounter: kiai/duel, agents: 'a,b', test: maybe}\n")
    with pytest.raises(SuiteError, match=r"s.yaml: entries\[0\]: test must be one of sprt, fixed"):
        load_suite(suite)
    r = cli(str(suite))
    assert r.returncode == 2 and "entries[0]" in r.stderr and "Traceback" not in r.stderr


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100)
    assert 0.40 < lo < 0.41 and 0.59 < hi < 0.60
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_the_sequential_test_stops_both_ways() -> None:
    base = {"win": [1.0, 0.0] * 200, "loss": [0.0, 1.0] * 200}
    seq = Sequential(delta=0.1)
    same = None
    for n in range(1, 401):
        same = seq.update({m: v[:n] for m, v in base.items()}, base, paired=True)
        if same:
            break
    assert same == "not shifted" and n < 100 and seq.trace[-1]["units"] == n
    shifted = {"win": [0.0] * 400, "loss": [1.0] * 400}
    seq = Sequential(delta=0.1)
    for n in range(1, 401):
        verdict = seq.update({m: v[:n] for m, v in shifted.items()}, base, paired=False)
        if verdict:
            break
    assert verdict == "shifted" and seq.decided.get("win-") == "H1"


def test_the_fixed_test_keeps_wins_and_draws_apart() -> None:
    # wins turned into draws: the old folded score (win + draw / 2) hardly moves; the win rate does
    base = {"win": [1.0] * 19 + [0.0] * 181, "loss": [0.0] * 200}
    new = {"win": [1.0] * 1 + [0.0] * 199, "loss": [0.0] * 200}
    assert fixed_test(new, base, paired=False, alpha=0.05)["shifted"]
    assert not fixed_test(base, base, paired=True, alpha=0.05)["shifted"]
