"""Subprocess smoke tests of every ``trpg-arena`` command, and located errors for bad input."""

from __future__ import annotations

import json
import os
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


def _one_side(data: dict) -> None:
    for c in data["combatants"]:
        c["side"] = data["combatants"][0]["side"]
    data.pop("controllers", None)


BAD = {
    "missing_field": (lambda d: d["combatants"][0].pop("id"), "combatants[0].id"),
    "wrong_type": (lambda d: d["combatants"][0].__setitem__(_first_combatant_key(d, int), "lots"), "combatants[0]"),
    "unknown_ruleset": (lambda d: d.__setitem__("ruleset", "nosuchgame"), "ruleset"),
    "combatants_not_a_list": (lambda d: d.__setitem__("combatants", 5), "combatants"),
    "unknown_skill_or_item": (_unknown_skill, "combatants[0]"),
    "one_side": (_one_side, "at least two sides"),
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


@pytest.mark.parametrize("rid", SYSTEMS)
def test_a_repeated_combatant_id_is_one_kernel_message(tmp_path: Path, rid: str) -> None:
    """Every system refuses a roster naming one id twice with the same located sentence (the kernel's check)."""
    from trpg_arena.rules import RULESETS

    data = yaml.safe_load((RULESETS[rid].info.data_dir / "encounters" / "skirmish.yaml").read_text())
    first = data["combatants"][0]["id"]
    data["combatants"][1]["id"] = first
    p = tmp_path / "twice.yaml"
    p.write_text(yaml.safe_dump(data), encoding="utf-8")
    r = run("validate", str(p))
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert f"combatants[1] (id '{first}').id" in r.stderr, r.stderr
    assert f"id '{first}' is used twice (also combatants[0])" in r.stderr, r.stderr


@pytest.mark.parametrize(("section", "where"), [("reinforcements", "reinforcements[0].combatants[0].id"),
                                                ("vehicles", "vehicles[0].id")])
def test_a_reinforcement_or_vehicle_repeating_an_id_is_the_same_kernel_message(tmp_path: Path, section: str,
                                                                               where: str) -> None:
    """Reincarnator's other named entries (reinforcements, vehicles) are checked by the kernel, worded alike."""
    from trpg_arena.rules import RULESETS

    data = yaml.safe_load((RULESETS["reincarnator"].info.data_dir / "encounters" / "skirmish.yaml").read_text())
    first = data["combatants"][0]["id"]
    if section == "reinforcements":
        data["reinforcements"] = [{"round": 2, "combatants": [{**data["combatants"][1], "id": first}]}]
    else:
        data["vehicles"][0]["id"] = first
    p = tmp_path / "twice.yaml"
    p.write_text(yaml.safe_dump(data), encoding="utf-8")
    r = run("validate", str(p))
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert where in r.stderr and f"id '{first}' is used twice (also combatants[0])" in r.stderr, r.stderr


@pytest.mark.parametrize("command", ["validate", "play"])
def test_broken_yaml_names_the_line(tmp_path: Path, command: str) -> None:
    p = tmp_path / "broken.yaml"
    p.write_text("ruleset: moonlit\ncombatants:\n  - id: [unclosed\n", encoding="utf-8")
    r = run(command, str(p))
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert str(p) in r.stderr and "line" in r.stderr


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_file_nested_a_thousand_levels_deep_is_one_line(tmp_path: Path, suffix: str) -> None:
    p = tmp_path / f"deep{suffix}"
    p.write_text('{"ruleset": "moonlit", "x": ' + "[" * 1000 + "]" * 1000 + "}", encoding="utf-8")
    r = run("validate", str(p))
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert str(p) in r.stderr and "nested too deep" in r.stderr


def test_unknown_builtin_and_missing_file(tmp_path: Path) -> None:
    r = run("play", "nosuchgame/duel")
    assert r.returncode != 0 and "Traceback" not in r.stderr and "nosuchgame" in r.stderr
    r = run("validate", str(tmp_path / "nope.yaml"))
    assert r.returncode != 0 and "no such file" in r.stderr


def test_bench_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    log = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}  # as a CI log: no terminal size
    r = subprocess.run([*CLI, "bench", "--seconds", "0.2", "--systems", SYSTEMS[0], "--out", str(out)],
                       capture_output=True, text=True, timeout=600, env=log)
    assert r.returncode == 0, r.stderr
    rows = json.loads(out.read_text())["rows"]
    assert rows[0]["target"] == "pettingzoo/connect_four_v3"
    assert {r["mode"] for r in rows} == {"env", "engine", "aec", "clone"} and all(r["per_second"] > 0 for r in rows)
    # read from a log (stdout is a pipe here) the table is whole: rich cut it to 80 columns, numbers too ("28,3…")
    assert "…" not in r.stdout
    c4 = next(line.split() for line in r.stdout.splitlines() if line.strip().startswith("pettingzoo/"))
    first = rows[0]
    assert c4[:3] == ["pettingzoo/connect_four_v3", first["mode"], first["agent"]] and c4[5] == "1.00", c4
    # the whole figures (the JSON keeps them rounded to its own digits: a half may round the other way)
    shown = [float(n.replace(",", "")) for n in c4[3:5]]
    assert all(abs(a - b) <= 1 for a, b in zip(shown, [first["per_second"], first["steps_per_second"]])), c4


def test_bench_on_the_cpu_clock_and_a_wrong_clock(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    r = run("bench", "--seconds", "0.1", "--systems", SYSTEMS[0], "--search", "", "--clock", "cpu", "--out", str(out))
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert data["clock"] == "cpu" and "CPU s each" in r.stdout
    env = next(row for row in data["rows"] if row["mode"] == "env")
    assert env["steps_per_second"] > 0 and env["per_second"] >= env["steps_per_second"]
    r = run("bench", "--clock", "sundial", "--out", str(out))
    assert r.returncode != 0 and "Traceback" not in r.stderr and "--clock must be wall or cpu" in r.stderr


def test_bench_times_the_search_on_the_clock_asked_for(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    r = run("bench", "--seconds", "0.1", "--systems", SYSTEMS[0], "--search", "easy", "--clock", "cpu", "--out",
            str(out))
    assert r.returncode == 0, r.stderr
    assert "(cpu clock: CPU time of this process)" in " ".join(r.stdout.split())  # however the lines wrap
    latency = json.loads(out.read_text())["latency"]
    assert latency and all(row["agent"] == "mcts:easy" and 0 < row["p50"] <= row["p95"] for row in latency)


def test_evaluate_writes_files_and_plot(tmp_path: Path) -> None:
    # agents that differ: a mirror line-up plays a fresh seed per game, so it has no seed pairs
    r = run("evaluate", f"{SYSTEMS[0]}/duel", "--agents", "random,scripted", "--games", "4", "--out", str(tmp_path),
            "--workers", "1")
    assert r.returncode == 0, r.stderr
    (folder,) = tmp_path.iterdir()
    res = json.loads((folder / "summary.json").read_text())
    assert res["a_wins"] + res["b_wins"] + res["draws"] == 4 and res["encounter"] == f"{SYSTEMS[0]}/duel"
    assert (folder / "winrate.png").stat().st_size > 0 and len((folder / "results.jsonl").read_text().splitlines()) == 4
    assert (folder / "report.html").exists() and (folder / "report.md").exists()
    # the head to head in the terms strength is judged by: decided games, their interval, points, seed pairs
    decided = res["a_wins"] + res["b_wins"]
    assert res["a_points"] == (res["a_wins"] + res["draws"] / 2) / 4 and res["seed_pairs"]["pairs"] == 2
    if decided:
        assert res["a_decided_share"] == round(res["a_wins"] / decided, 4)
    assert f"{res['agent_a']} against {res['agent_b']}: " in (folder / "report.md").read_text()
    assert res["verdict"] in " ".join(r.stderr.split())


@pytest.mark.slow
def test_train_writes_a_run_folder_that_plays_and_refuses_other_layouts(tmp_path: Path) -> None:
    rid = SYSTEMS[0]
    args = ("train", f"{rid}/duel", "--steps", "512", "--envs", "2", "--eval-every", "256", "--eval-games", "2",
            "--checkpoint-every", "256", "--out", str(tmp_path))
    r = run(*args)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout[r.stdout.index("{"):])
    run_dir = Path(out["run"])
    card = json.loads((run_dir / "model.json").read_text())
    assert card["ruleset"] == rid and card["steps"] >= 512 and card["fps"] > 0 and card["layout"]["actions"] > 0
    assert [e["steps"] for e in card["evaluations"]][-1] == card["steps"] and len(card["evaluations"]) >= 2
    for name in ("model.zip", "curve.png", "eval.png", "eval.csv", "curve.csv"):
        assert (run_dir / name).stat().st_size > 0, name
    assert list((run_dir / "checkpoints").glob("step-*.zip")) and list((run_dir / "tb").rglob("events.*"))
    assert "--envs 2" in card["command"]
    model = run_dir / "model.zip"
    r = run("play", f"{rid}/duel", "--agents", f"policy:{model},random", "--quiet")
    assert r.returncode == 0, r.stderr[-3000:]
    # the canonical layout: the duel's model plays the skirmish too, and either side
    assert card["layout"]["kind"] == "canonical"
    r = run("play", f"{rid}/skirmish", "--agents", f"policy:{model},random", "--quiet")
    assert r.returncode == 0, r.stderr[-3000:]
    r = run("evaluate", f"{rid}/duel", "--agents", f"policy:{model},random", "--games", "2", "--workers", "1",
            "--out", str(tmp_path / "eval"))
    assert r.returncode == 0, r.stderr[-3000:]
    # a card of another layout version is refused in one line, wherever it is asked to play
    stale = tmp_path / "stale"
    stale.mkdir()
    (stale / "model.zip").write_bytes(model.read_bytes())
    (stale / "model.json").write_text(json.dumps({**card, "layout": {**card["layout"], "fingerprint": "0" * 16}}))
    r = run("play", f"{rid}/duel", "--agents", f"policy:{stale / 'model.zip'},random", "--quiet")
    assert r.returncode == 2 and "canonical layout" in r.stderr and "Traceback" not in r.stderr
    # a second run never overwrites the first; a checkpoint resumes
    checkpoint = sorted((run_dir / "checkpoints").glob("*.zip"))[0]
    r = run("train", f"{rid}/duel", "--steps", "256", "--resume", str(checkpoint), "--eval-games", "1",
            "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    again = json.loads(r.stdout[r.stdout.index("{"):])
    assert again["run"] != out["run"] and again["steps"] > 256 and model.exists()


def test_play_option_overrides_are_validated() -> None:
    rid = "moonlit" if "moonlit" in SYSTEMS else SYSTEMS[0]
    if rid == "moonlit":
        r = run("play", "moonlit/duel", "--quiet", "--option", "moon_round_cap=1", "--option", "moon_blocking=off")
        assert r.returncode == 0 and "after 1 rounds" in r.stdout, r.stderr
        r = run("play", "moonlit/duel", "--quiet", "--option", "moon_round_cap=0")
        assert r.returncode != 0 and "options.moon_round_cap" in r.stderr and "Traceback" not in r.stderr
    r = run("play", f"{rid}/duel", "--option", "nonsense")
    assert r.returncode != 0 and "flag=value" in r.stderr


def test_regress_records_then_refuses_a_baseline_of_another_line_up(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    rid = SYSTEMS[0]
    r = run("regress", f"{rid}/duel", "--agents", "random,random", "--games", "40", "--baseline", str(base), "--record",
            "--out", str(tmp_path / "runs"))
    assert r.returncode == 0 and base.exists(), r.stderr
    r = run("regress", f"{rid}/duel", "--agents", "random,random", "--baseline", str(base),
            "--out", str(tmp_path / "r"))
    assert r.returncode == 0, r.stdout  # the same seeds replay the same games: no shift
    r = run("regress", f"{rid}/duel", "--agents", "random,first", "--baseline", str(base),
            "--out", str(tmp_path / "r"))
    assert r.returncode == 3 and "line-up (random,random -> random,first)" in " ".join(r.stderr.split()), r.stderr


def test_tournament_writes_matrix_ratings_and_plot(tmp_path: Path) -> None:
    r = run("tournament", f"{SYSTEMS[0]}/duel", "--agents", "random,first", "--games", "4", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    (folder,) = tmp_path.iterdir()
    res = json.loads((folder / "ratings.json").read_text())
    assert set(res["ratings"]) == {"random", "first"} and res["encounter"] == f"{SYSTEMS[0]}/duel"
    assert (folder / "matrix.png").stat().st_size > 0 and (folder / "matrix.csv").exists()
    # progress as plain lines on stderr (not a terminal); stdout stays one JSON document
    assert f"{SYSTEMS[0]}/duel [random,first]: started, 4 games to go" in r.stderr and json.loads(r.stdout)["ratings"]


def test_bradley_terry_ratings_order_the_agents() -> None:
    from trpg_arena.experiments.tournament import fit_ratings

    score = {("a", "b"): (8.0, 10), ("b", "a"): (2.0, 10), ("a", "c"): (9.0, 10), ("c", "a"): (1.0, 10),
             ("b", "c"): (6.0, 10), ("c", "b"): (4.0, 10)}
    r = fit_ratings(["a", "b", "c"], score)
    assert r["a"] > r["b"] > r["c"] and abs(sum(r.values()) / 3 - 1500) < 1


@pytest.mark.parametrize("command", ["evaluate", "tournament", "ladder"])
@pytest.mark.parametrize(("option", "words"), [(["--workers", "0"], "--workers must be at least 1, got 0"),
                                               (["--workers", "1000000"], "at most 256 processes on one machine"),
                                               (["--backend", "nosuch"], "unknown backend 'nosuch'")])
def test_a_bad_backend_or_worker_count_leaves_no_run_folder(command: str, option: list[str], words: str,
                                                            tmp_path: Path) -> None:
    out = tmp_path / "runs"
    r = run(command, "kiai/duel", "--agents", "random,scripted", "--games", "2", *option, "--out", str(out))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert r.stderr.strip() == f"error: {words}" or words in r.stderr, r.stderr
    assert not out.exists(), "a refused run left a folder behind (its --resume hint pointing at nothing)"


@pytest.mark.parametrize(("args", "words"), [
    (["play", "kiai/duel", "--seed", "abc"], "Invalid value for '--seed'"),
    (["demo", "--npc", "x"], "No such option: --npc"),
    (["play"], "Missing argument 'encounter'"),
    (["tournament", "kiai/duel", "--agents", "random"], "a tournament needs at least two agents"),
    (["serve", "--port", "99999"], "--port must be 0-65535, got 99999"),
])
def test_a_bad_option_is_one_line_naming_the_commands_help(args: list[str], words: str) -> None:
    r = run(*args)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr  # no usage block, no box
    assert lines[0].startswith("error: ") and words in lines[0], lines
    assert lines[0].endswith(f" {args[0]} --help')") and "(see '" in lines[0], lines


@pytest.mark.parametrize(("command", "line"), [
    (["play", "moonlit/duel"], "Input should be greater than or equal to 0"),
    (["evaluate", "moonlit/duel", "--games", "2"], "Input should be greater than or equal to 0"),
    (["tournament", "moonlit/duel", "--agents", "random,first", "--games", "2"], "greater than or equal to 0"),
    (["autopilot", "moonlit/duel", "--db", "s.db"], "Input should be greater than or equal to 0"),
    (["selfplay", "moonlit", "--games", "2", "--out", "p.npz"], "Input should be greater than or equal to 0"),
    (["train", "moonlit/duel", "--steps", "100"], "--seed must lie between 0 and 4294967295"),
    (["train", "moonlit", "--games", "1"], "--seed must lie between 0 and 4294967295"),
])
def test_a_negative_seed_is_one_line_before_any_folder(tmp_path: Path, command: list[str], line: str) -> None:
    # numpy's "expected non-negative integer" came after the run folder was made (evaluate, tournament), SB3's range
    # after the training folder; every --seed now takes 0..2**32-1, as the server and MCP do
    r = run(*command, "--seed", "-3", *(["--out", "runs"] if command[0] in ("evaluate", "tournament", "train") else []),
            cwd=tmp_path)
    assert r.returncode == 2 and line in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not list(tmp_path.iterdir())


def test_an_encounter_name_holding_markup_is_printed_as_written(tmp_path: Path) -> None:
    """`validate` read an encounter's name as Rich markup: ``dd[/x]`` was a MarkupError traceback."""
    from trpg_arena.rules import load_encounter

    data = load_encounter("moonlit/duel").model_dump(mode="json")
    data["encounter"] = "dd[/x] [red]"
    path = tmp_path / "named.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    r = run("validate", str(path))
    assert r.returncode == 0 and "encounter 'dd[/x] [red]'" in r.stdout, r.stdout + r.stderr
    r = run("play", str(path), "--seed", "1")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr


@pytest.mark.parametrize(("name", "words"), [("", "no encounter named (an empty name)"),
                                             (".", "a folder, not an encounter file")])
def test_an_empty_encounter_name_or_a_folder_is_named_as_such(name: str, words: str) -> None:
    """`play ""` said ".: cannot read the file: Is a directory"."""
    r = run("play", name)
    assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_validate_checks_the_agents_an_encounters_controllers_name(tmp_path: Path) -> None:
    """`validate` said ok to `controllers: {B: mcts:simulations=0}`, which every table then refused."""
    from trpg_arena.rules import load_encounter

    data = load_encounter("moonlit/duel").model_dump(mode="json")
    data["controllers"] = {"B": "mcts:simulations=0"}
    path = tmp_path / "controlled.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    r = run("validate", str(path))
    text = " ".join(r.stderr.split())
    assert r.returncode == 1 and "field 'controllers.B': agent 'mcts': simulations must be 1..100000" in text, text


def test_an_option_given_true_for_a_number_is_refused() -> None:
    """`--option moon_round_cap=true` played with a round cap of 1."""
    r = run("play", "moonlit/duel", "--option", "moon_round_cap=true", "--quiet")
    assert r.returncode == 2 and "options.moon_round_cap': a number, not true or false" in r.stderr, r.stderr
