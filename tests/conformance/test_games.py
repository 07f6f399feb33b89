"""Registry-wide conformance: every rule system and built-in encounter gets these checks with no new code."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ENCOUNTERS
from trpg_arena.agents import RandomAgent
from trpg_arena.rules import RULESETS, Action, Combat, IllegalActionError, InvalidActionError, load_encounter
from trpg_arena.table.session import play

MAX_DECISIONS = 20_000


def lines(combat: Combat) -> list[str]:
    return [e.json_line() for e in combat.log]


def play_random(combat: Combat, seed: int, limit: int = MAX_DECISIONS) -> list[Action]:
    agent = RandomAgent(seed=seed)
    taken = []
    for _ in range(limit):
        if combat.over:
            break
        legal = combat.legal_actions()
        assert legal, f"empty legal set at {combat.decision}"
        a = agent.act(combat)
        combat.act(a)
        taken.append(a)
    return taken


@pytest.mark.parametrize("name", ENCOUNTERS)
@given(seed=st.integers(0, 2**31 - 1))
def test_masked_random_games_finish(name: str, seed: int) -> None:
    """Masked random play from any seed ends (win or draw) within the round cap, never with an error."""
    c = Combat(name, seed=seed)
    play_random(c, seed)
    assert c.over and c.result is not None
    views = c.combatants
    for v in views:
        assert 0 <= v.hp <= v.max_hp or v.status in ("dead",), v


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_every_legal_action_is_accepted_and_illegal_ones_change_nothing(name: str) -> None:
    c = Combat(name, seed=11)
    catalogue = c.system.action_catalogue(c.encounter)
    rng = np.random.default_rng(3)
    steps = 0
    while not c.over and steps < 150:
        legal = c.legal_actions()
        legal_set = set(legal)
        assert len(legal) == len(legal_set), "duplicate legal actions"
        assert legal_set <= set(catalogue), f"legal actions missing from the catalogue: {legal_set - set(catalogue)}"
        before = json.dumps(c.snapshot(), sort_keys=True)
        # every legal action is accepted by a clone
        for a in legal[:: max(1, len(legal) // 6)]:
            c.clone().act(a)
        # a few illegal ones raise and change nothing
        illegal = [a for a in catalogue[:: max(1, len(catalogue) // 25)] if a not in legal_set][:5]
        for a in illegal:
            with pytest.raises(IllegalActionError):
                c.act(a)
        with pytest.raises(InvalidActionError):
            c.act("attack")  # type: ignore[arg-type]
        assert json.dumps(c.snapshot(), sort_keys=True) == before
        c.act(legal[int(rng.integers(len(legal)))])
        steps += 1


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_same_seed_same_actions_same_log(name: str) -> None:
    a, b = Combat(name, seed=5), Combat(name, seed=5)
    acts = play_random(a, 9)
    for x in acts:
        b.act(x)
    assert lines(a) == lines(b)


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_engine_ignores_global_rngs(name: str) -> None:
    """Draws from `random` and `np.random` between steps must not change anything (RLCard's noise test)."""
    a, b = Combat(name, seed=21), Combat(name, seed=21)
    agent_a, agent_b = RandomAgent(seed=4), RandomAgent(seed=4)
    while not a.over:
        random.random()
        np.random.random()  # noqa: NPY002 - deliberately disturbing the global RNG
        a.act(agent_a.act(a))
        b.act(agent_b.act(b))
    assert lines(a) == lines(b)


@pytest.mark.parametrize("name", ENCOUNTERS)
@pytest.mark.parametrize("at", [0, 25])
def test_snapshot_restore_continues_identically(name: str, at: int) -> None:
    """A combat and its restored copy, played on with the same choices, end in equal whole snapshots."""
    for seed in (8, 21):
        c = Combat(name, seed=seed)
        play_random(c, 1, limit=at)
        r = Combat.restore(json.loads(json.dumps(c.snapshot())))
        k = c.clone()
        assert r.legal_actions() == c.legal_actions() == k.legal_actions()
        agents = RandomAgent(seed=2), RandomAgent(seed=2), RandomAgent(seed=2)
        mark = len(c.log)
        while not c.over:
            a1, a2, a3 = (agent.act(x) for agent, x in zip(agents, (c, r, k), strict=True))
            assert a1 == a2 == a3
            c.act(a1)
            r.act(a2)
            k.act(a3)
        assert c.snapshot() == r.snapshot()
        # a clone copies no past events: the rest of its snapshot is the combat's
        assert {**k.snapshot(), "log": [], "log_start": 0} == {**c.snapshot(), "log": [], "log_start": 0}
        assert lines(k) == lines(c)[mark:]


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_clone_is_independent(name: str) -> None:
    c = Combat(name, seed=13)
    play_random(c, 3, limit=10)
    before = lines(c)
    snap = json.dumps(c.snapshot(), sort_keys=True)
    k = c.clone()
    play_random(k, 77)
    assert lines(c) == before
    assert json.dumps(c.snapshot(), sort_keys=True) == snap


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_builtin_encounters_validate_and_round_trip(name: str) -> None:
    enc = load_encounter(name)
    again = load_encounter(enc.model_dump(mode="json"))
    assert again.model_dump(mode="json") == enc.model_dump(mode="json")
    rid = name.split("/")[0]
    assert enc.ruleset == rid and rid in RULESETS


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_feature_lengths_match_declared_sizes(name: str) -> None:
    """`observe_combatant` / `observe_global` return exactly the declared number of features."""
    c = Combat(name, seed=6)
    s = c.system
    play_random(c, 4, limit=30)
    assert len(s.observe_global(c)) == s.global_features
    for v in c.combatants:
        assert len(s.observe_combatant(c, v.id)) == s.combatant_features, v.id
    assert len(s.possible_ids(c.encounter)) >= len(c.encounter.combatants)


@pytest.mark.parametrize("name", ENCOUNTERS)
@given(seed=st.integers(0, 2**31 - 1))
def test_invariants_hold_at_every_decision(name: str, seed: int) -> None:
    """HP never exceeds its maximum, deciders are never dead or fled, and every view is sane."""
    c = Combat(name, seed=seed)
    agent = RandomAgent(seed=seed)
    possible = set(c.system.possible_ids(c.encounter))
    while not c.over:
        d = c.decision
        assert d is not None
        views = {v.id: v for v in c.combatants}
        assert set(views) <= possible
        assert d.actor in views, f"decider {d.actor} is not a combatant"
        assert views[d.actor].status not in ("dead", "fled"), f"{d.actor} decides while {views[d.actor].status}"
        for v in views.values():
            assert v.hp <= v.max_hp, v
        c.act(agent.act(c))


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_a_silent_combat_plays_like_a_recorded_one(name: str) -> None:
    """`Combat(record=False)` (headless envs) skips building events, never the rules: same dice, state, count."""
    rid = load_encounter(name).ruleset
    for seed in range(4):
        out = []
        for record in (True, False):
            c = Combat(name, seed=seed, record=record)
            play(c, [RandomAgent(rid, seed=seed), RandomAgent(rid, seed=seed + 9)])
            out.append((c.snapshot()["state"], c.decision_count, c.dice.state(), c.result))
        assert out[0] == out[1]
        assert c.log == []
