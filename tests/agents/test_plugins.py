"""Each rule system brings its own scripted agent and search changes (`RuleSystem`), and the search ranks by it."""

from __future__ import annotations

import pytest

from trpg_arena.agents.search.priors import prior_order
from trpg_arena.agents.search.value import position_value
from trpg_arena.agents.spec import make_agent
from trpg_arena.rules import RULESETS, Combat

SYSTEMS = ["investigator", "kiai", "moonlit", "reincarnator"]


@pytest.mark.parametrize("rid", SYSTEMS)
def test_the_scripted_agent_is_the_one_its_system_names(rid: str) -> None:
    agent = make_agent("scripted", rid, seed=1)
    module, _, name = (RULESETS[rid].scripted_agent or "").partition(":")
    assert (type(agent).__module__, type(agent).__name__) == (module, name)


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
