"""Agent specs: parsing, presets, parameters and the errors that list what exists."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import SYSTEMS
from trpg_arena.agents import AgentSpec, UnknownAgentError, agent_infos, make_agent
from trpg_arena.agents.spec import check_agent
from trpg_arena.rules import Combat


@pytest.mark.parametrize("text", ["scripted", "random", "mcts:simulations=400", "mcts:depth=3:simulations=2",
                                  "policy:runs/train/model.zip", "policy:C:/models/a.zip"])
def test_spec_strings_round_trip(text: str) -> None:
    spec = AgentSpec.parse(text)
    assert AgentSpec.parse(str(spec)) == spec
    assert hash(spec) == hash(AgentSpec.parse(str(spec)))


def test_policy_path_keeps_colons() -> None:
    assert dict(AgentSpec.parse("policy:C:/models/a.zip").params) == {"path": "C:/models/a.zip"}


def test_parameters_are_typed_by_the_agent() -> None:
    agent = make_agent("mcts:simulations=7:c=0.5", "moonlit", seed=1)
    assert agent.simulations == 7 and agent.c == 0.5 and agent.spec == "mcts:c=0.5:simulations=7"


@pytest.mark.parametrize(("text", "names"), [
    ("nosuch", ["random", "scripted", "mcts"]),
    ("mcts:nosuchpreset", ["presets"]),
    ("mcts:wings=3", ["simulations", "depth"]),
    ("mcts:simulations=many", ["simulations", "int", "many"]),
    ("", ["non-empty"]),
    ("policy:nonexistent.zip", ["nonexistent.zip"]),
])
def test_unknown_names_presets_and_parameters_list_what_exists(text: str, names: list[str]) -> None:
    with pytest.raises(UnknownAgentError) as e:
        make_agent(text, "moonlit", seed=0)
    for n in names:
        assert n in str(e.value)
    assert "nonexistent.zip.zip" not in str(e.value)


@pytest.mark.parametrize("rid", SYSTEMS)
def test_every_agent_is_listed_with_its_parameters(rid: str) -> None:
    infos = {i.name: i for i in agent_infos(rid)}
    assert {"random", "first", "scripted", "mcts", "policy"} <= set(infos)
    assert "simulations" in infos["mcts"].params and infos["mcts"].params["simulations"].type is int


@pytest.mark.parametrize("rid", SYSTEMS)
def test_agent_state_round_trip_continues_identically(rid: str) -> None:
    for spec in ("random", "scripted"):
        a = make_agent(spec, rid, rng=np.random.default_rng(5))
        c = Combat(f"{rid}/skirmish", seed=3)
        for _ in range(10):
            if c.over:
                break
            c.act(a.act(c))
        saved = a.get_state()
        b = make_agent(spec, rid, seed=99)
        b.set_state(saved)
        c2 = c.clone()
        for _ in range(30):
            if c.over:
                break
            x, y = a.act(c), b.act(c2)
            assert x == y
            c.act(x)
            c2.act(y)


@pytest.mark.parametrize(("text", "says"), [
    ("mcts:simulations=-1", "simulations must be 1..100000, got '-1'"),
    ("mcts:simulations=100001", "simulations must be 1..100000"),
    ("mcts:c=nan", "c must be a finite number"),
    ("mcts:c=0", "c must be > 0 and <= 100"),
    ("mcts:alpha=2", "alpha must be 0..1"),
    ("mcts:reuse=maybe", "reuse takes bool, got 'maybe'"),
    ("mcts:playout=mcts:easy", "playout must be one of scripted, random, first"),
    ("mcts:depth=2.5", "depth takes int"),
    ("random:foo=1", "agent 'random' has no parameter 'foo' (parameters: none)"),
    ("trained:samples=0", "samples must be 1..1000"),
])
def test_values_outside_an_agents_limits_are_refused_with_the_limits(text: str, says: str) -> None:
    with pytest.raises(UnknownAgentError) as e:
        check_agent(text, "kiai")
    assert says in str(e.value)
    if text.startswith("mcts"):  # the whole list, so the next try is right
        assert "simulations=200 (int, 1..100000)" in str(e.value) and "alpha=0.5 (float, 0..1)" in str(e.value)


@pytest.mark.parametrize("rid", SYSTEMS)
def test_every_number_parameter_declares_its_limits_and_every_preset_keeps_them(rid: str) -> None:
    for info in agent_infos(rid):
        for param in info.params.values():
            assert param.type not in (int, float) or param.limit is not None, (info.name, param.name)
        for preset in info.presets:
            assert check_agent(f"{info.name}:{preset}", rid) == f"{info.name}:{preset}"


@pytest.mark.parametrize(("args", "says"), [
    (["play", "moonlit/duel", "--agents", "mcts:simulations=-1,scripted"], "simulations must be 1..100000"),
    (["evaluate", "kiai/duel", "--agents", "mcts:c=nan,scripted", "--games", "2"], "c must be a finite number"),
    (["autopilot", "moonlit/duel", "--npc", "random:foo=1"], "has no parameter 'foo'"),
])
def test_the_command_line_refuses_them_in_one_line(tmp_path: Path, args: list[str], says: str) -> None:
    env = {**os.environ, "TRPG_ARENA_DB": str(tmp_path / "s.db")}
    r = subprocess.run([sys.executable, "-m", "trpg_arena.experiments.cli", *args, "--seed", "1"],
                       capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "s.db").exists() or args[0] != "autopilot"


@pytest.mark.parametrize("spec", ["random:", "scripted::", "mcts::hard", "mcts:hard:"])
def test_an_empty_part_of_a_spec_is_named_as_such(spec: str) -> None:
    """'random:' was "'' is a second preset": there is no first one."""
    with pytest.raises(UnknownAgentError, match="an empty part between or after ':'"):
        check_agent(spec, "moonlit")
