"""Gymnasium and PettingZoo environments over every registered rule system.

Importing this package registers ``trpg_arena/<Name>-v<N>`` for each rule system in the registry::

    import gymnasium, trpg_arena.envs
    env = gymnasium.make("trpg_arena/Moonlit-v1", encounter="moonlit/skirmish", opponent="random")
    aec = trpg_arena.envs.aec_env("moonlit", encounter="moonlit/skirmish")

Both use the rule system's canonical layout by default: the same observation (the named feature vector,
``env.unwrapped.feature_names``) and action space for every encounter of the system
(`trpg_arena.agents.canonical`); ``layout="encounter"`` gives the per-encounter one.
"""

from __future__ import annotations

import gymnasium

from trpg_arena.agents.codec import Codec
from trpg_arena.envs.aec_env import TrpgArenaAEC, aec_env
from trpg_arena.envs.gym_env import TrpgArenaEnv
from trpg_arena.envs.illegal import MAX_EPISODE_STEPS
from trpg_arena.rules import RULESETS


def register_envs() -> list[str]:
    """Register one Gymnasium id per rule system (idempotent); returns the ids."""
    ids = []
    for rid in RULESETS:
        env_id = RULESETS[rid].info.env_id
        if env_id not in gymnasium.registry:
            # The registry-wide test suite runs gymnasium's full check_env on every id, and the env itself
            # raises ResetNeeded when stepped before reset(), so neither the passive checker nor the
            # order-enforcing wrapper (each a layer on every step) is added. The step limit is the spec's, so
            # `make(id, max_episode_steps=N)` sets it as for any Gymnasium env (-1: none); the env's own limit,
            # for direct construction and the AEC env, is then off.
            gymnasium.register(id=env_id, entry_point="trpg_arena.envs.gym_env:TrpgArenaEnv",
                               kwargs={"ruleset": rid, "max_episode_steps": None}, max_episode_steps=MAX_EPISODE_STEPS,
                               disable_env_checker=True, order_enforce=False)
        ids.append(env_id)
    return ids


ENV_IDS = register_envs()

__all__ = ["ENV_IDS", "Codec", "TrpgArenaAEC", "TrpgArenaEnv", "aec_env", "register_envs"]
