"""The envs' arguments as a researcher passes them: a wrong one is a located error at `make`, not at a later step.

Before, a wrong opponent was taken and failed at the first opponent decision deep in the rules, an AEC env took
another system's encounter (and read it with the wrong layout), `make(id, max_episode_steps=...)` never reached
the env's limit, and a float action was cut to an integer and played.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import trpg_arena.envs
from trpg_arena.agents import make_agent
from trpg_arena.agents.spec import AgentSpec, UnknownAgentError
from trpg_arena.envs.gym_env import TrpgArenaEnv
from trpg_arena.rules import RULESETS, InvalidActionError

MOONLIT = RULESETS["moonlit"].info.env_id  # the id carries env_version


def first_legal(info: dict[str, Any]) -> int:
    return int(np.flatnonzero(info["action_mask"])[0])


@pytest.mark.parametrize("opponent, error, words", [
    (None, TypeError, "opponent must be an agent spec"),
    (5, TypeError, "opponent must be an agent spec"),
    ("nope", UnknownAgentError, "nope"),
    ("scripted:depth=3", UnknownAgentError, "depth"),
])
def test_a_wrong_opponent_is_refused_at_make(opponent: object, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        gymnasium.make(MOONLIT, encounter="moonlit/duel", opponent=opponent)


def test_another_systems_agent_is_refused_at_make() -> None:
    with pytest.raises(ValueError, match="plays 'kiai', this env plays 'moonlit'"):
        gymnasium.make(MOONLIT, encounter="moonlit/duel", opponent=make_agent("scripted", "kiai", seed=0))


@pytest.mark.parametrize("opponent", [AgentSpec.parse("scripted"), make_agent("scripted", "moonlit", seed=0)])
def test_a_spec_object_or_an_agent_of_the_system_plays(opponent: object) -> None:
    env = gymnasium.make(MOONLIT, encounter="moonlit/duel", opponent=opponent)
    _, info = env.reset(seed=0)
    for _ in range(30):
        _, _, terminated, truncated, info = env.step(first_legal(info))
        if terminated or truncated:
            break


def test_the_aec_env_refuses_another_systems_encounter() -> None:
    trpg_arena.envs.aec_env("kiai", encounter="kiai/duel").reset(seed=0)  # compiled for kiai first
    with pytest.raises(ValueError, match="encounter is for 'kiai', this env plays 'moonlit'"):
        trpg_arena.envs.aec_env("moonlit", encounter="kiai/duel")


@pytest.mark.parametrize("make", [
    lambda: trpg_arena.envs.aec_env("moonlit", encounter="moonlit/duel", render_mode="bogus"),
    lambda: gymnasium.make(MOONLIT, render_mode="bogus"),
])
def test_an_unknown_render_mode_is_refused(make: Any) -> None:
    with pytest.raises(ValueError, match="render_mode must be None or one of ansi, rgb_array"):
        make()


def test_the_step_limit_is_gymnasiums_own() -> None:
    """The registered spec carries the limit (5,000): `make`'s `max_episode_steps` sets it, -1 lifts it."""
    env: Any = gymnasium.make(MOONLIT)
    assert env.spec.max_episode_steps == 5000 and isinstance(env, gymnasium.wrappers.TimeLimit)
    unlimited: Any = gymnasium.make(MOONLIT, max_episode_steps=-1)
    assert not isinstance(unlimited, gymnasium.wrappers.TimeLimit) and unlimited.unwrapped.illegal.max_steps is None
    assert TrpgArenaEnv("moonlit").illegal.max_steps == 5000  # built directly, the env counts itself
    with pytest.raises(ValueError, match="max_episode_steps"):
        TrpgArenaEnv("moonlit", max_episode_steps=-1)


@pytest.mark.parametrize("mode", ["lose", "penalize", "raise"])
@pytest.mark.parametrize("layout", ["canonical", "encounter"])
def test_only_integers_are_actions(mode: str, layout: str) -> None:
    env = gymnasium.make(MOONLIT, encounter="moonlit/duel", illegal_action=mode, layout=layout)
    _, info = env.reset(seed=0)
    a = first_legal(info)
    for action in (a + 0.9, str(a), np.float64(a) + 0.5, float(a), np.array([a])):
        with pytest.raises(InvalidActionError, match="action must be an integer index"):
            env.step(action)
    for action in (a, np.int64(a), np.array(a)):  # what `Discrete.contains` takes
        env.reset(seed=0)
        env.step(action)


def test_the_aec_env_takes_only_integers() -> None:
    env = trpg_arena.envs.aec_env("moonlit", encounter="moonlit/duel")
    env.reset(seed=0)
    obs, *_ = env.last()
    with pytest.raises(InvalidActionError):
        env.step(float(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize("kwargs, words", [
    ({"log_limit": True}, "log_limit"),
    ({"log_limit": -1}, "log_limit"),
    ({"log_limit": 2.5}, "log_limit"),
    ({"illegal_penalty": -1.0}, "illegal_penalty must be a finite number of at least 0"),
])
def test_numbers_out_of_their_range_are_refused(kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        gymnasium.make(MOONLIT, **kwargs)
    with pytest.raises(ValueError, match=words):
        trpg_arena.envs.aec_env("moonlit", **kwargs)


def test_a_numpy_log_limit_is_a_number() -> None:
    env: Any = gymnasium.make(MOONLIT, log_limit=np.int64(5))
    assert env.unwrapped.log_limit == 5 and type(env.unwrapped.log_limit) is int
