"""The canonical layout, the envs' default: one observation and action space per rule system.

Every encounter of a system, built-in, held out (``tests/unseen``) or written here, gets the same
spaces; the mask is true exactly on the legal actions and every legal action has its own index;
``feature_names`` names the observation and matches the docs page; an encounter beyond the limits
is refused at ``make``; no mode can loop for ever.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import yaml
from pettingzoo.test import api_test

import trpg_arena.envs
from tests.conftest import SYSTEMS
from trpg_arena.agents.canonical import CanonicalCodec
from trpg_arena.rules import Combat, builtin_encounters, get_ruleset, load_encounter
from trpg_arena.rules.core.action_layout import ActionLimitError, action_layout_for
from trpg_arena.rules.core.features import FeatureLimitError, encode_rows, layout_for

ROOT = Path(__file__).resolve().parents[2]
UNSEEN = ROOT / "tests" / "unseen"


def env_id(rid: str) -> str:
    return get_ruleset(rid).info.env_id


def builtin_data(name: str) -> dict:  # type: ignore[type-arg]
    rid, enc = name.split("/")
    return yaml.safe_load((ROOT / "rules" / rid / "encounters" / f"{enc}.yaml").read_text(encoding="utf-8"))


def written_here(rid: str) -> dict:  # type: ignore[type-arg]
    """A new encounter: the skirmish under another name, its roster in reverse order, every id renamed."""
    data = copy.deepcopy(builtin_data(f"{rid}/skirmish"))
    text = yaml.safe_dump(data)
    for c in data["combatants"]:
        text = re.sub(rf"\b{re.escape(c['id'])}\b", f"x_{c['id']}", text)
    data = yaml.safe_load(text)
    data["encounter"] = "written_here"
    data["combatants"] = list(reversed(data["combatants"]))
    return data


def encounters(rid: str) -> list[object]:
    out: list[object] = list(builtin_encounters(get_ruleset(rid)))
    out += [str(p) for p in sorted(UNSEEN.glob(f"{rid}_*.yaml"))]
    return [*out, written_here(rid)]


@pytest.mark.parametrize("rid", SYSTEMS)
def test_every_encounter_has_the_same_spaces(rid: str) -> None:
    spaces = set()
    for enc in encounters(rid):
        env = gymnasium.make(env_id(rid), encounter=enc)
        spaces.add((env.observation_space.shape, env.action_space.n))
        obs, info = env.reset(seed=1)
        assert env.observation_space.contains(obs) and info["action_mask"].any()
        assert len(env.unwrapped.feature_names) == env.observation_space.shape[0]
    assert spaces == {((layout_for(rid).size,), action_layout_for(rid).size)}
    aec = trpg_arena.envs.aec_env(rid, encounter=written_here(rid))
    agent = aec.possible_agents[0]
    assert aec.observation_space(agent)["observation"].shape == (layout_for(rid).size,)
    assert aec.action_space(agent).n == action_layout_for(rid).size


@pytest.mark.parametrize("rid", SYSTEMS)
def test_the_mask_is_exact_on_random_states_of_every_builtin(rid: str) -> None:
    """Every legal action maps to exactly one index, the mask is true exactly there, decoding gives it back."""
    n = action_layout_for(rid).size
    for name in builtin_encounters(get_ruleset(rid)):
        codec = CanonicalCodec.of(get_ruleset(rid), load_encounter(name))
        for seed in range(2):
            combat = Combat(name, seed=seed, record=False)
            rng = np.random.default_rng(seed)
            while not combat.over and combat.decision_count < 80:
                legal = combat.legal_view()
                index = codec.legal_indices(combat)
                mask = codec.mask(combat)
                assert len(index) == len(legal) == len(set(index.tolist())) == int(mask.sum())
                assert mask[index].all() and index.min() >= 0 and index.max() < n
                for i, a in zip(index.tolist(), legal, strict=True):
                    assert codec.decode(i, combat) == a and codec.encode(a, combat) == i
                off = np.flatnonzero(mask == 0)
                assert codec.decode(int(off[rng.integers(len(off))]), combat) is None
                combat.act(legal[int(rng.integers(len(legal)))])


def documented_indices(rid: str, combat: Combat, at: dict[object, int]) -> list[int]:
    """The legal actions' indices by the formula `rules/core/action_layout.py` documents, one at a time (slow).

    `at` is the catalogue index of every action of the encounter's catalogue.
    """
    layout = action_layout_for(rid)
    tables = CanonicalCodec.for_combat(combat).tables
    d = combat.decision
    assert d is not None
    rows, node = encode_rows(combat, d.side if d.side is not None else combat.side_of(d.actor))[1:]
    legal = [at[a] for a in combat.legal_view()]
    id_of = {j: cid for cid, j in tables.ids.items()}
    w, h = layout.spec.map_limit
    ax, ay = tables.squares.get(node, (0, 0)) if node is not None else (0, 0)
    out = []
    for i in legal:
        b = int(tables.block[i])
        blk = layout.spec.blocks[b]
        target = rows.index(id_of[int(tables.target[i])]) if blk.target else 0
        offered = sorted({int(tables.key[j]) for j in legal if int(tables.block[j]) == b})
        option = offered.index(int(tables.key[i])) if blk.options > 1 else 0
        dest = (int(tables.sx[i]) - ax) % w + w * ((int(tables.sy[i]) - ay) % h) if blk.square else 0
        out.append(layout.bases[b] + (target * blk.options + option) * (w * h if blk.square else 1) + dest)
    return out


@pytest.mark.parametrize("rid", SYSTEMS)
def test_indices_follow_the_documented_formula(rid: str) -> None:
    """The fast mapping (precomputed columns, memoised rows and option slots) agrees with the plain formula."""
    for name in builtin_encounters(get_ruleset(rid)):
        codec = CanonicalCodec.of(get_ruleset(rid), load_encounter(name))
        at = {a: i for i, a in enumerate(codec.tables.catalogue)}
        combat = Combat(name, seed=7, record=False)
        rng = np.random.default_rng(7)
        while not combat.over and combat.decision_count < 40:
            assert codec.legal_indices(combat).tolist() == documented_indices(rid, combat, at)
            legal = combat.legal_view()
            combat.act(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("rid", SYSTEMS)
def test_observation_is_from_the_deciders_side(rid: str) -> None:
    """Either side's learner sees itself as the actor row and its decision as ours: one model plays both."""
    for side in load_encounter(f"{rid}/duel").sides():
        env = gymnasium.make(env_id(rid), encounter=f"{rid}/duel", side=side)
        names = env.unwrapped.feature_names
        obs, _ = env.reset(seed=4)
        assert obs[names.index("global.decider_is_ours")] == 1.0
        assert obs[names.index("actor.is_decider")] == 1.0


def docs_names(rid: str) -> list[str]:
    """The feature names the docs page's tables give: global columns, then every row's columns."""
    page = (ROOT / "docs" / "features" / f"{rid}.md").read_text(encoding="utf-8")
    glob = page.split("## Global columns", 1)[1].split("## Row columns", 1)[0]
    rows = page.split("## Row columns", 1)[1].split("## Actions", 1)[0]
    cell = re.compile(r"^\| \d+ \| `([^`]+)` \|", re.M)
    layout = layout_for(rid)
    return cell.findall(glob) + [f"{r}.{c}" for r in layout.rows for c in cell.findall(rows)]


@pytest.mark.parametrize("rid", SYSTEMS)
def test_the_docs_table_matches_feature_names(rid: str) -> None:
    env = gymnasium.make(env_id(rid))
    assert docs_names(rid) == list(env.unwrapped.feature_names)
    page = (ROOT / "docs" / "features" / f"{rid}.md").read_text(encoding="utf-8")
    assert f"`Discrete({env.action_space.n})`" in page


def test_an_encounter_beyond_the_limits_is_refused_at_make() -> None:
    crowd = copy.deepcopy(builtin_data("moonlit/duel"))
    hunter = crowd["combatants"][0]
    crowd["combatants"] += [{**hunter, "id": f"extra{i}"} for i in range(8)]
    with pytest.raises(FeatureLimitError, match="at most 8 per side"):
        gymnasium.make(env_id("moonlit"), encounter=crowd)
    gymnasium.make(env_id("moonlit"), encounter=crowd, layout="encounter")  # the per-encounter layout takes it
    wide = copy.deepcopy(builtin_data("kiai/duel"))
    wide["map"]["width"] = 40
    with pytest.raises(ActionLimitError, match="maps up to 16 x 16"):
        gymnasium.make(env_id("kiai"), encounter=wide)


@pytest.mark.parametrize("rid", SYSTEMS)
def test_an_always_illegal_policy_is_truncated(rid: str) -> None:
    env = gymnasium.make(env_id(rid), encounter=f"{rid}/duel", illegal_action="penalize", max_illegal=30)
    _, info = env.reset(seed=0)
    for step in range(1, 31):
        illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
        _, reward, terminated, truncated, info = env.step(illegal)
        assert reward < 0 and not terminated and truncated == (step == 30)
    with pytest.raises(trpg_arena.envs.gym_env.ResetNeeded):
        env.step(0)
    # the registered default: 100 in a row
    env = gymnasium.make(env_id(rid), encounter=f"{rid}/duel", illegal_action="penalize")
    _, info = env.reset(seed=0)
    steps, truncated = 0, False
    while not truncated:
        _, _, _, truncated, info = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
        steps += 1
    assert steps == 100


def test_episode_step_limit_truncates() -> None:
    env = gymnasium.make(env_id("moonlit"), encounter="moonlit/skirmish", max_episode_steps=3)
    _, info = env.reset(seed=0)
    for step in range(1, 4):
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if terminated:
            break
        assert truncated == (step == 3)


def test_aec_always_illegal_agents_are_truncated() -> None:
    env = trpg_arena.envs.aec_env("kiai", encounter="kiai/duel", illegal_action="penalize", max_illegal=10)
    env.reset(seed=0)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
        steps += 1
    assert steps == 10 and not env.agents


@pytest.mark.parametrize("rid", SYSTEMS)
def test_aec_api_on_a_new_encounter(rid: str) -> None:
    api_test(trpg_arena.envs.aec_env(rid, encounter=written_here(rid)), num_cycles=30)


def test_envs_sharing_an_encounter_keep_their_own_decision_views(monkeypatch: pytest.MonkeyPatch) -> None:
    """A vectorised trainer steps every env, then asks each for its mask: no view is built twice."""
    import trpg_arena.agents.canonical as canonical

    envs = [gymnasium.make(env_id("kiai"), encounter="kiai/duel", side="both") for _ in range(3)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    assert len({id(env.unwrapped.codec) for env in envs}) == 1  # one codec serves the three
    built = []
    monkeypatch.setattr(canonical, "encode_rows", lambda *a: built.append(1) or encode_rows(*a))
    rng = np.random.default_rng(0)
    for _ in range(10):
        for env in envs:
            mask = env.unwrapped.action_masks()
            _, _, done, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            if done or truncated:
                env.reset(seed=int(rng.integers(100)))
        before = len(built)
        for env in envs:  # asked again after the others moved: the views they built at their step
            combat = env.unwrapped.combat
            expected = np.zeros(env.action_space.n, dtype=bool)
            expected[env.unwrapped.codec.legal_indices(combat)] = True
            assert np.array_equal(env.unwrapped.action_masks(), expected)
        assert len(built) == before
