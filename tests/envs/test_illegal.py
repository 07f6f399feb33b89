"""One illegal-action policy for both envs: a masked action means the same in the Gymnasium and the AEC env."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
import yaml

import trpg_arena.envs
from trpg_arena.envs.gym_env import TrpgArenaEnv
from trpg_arena.envs.illegal import IllegalActions, Verdict
from trpg_arena.rules import IllegalActionError
from trpg_arena.rules.core import combat as combat_module

ENCOUNTER = "kiai/duel"
ROOT = Path(__file__).resolve().parents[2]


def masked(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask == 0)[0])


def gym_answer(mode: str) -> tuple[float, bool, bool, IllegalActions]:
    """(reward, terminated, truncated) of the Gymnasium env's first step on a masked action, and its policy."""
    env = gymnasium.make("trpg_arena/Kiai-v0", encounter=ENCOUNTER, illegal_action=mode, illegal_penalty=0.25)
    _, info = env.reset(seed=1)
    _, reward, terminated, truncated, info = env.step(masked(info["action_mask"]))
    assert info["illegal_action"]
    unwrapped: Any = env.unwrapped
    return float(reward), terminated, truncated, unwrapped.illegal


def aec_answer(mode: str) -> tuple[float, bool, bool, IllegalActions]:
    """The same for the AEC env: the chooser's reward, whether it is terminated, truncated; and its policy."""
    env = trpg_arena.envs.aec_env("kiai", encounter=ENCOUNTER, illegal_action=mode, illegal_penalty=0.25)
    env.reset(seed=1)
    agent = env.agent_selection
    obs, *_ = env.last()
    env.step(masked(obs["action_mask"]))
    _, reward, terminated, truncated, info = env.last()
    assert env.agent_selection == agent  # the chooser is asked again (penalize) or sees its end (lose)
    assert info.get("illegal_action", False) == (mode == "lose")
    return float(reward), terminated, truncated, env.illegal


@pytest.mark.parametrize(("mode", "expected"), [("lose", (-1.0, True, False)), ("penalize", (-0.25, False, False))])
def test_both_envs_answer_a_masked_action_alike(mode: str, expected: tuple[float, bool, bool]) -> None:
    for answer in (gym_answer, aec_answer):
        *seen, policy = answer(mode)
        assert tuple(seen) == expected, answer.__name__
        assert isinstance(policy, IllegalActions) and policy.steps == 1


def test_both_envs_raise_in_strict_mode_and_count_nothing() -> None:
    for answer in (gym_answer, aec_answer):
        with pytest.raises(IllegalActionError, match="is not legal for .* legal actions: see the mask"):
            answer("raise")


def test_the_policy_counts_steps_and_illegal_runs() -> None:
    policy = IllegalActions("penalize", 0.5, max_steps=5, max_illegal=2)
    assert policy.illegal(lambda: "unused") == Verdict(-0.5, lost=False, truncated=False)
    assert policy.illegal(lambda: "unused").truncated  # the second in a row
    policy.reset()
    assert not policy.illegal(lambda: "x").truncated and not policy.legal()  # a legal step ends the run
    assert not policy.illegal(lambda: "x").truncated
    assert not policy.legal() and policy.legal()  # the fifth step reaches max_steps
    assert IllegalActions("lose").illegal(lambda: "x") == Verdict(-1.0, lost=True, truncated=False)
    with pytest.raises(ValueError, match="illegal_action must be one of lose, penalize, raise"):
        IllegalActions("ignore")
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        TrpgArenaEnv("kiai", encounter=ENCOUNTER, illegal_action="ignore")


def test_the_aec_env_truncates_every_agent_at_its_step_limit() -> None:
    env = trpg_arena.envs.aec_env("kiai", encounter=ENCOUNTER, max_episode_steps=4)
    env.reset(seed=0)
    legal_steps = 0
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        legal_steps += 1
    assert legal_steps == 4 and env.combat is not None and not env.combat.over


def test_the_aec_env_learns_the_sides_without_playing_a_combat(monkeypatch: pytest.MonkeyPatch) -> None:
    data = yaml.safe_load((ROOT / "rules" / "kiai" / "encounters" / "duel.yaml").read_text(encoding="utf-8"))
    data["description"] = "a copy no cache has seen"
    built: list[int] = []
    real_init = combat_module.Combat.__init__

    def counted(self: Any, *args: Any, **kwargs: Any) -> None:
        built.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(combat_module.Combat, "__init__", counted)
    env = trpg_arena.envs.aec_env("kiai", encounter=data)
    assert built == [] and set(env._side.values()) == set(env.encounter.sides())
    env.reset(seed=0)
    assert built == [1]


@pytest.mark.parametrize(("options", "words"), [({"illegal_penalty": float("nan")}, "illegal_penalty must be a finite"),
                                                ({"illegal_penalty": "high"}, "illegal_penalty must be a finite"),
                                                ({"max_illegal": 0}, "max_illegal must be None (no limit) or"),
                                                ({"max_illegal": 2.5}, "max_illegal must be None (no limit) or"),
                                                ({"shaping": float("inf")}, "shaping must be a finite number")])
def test_a_penalty_limit_or_shaping_that_could_not_work_is_refused_at_make(options: dict[str, Any],
                                                                            words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        gymnasium.make("trpg_arena/Kiai-v0", encounter=ENCOUNTER, **options)
    if "shaping" not in options:  # the AEC env takes the same policy
        with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
            trpg_arena.envs.aec_env("kiai", encounter=ENCOUNTER, **options)
