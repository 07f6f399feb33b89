"""Environment checks over the whole registry: Gymnasium's env_checker, PettingZoo's api_test and seed_test."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import trpg_arena.envs
from tests.conftest import SKIRMISHES, SYSTEMS
from trpg_arena.rules import IllegalActionError, InvalidActionError, ResetNeeded, get_ruleset


def env_id(rid: str) -> str:
    return get_ruleset(rid).info.env_id


@pytest.mark.parametrize("rid", SYSTEMS)
def test_registered_for_every_system(rid: str) -> None:
    assert env_id(rid) in trpg_arena.envs.ENV_IDS and env_id(rid) in gymnasium.registry


def test_module_prefixed_id_imports_the_envs() -> None:
    env = gymnasium.make(f"trpg_arena.envs:{env_id(SYSTEMS[0])}")
    assert env.unwrapped.system.info.id == SYSTEMS[0]


@pytest.mark.parametrize("rid", SYSTEMS)
def test_gymnasium_check_env(rid: str) -> None:
    """The checker steps unmasked random actions: by default an illegal one ends the episode as a loss."""
    check_env(gymnasium.make(env_id(rid)).unwrapped)
    check_env(gymnasium.make(env_id(rid), encounter=f"{rid}/skirmish", illegal_action="penalize").unwrapped,
              skip_render_check=True)


@pytest.mark.parametrize("rid", SYSTEMS)
def test_an_illegal_action_loses_by_default(rid: str) -> None:
    env = gymnasium.make(env_id(rid), encounter=f"{rid}/duel")
    _, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    with pytest.raises(ResetNeeded):
        env.step(illegal)


@pytest.mark.parametrize("rid", SYSTEMS)
def test_masked_episode_mask_is_exact(rid: str) -> None:
    env = gymnasium.make(env_id(rid), encounter=f"{rid}/duel", opponent="random", illegal_action="raise")
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    done, steps = False, 0
    while not done:
        mask = env.unwrapped.action_masks()
        assert mask.any() and (mask == info["action_mask"].astype(bool)).all()
        assert env.observation_space.contains(obs)
        illegal = np.flatnonzero(~mask)
        if len(illegal):
            with pytest.raises(IllegalActionError):
                env.step(int(illegal[0]))
        a = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, done, truncated, info = env.step(a)
        steps += 1
    assert reward in (-1.0, 0.0, 1.0) and not truncated
    with pytest.raises(ResetNeeded):
        env.step(0)
    with pytest.raises(InvalidActionError):
        env.reset(seed=1)
        env.step(10**9)


@pytest.mark.parametrize("rid", SYSTEMS)
def test_penalize_illegal_action_changes_nothing(rid: str) -> None:
    env = gymnasium.make(env_id(rid), encounter=f"{rid}/duel", illegal_action="penalize")
    obs, info = env.reset(seed=5)
    illegal = np.flatnonzero(info["action_mask"] == 0)
    obs2, reward, term, trunc, info2 = env.step(int(illegal[0]))
    assert reward < 0 and not term and info2["illegal_action"]
    assert (obs == obs2).all() and (info["action_mask"] == info2["action_mask"]).all()


@pytest.mark.parametrize("rid", SYSTEMS)
def test_same_seed_same_episode(rid: str) -> None:
    def run(seed: int) -> list[float]:
        env = gymnasium.make(env_id(rid), encounter=f"{rid}/duel")
        obs, info = env.reset(seed=seed)
        out = [float(obs.sum())]
        done = False
        while not done:
            a = int(np.flatnonzero(info["action_mask"])[0])
            obs, r, done, _, info = env.step(a)
            out.append(float(obs.sum()) + r)
        return out

    assert run(7) == run(7)


@pytest.mark.parametrize("rid", SYSTEMS)
@pytest.mark.parametrize("mode", ["ansi", "rgb_array"])
def test_rendering(rid: str, mode: str) -> None:
    env = gymnasium.make(env_id(rid), encounter=f"{rid}/skirmish", render_mode=mode)
    env.reset(seed=1)
    out = env.render()
    if mode == "ansi":
        assert isinstance(out, str) and "round" in out
    else:
        assert isinstance(out, np.ndarray) and out.ndim == 3 and out.shape[2] == 3 and out.dtype == np.uint8


@pytest.mark.parametrize("rid", SYSTEMS)
def test_pettingzoo_api_test(rid: str) -> None:
    api_test(trpg_arena.envs.aec_env(rid, encounter=f"{rid}/duel"), num_cycles=200)


@pytest.mark.parametrize("rid", SYSTEMS)
def test_pettingzoo_seed_test(rid: str) -> None:
    seed_test(lambda: trpg_arena.envs.aec_env(rid, encounter=f"{rid}/duel"), num_cycles=100)


@pytest.mark.parametrize("rid", SYSTEMS)
def test_an_illegal_aec_action_ends_the_game_as_the_choosers_loss(rid: str) -> None:
    env = trpg_arena.envs.aec_env(rid, encounter=f"{rid}/duel")
    env.reset(seed=2)
    chooser = env.agent_selection
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(env.terminations.values()) and env.infos[chooser]["illegal_action"]
    assert env.rewards[chooser] == -1.0 and all(r == 0.0 for a, r in env.rewards.items() if a != chooser)
    for _agent in env.agent_iter():  # every agent is done: each steps None and leaves
        env.step(None)
    assert env.agents == []
    strict = trpg_arena.envs.aec_env(rid, encounter=f"{rid}/duel", illegal_action="raise")
    strict.reset(seed=2)
    obs, *_ = strict.last()
    with pytest.raises(IllegalActionError):
        strict.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))


@pytest.mark.parametrize("name", SKIRMISHES)
def test_aec_plays_to_the_end_with_masks(name: str) -> None:
    rid = name.split("/")[0]
    env = trpg_arena.envs.aec_env(rid, encounter=name)
    env.reset(seed=2)
    rng = np.random.default_rng(1)
    for _agent in env.agent_iter(max_iter=100_000):
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        env.step(int(rng.choice(legal)))
    assert env.combat is not None and env.combat.over


@pytest.mark.parametrize("rid", SYSTEMS)
def test_log_limit_bounds_the_log_without_changing_play(rid: str) -> None:
    runs = {}
    for limit in (None, 5, 0, "auto"):
        env = gymnasium.make(env_id(rid), encounter=f"{rid}/skirmish", opponent="random", log_limit=limit)
        obs, info = env.reset(seed=7)
        rng = np.random.default_rng(1)
        observations, done, longest = [obs.tobytes()], False, 0
        while not done:
            obs, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            observations.append(obs.tobytes())
            longest = max(longest, len(env.unwrapped.combat.log))
        c = env.unwrapped.combat
        runs[limit] = (observations, c.decision_count, c.log[-1:], longest, c.snapshot()["state"])
        if limit is None:
            assert c.decision_count == sum(e.kind in ("decision", "auto_decision") for e in c.log)
    full, lean, silent, auto = runs[None], runs[5], runs[0], runs["auto"]
    assert full[0] == lean[0] == silent[0] and full[1] == lean[1] == silent[1] and full[4] == silent[4]
    assert full[2] == lean[2]
    assert lean[3] <= 2 * 5  # trimmed back to 5 after any step that leaves more than 10
    assert silent[3] == 0 and silent[2] == [] and auto == silent  # headless "auto" records nothing
    rendered = gymnasium.make(env_id(rid), encounter=f"{rid}/skirmish", render_mode="ansi")
    assert rendered.unwrapped.log_limit == 64
    with pytest.raises(ValueError):
        gymnasium.make(env_id(rid), log_limit=-1)
