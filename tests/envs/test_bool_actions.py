"""A bool is no action: ``env.step(True)`` is refused as floats and strings are, in both envs.

Python counts ``True`` an int, so it was taken as index 1 and played (or lost the episode as an illegal action)
although nobody chose index 1: a bug in the caller (a mask's entry passed for its index) went unseen.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import trpg_arena.envs
from trpg_arena.rules import InvalidActionError, get_ruleset

MOONLIT = get_ruleset("moonlit").info.env_id  # its version moves with the rules
BOOLS = (True, False, np.True_, np.bool_(False))


@pytest.mark.parametrize("mode", ["lose", "penalize", "raise"])
@pytest.mark.parametrize("layout", ["canonical", "encounter"])
def test_the_gymnasium_env_refuses_a_bool_and_changes_nothing(mode: str, layout: str) -> None:
    env = gymnasium.make(MOONLIT, encounter="moonlit/duel", illegal_action=mode, layout=layout)
    _, info = env.reset(seed=0)
    for action in BOOLS:
        with pytest.raises(InvalidActionError, match="action must be an integer index"):
            env.step(action)
    _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert not info.get("illegal_action") and not truncated  # the episode went on: no bool was counted or played
    assert not terminated or env.unwrapped.combat.over


def test_the_aec_env_refuses_a_bool() -> None:
    env = trpg_arena.envs.aec_env("moonlit", encounter="moonlit/duel")
    env.reset(seed=0)
    agent = env.agent_selection
    for action in BOOLS:
        with pytest.raises(InvalidActionError, match="action must be an integer index"):
            env.step(action)
    assert env.agent_selection == agent and not any(env.terminations.values())
