"""Each rule system brings its own scripted agent and search changes (`RuleSystem`), and the search ranks by it."""

from __future__ import annotations

import numpy as np
import pytest

from trpg_arena.agents.search.priors import prior_order
from trpg_arena.agents.search.value import position_value
from trpg_arena.agents.spec import make_agent
from trpg_arena.rules import RULESETS, Combat

SYSTEMS = ["investigator", "kiai", "moonlit", "reincarnator"]


@pytest.mark.parametrize("rid", SYSTEMS)
def test_the_scripted_agent_is_the_tactics_in_its_systems_own_folder(rid: str) -> None:
    agent = make_agent("scripted", rid, seed=1)
    module, _, name = (RULESETS[rid].scripted_agent or "").partition(":")
    assert module == ".tactics"
    assert (type(agent).__module__, type(agent).__name__) == (f"trpg_arena.rules.{rid}.tactics", name)


@pytest.mark.parametrize("rid", ["kiai", "reincarnator"])  # the two whose policies break ties at random
def test_a_generator_given_to_a_scripted_agent_later_is_the_one_its_policy_draws_from(rid: str) -> None:
    reseeded = make_agent("scripted", rid, seed=1)
    reseeded.rng = np.random.default_rng(5)  # as a league reseeds a seat between games
    fresh = make_agent("scripted", rid, seed=5)
    games = [Combat(f"{rid}/skirmish", seed=3) for _ in range(2)]
    for combat, agent in zip(games, (reseeded, fresh)):
        while not combat.over and combat.decision_count < 400:
            combat.act(agent.act(combat))
    assert [e.to_json() for e in games[0].log] == [e.to_json() for e in games[1].log]


@pytest.mark.parametrize("rid", SYSTEMS)
def test_the_search_orders_by_the_public_ranking(rid: str) -> None:
    combat = Combat(f"{rid}/skirmish", seed=2)
    for _ in range(30):  # a few decisions in: past deployment, into the fight
        if combat.over:
            break
        ranking = make_agent("scripted", rid, seed=1).ranked(combat)
        order = prior_order(make_agent("scripted", rid, seed=1), combat)
        legal = combat.legal_actions()
        assert order[0] == ranking.action and sorted(map(str, order)) == sorted(map(str, legal))
        combat.act(make_agent("scripted", rid, seed=1).act(combat))


def test_a_systems_value_extra_counts_with_its_weight() -> None:
    combat = Combat("moonlit/skirmish", seed=1)
    side = combat.sides[0]
    system = combat.system
    assert system.value_weight > 0 and RULESETS["kiai"].value_weight == 0
    extra = system.value_extra(combat, side)
    assert -1.0 <= extra <= 1.0
    weight, system.value_weight = system.value_weight, 0.0
    try:
        plain = position_value(combat, side)
    finally:
        system.value_weight = weight
    assert position_value(combat, side) == pytest.approx(max(-0.95, min(0.95, plain + weight * extra)))
