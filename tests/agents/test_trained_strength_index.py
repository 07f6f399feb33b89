"""The `trained` presets as a strength index (the re-cut of 6 December) and what its evidence stands on.

Every bar of docs/strength.md before that date was measured with the look then called `trained:normal`; it is
`trained:hard` now, and what was `trained:hard` is `trained:deadly`. These tests pin those looks by their literal
values, every parameter of the agent, so a change of a preset or of a constructor default cannot silently move
the agent the measurements describe.
"""

from __future__ import annotations

from typing import Any

import pytest

from trpg_arena.agents import make_agent
from trpg_arena.agents.spec import agent_info, register_agent, resolve
from trpg_arena.rules import RULESETS

# every parameter of the agent as `trained:normal` had it before the re-cut, where a system did not change it
BEFORE: dict[str, Any] = {
    "candidates": 5, "samples": 16, "horizon": 12, "margin": 0.01, "z": 1.5, "temperature": 0.0, "guard": 0.2,
    "reply": 0, "through": 1, "flat": 0.0, "switch": 0.0, "doubt": 0, "playouts": 0, "verify": 0, "depth": 0,
    "wide": 0, "pz": 0.0, "fresh": 0, "idle": 0.0, "foe": 0, "answer": 0, "share": 0.0,
}
# each system's own values of that `normal` (agents/learned/system_presets.py as it stood on 6 December)
OWN: dict[str, dict[str, Any]] = {
    "kiai": {"switch": 1.0, "playouts": 16, "verify": 1, "depth": 45},
    "reincarnator": {"playouts": 16, "verify": 1, "depth": 15},
    "moonlit": {"playouts": 16, "verify": 1, "depth": 100},
    "investigator": {"reply": 1, "horizon": 24},
}
# what was `trained:hard`: more candidates and samples over the same look (investigator's 16 candidates)
WIDER: dict[str, dict[str, Any]] = {rid: {"candidates": 8, "samples": 32} for rid in OWN}
WIDER["investigator"] = {"candidates": 16, "samples": 32}


def _params(agent: Any) -> dict[str, Any]:
    return {key: getattr(agent, key) for key in BEFORE}


@pytest.mark.parametrize("rid", sorted(RULESETS))
def test_hard_is_the_normal_every_bar_was_measured_with_and_deadly_the_hard_before(rid: str) -> None:
    assert set(OWN) == set(RULESETS)  # a new system gets its row here, with the values its series measured
    assert _params(make_agent("trained:hard", rid, seed=0)) == {**BEFORE, **OWN[rid]}
    assert _params(make_agent("trained:deadly", rid, seed=0)) == {**BEFORE, **OWN[rid], **WIDER[rid]}


@pytest.mark.parametrize("rid", sorted(RULESETS))
def test_a_bare_trained_is_the_full_strength_hard_with_its_overrides_on_top(rid: str) -> None:
    assert agent_info("trained", rid).default_preset == "hard"
    assert resolve("trained", rid)[1] == resolve("trained:hard", rid)[1]
    assert resolve("trained:samples=4", rid)[1] == {**resolve("trained:hard", rid)[1], "samples": 4}
    # the handicaps are asked for by name only
    assert make_agent("trained", rid, seed=0).temperature == 0


@pytest.mark.parametrize("rid", sorted(RULESETS))
def test_normal_and_easy_are_handicaps_of_hard_and_the_handicap_grows_down_the_index(rid: str) -> None:
    easy, normal, hard, deadly = (make_agent(f"trained:{p}", rid, seed=0) for p in ("easy", "normal", "hard", "deadly"))
    assert hard.temperature == deadly.temperature == 0
    assert 0 < normal.temperature <= easy.temperature
    # `normal` looks as `hard` does (the same candidates, samples and checks): only its final choice is sampled,
    # at every decision or (`share`) at some of them
    handicap = ("temperature", "guard", "share")
    assert {k: v for k, v in _params(normal).items() if k not in handicap} == \
        {k: v for k, v in _params(hard).items() if k not in handicap}


@pytest.mark.parametrize("rid", sorted(RULESETS))
@pytest.mark.parametrize("preset", ["normal", "hard", "deadly"])
def test_the_search_is_anchored_on_the_look_of_its_measurements_never_on_a_handicap(rid: str, preset: str) -> None:
    search = make_agent(f"mcts:{preset}", rid, seed=1)
    anchor = _params(search.scorer)
    assert anchor["temperature"] == 0
    pinned = {"reply": 0, "horizon": 12} if rid == "investigator" and search.pin else {}
    budget = {"candidates": search.candidates, "samples": search.samples}
    assert anchor == {**BEFORE, **OWN[rid], **pinned, **budget}


def test_bare_mcts_keeps_its_constructor_defaults() -> None:
    """`mcts` declares no default preset: `mcts:simulations=400` is the documented search built from its defaults."""
    assert agent_info("mcts", "kiai").default_preset is None
    assert resolve("mcts", "kiai")[1] == {}
    assert make_agent("mcts", "kiai", seed=0).value == "hand"


def test_a_default_preset_must_be_one_of_the_agents_presets() -> None:
    class Odd:
        def __init__(self, ruleset: str | None = None, rng: Any = None, size: str = "") -> None:
            pass

    with pytest.raises(TypeError, match="default preset 'hard'"):
        register_agent("odd_default", presets={"easy": {"size": "s"}}, default_preset="hard")(Odd)


@pytest.mark.parametrize("rid", sorted(RULESETS))
def test_the_value_models_generation_agent_is_the_easy_they_were_built_with(rid: str) -> None:
    """`train-value`'s later generations play the `easy` of the shipped models' day, whatever `easy` is now."""
    from trpg_arena.experiments.selfplay.value_train import GENERATION_AGENT

    built_with = {"candidates": 4, "samples": 4, "temperature": 0.1, "guard": 0.2, "through": 0}
    assert _params(make_agent(GENERATION_AGENT, rid, seed=0)) == {**BEFORE, **built_with}
