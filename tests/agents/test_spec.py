"""Agent specs: parsing, presets, parameters and the errors that list what exists."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import SYSTEMS
from trpg_arena.agents import AgentSpec, UnknownAgentError, agent_infos, make_agent
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
