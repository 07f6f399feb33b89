"""Subprocess smoke tests of every ``trpg-arena`` command, and located errors for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import SYSTEMS

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def run(*args: str, cwd: Path | None = None, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=cwd, input=input, timeout=600)


def test_list_names_every_system() -> None:
    r = run("list")
    assert r.returncode == 0, r.stderr
    for rid in SYSTEMS:
        assert rid in r.stdout


@pytest.mark.parametrize("rid", SYSTEMS)
def test_play_prints_log_and_result(rid: str) -> None:
    r = run("play", f"{rid}/duel", "--agents", "random,random", "--seed", "3")
    assert r.returncode == 0, r.stderr
    assert "result:" in r.stdout and len(r.stdout.splitlines()) > 5


@pytest.mark.parametrize("rid", SYSTEMS)
def test_demo_shows_one_npc_turn_proposed_and_carried_out(rid: str) -> None:
    r = run("demo", "--ruleset", rid, "--seed", "2")
    assert r.returncode == 0, r.stderr
    assert "proposes:" in r.stdout and "confirm> (Enter)" in r.stdout and "(confirmed)" in r.stdout
    assert len(r.stdout.splitlines()) < 80  # a screen or two, not the whole log


def test_validate_accepts_builtin_files() -> None:
    from trpg_arena.rules import RULESETS

    files = [str(p) for rid in SYSTEMS for p in (RULESETS[rid].info.data_dir / "encounters").glob("*.yaml")]
    r = run("validate", *files)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("ok") == len(files)


def _mutated(tmp_path: Path, mutate) -> Path:
    from trpg_arena.rules import RULESETS

    rid = SYSTEMS[0]
    data = yaml.safe_load((RULESETS[rid].info.data_dir / "encounters" / "skirmish.yaml").read_text())
    mutate(data)
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump(data), encoding="utf-8")
    return p


def _unknown_skill(data: dict) -> None:
    key = next(k for k, v in data["combatants"][0].items() if isinstance(v, list) and v and isinstance(v[0], str))
    data["combatants"][0][key][0] = "no_such_thing"


def _first_combatant_key(data: dict, want: type) -> str:
    return next(k for k, v in data["combatants"][0].items() if isinstance(v, want) and k not in ("id", "side"))


BAD = {
    "missing_field": (lambda d: d["combatants"][0].pop("id"), "combatants[0].id"),
    "wrong_type": (lambda d: d["combatants"][0].__setitem__(_first_combatant_key(d, int), "lots"), "combatants[0]"),
    "unknown_ruleset": (lambda d: d.__setitem__("ruleset", "nosuchgame"), "ruleset"),
    "combatants_not_a_list": (lambda d: d.__setitem__("combatants", 5), "combatants"),
    "unknown_skill_or_item": (_unknown_skill, "combatants[0]"),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("command", ["validate", "play"])
def test_bad_encounter_gets_one_located_message(tmp_path: Path, case: str, command: str) -> None:
    mutate, where = BAD[case]
    p = _mutated(tmp_path, mutate)
    r = run(command, str(p))
    assert r.returncode != 0
    assert "Traceback" not in r.stderr + r.stdout
    assert str(p) in r.stderr and where in r.stderr, r.stderr


@pytest.mark.parametrize("command", ["validate", "play"])
def test_broken_yaml_names_the_line(tmp_path: Path, command: str) -> None:
    p = tmp_path / "broken.yaml"
    p.write_text("ruleset: moonlit\ncombatants:\n  - id: [unclosed\n", encoding="utf-8")
    r = run(command, str(p))
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert str(p) in r.stderr and "line" in r.stderr


def test_unknown_builtin_and_missing_file(tmp_path: Path) -> None:
    r = run("play", "nosuchgame/duel")
    assert r.returncode != 0 and "Traceback" not in r.stderr and "nosuchgame" in r.stderr
    r = run("validate", str(tmp_path / "nope.yaml"))
    assert r.returncode != 0 and "no such file" in r.stderr


def test_bench_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    r = run("bench", "--seconds", "0.2", "--systems", SYSTEMS[0], "--out", str(out))
    assert r.returncode == 0, r.stderr
    rows = json.loads(out.read_text())["rows"]
    assert rows[0]["target"] == "pettingzoo/connect_four_v3"
    assert {r["mode"] for r in rows} == {"env", "engine", "aec", "clone"} and all(r["per_second"] > 0 for r in rows)


def test_evaluate_writes_files_and_plot(tmp_path: Path) -> None:
    r = run("evaluate", f"{SYSTEMS[0]}/duel", "--agents", "random,random", "--games", "4", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    res = json.loads((tmp_path / "results.json").read_text())
    assert res["a_wins"] + res["b_wins"] + res["draws"] == 4
    assert (tmp_path / "winrate.png").stat().st_size > 0 and (tmp_path / "games.csv").exists()


@pytest.mark.slow
def test_train_writes_model_and_curve(tmp_path: Path) -> None:
    r = run("train", f"{SYSTEMS[0]}/duel", "--steps", "512", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["steps"] >= 512 and summary["fps"] > 0
    assert (tmp_path / "model.zip").exists() and (tmp_path / "curve.png").exists()
    r = run("play", f"{SYSTEMS[0]}/duel", "--agents", f"policy:{tmp_path / 'model.zip'},random", "--quiet")
    assert r.returncode == 0, r.stderr[-3000:]


def test_play_option_overrides_are_validated() -> None:
    rid = "moonlit" if "moonlit" in SYSTEMS else SYSTEMS[0]
    if rid == "moonlit":
        r = run("play", "moonlit/duel", "--quiet", "--option", "moon_round_cap=1", "--option", "moon_blocking=off")
        assert r.returncode == 0 and "after 1 rounds" in r.stdout, r.stderr
        r = run("play", "moonlit/duel", "--quiet", "--option", "moon_round_cap=0")
        assert r.returncode != 0 and "options.moon_round_cap" in r.stderr and "Traceback" not in r.stderr
    r = run("play", f"{rid}/duel", "--option", "nonsense")
    assert r.returncode != 0 and "flag=value" in r.stderr


def test_regress_records_then_flags_a_shift(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    rid = SYSTEMS[0]
    r = run("regress", f"{rid}/duel", "--agents", "random,random", "--games", "40", "--baseline", str(base), "--record")
    assert r.returncode == 0 and base.exists(), r.stderr
    r = run("regress", f"{rid}/duel", "--agents", "random,random", "--games", "40", "--baseline", str(base),
            "--seed", "500")
    assert r.returncode == 0, r.stderr  # same line-up, other seeds: no significant shift
    fake = json.loads(base.read_text())
    fake["first_side_score"] = 1.0 if fake["first_side_score"] < 0.5 else 0.0
    base.write_text(json.dumps(fake))
    r = run("regress", f"{rid}/duel", "--agents", "random,random", "--games", "40", "--baseline", str(base))
    assert r.returncode == 1 and "balance shifted" in r.stderr


def test_wilson_interval_and_p_value() -> None:
    from trpg_arena.experiments.regression import two_proportion_p, wilson

    lo, hi = wilson(50, 100)
    assert 0.40 < lo < 0.41 and 0.59 < hi < 0.60
    assert two_proportion_p(0.5, 200, 0.5, 200) == 1.0
    assert two_proportion_p(0.8, 200, 0.5, 200) < 1e-6


def test_tournament_writes_matrix_ratings_and_plot(tmp_path: Path) -> None:
    r = run("tournament", f"{SYSTEMS[0]}/duel", "--agents", "random,first", "--games", "4", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    res = json.loads((tmp_path / "ratings.json").read_text())
    assert set(res["ratings"]) == {"random", "first"}
    assert (tmp_path / "matrix.png").stat().st_size > 0 and (tmp_path / "matrix.csv").exists()


def test_bradley_terry_ratings_order_the_agents() -> None:
    from trpg_arena.experiments.tournament import fit_ratings

    score = {("a", "b"): (8.0, 10), ("b", "a"): (2.0, 10), ("a", "c"): (9.0, 10), ("c", "a"): (1.0, 10),
             ("b", "c"): (6.0, 10), ("c", "b"): (4.0, 10)}
    r = fit_ratings(["a", "b", "c"], score)
    assert r["a"] > r["b"] > r["c"] and abs(sum(r.values()) / 3 - 1500) < 1
