"""Every decision says whose side decides and what kind it is, in the shared vocabulary, and is the shared one."""

from __future__ import annotations

import pytest

from tests.conftest import ENCOUNTERS
from trpg_arena.agents import RandomAgent
from trpg_arena.rules import Combat, DecisionKind
from trpg_arena.rules.core.values import shared_decision


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_every_decision_step_is_declared_and_names_the_deciders_side(name: str) -> None:
    for seed in range(4):
        c = Combat(name, seed=seed)
        agent = RandomAgent(seed=seed)
        sides = {v.id: v.side for v in c.combatants}
        while not c.over:
            d = c.decision
            assert d is not None
            assert d.step in c.system.decision_kinds, f"{c.system.info.id}: step '{d.step}' has no DecisionKind"
            assert isinstance(d.kind, DecisionKind) and d.kind == c.system.decision_kinds[d.step]
            if d.actor not in sides:  # a summon or an arrival
                sides = {v.id: v.side for v in c.combatants}
            assert d.side == sides[d.actor]
            assert d.to_json()["kind"] == d.kind.value
            # opened through the kernel's table: a state reaching this decision again holds the same object
            opened = c.state.decision
            assert opened is shared_decision(opened.actor, opened.step, opened.prompt), opened
            c.act(agent.act(c))


def test_every_system_has_turns_and_reactions() -> None:
    from trpg_arena.rules import RULESETS

    for rid in RULESETS:
        kinds = set(RULESETS[rid].decision_kinds.values())
        assert DecisionKind.TURN in kinds and DecisionKind.REACTION in kinds, rid
