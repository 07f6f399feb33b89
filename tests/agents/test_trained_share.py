"""`share`: a handicap spread over the side, so a skirmish gives away about what a duel does.

A side of n combatants samples its final choice (temperature, guard) at one decision in n**share and takes the
best at the others; a lone fighter draws no number, so a duel plays exactly as without `share`.
"""

from __future__ import annotations

import numpy as np
import pytest

from trpg_arena.agents import Agent, make_agent
from trpg_arena.agents.spec import UnknownAgentError
from trpg_arena.rules import Action, Combat, load_encounter
from trpg_arena.table.session import play


def _moves(encounter: str, spec: str, seed: int) -> list[str]:
    """Every action of one game of `spec` against scripted, both sides' in order."""
    enc = load_encounter(encounter)
    first, second = enc.sides()
    agents = {first: make_agent(spec, enc.ruleset, seed=seed), second: make_agent("scripted", enc.ruleset, seed=seed)}
    combat = Combat(enc, seed=seed)
    moves: list[str] = []

    class Recording:
        def __init__(self, agent: Agent) -> None:
            self.agent = agent

        def __getattr__(self, name: str) -> object:
            return getattr(self.agent, name)

        def act(self, c: Combat) -> Action:
            action = self.agent.act(c)
            moves.append(repr(action))
            return action

    play(combat, {side: Recording(agent) for side, agent in agents.items()})
    return moves + [str(combat.result)]


def test_a_lone_fighter_plays_the_same_game_with_share_as_without() -> None:
    """The duels' measurements stand: with one combatant a side, `share` changes nothing, not even the dice."""
    for seed in (1, 2):
        plain = _moves("reincarnator/duel", "trained:normal:share=0", seed)
        assert _moves("reincarnator/duel", "trained:normal:share=1", seed) == plain
        assert _moves("reincarnator/duel", "trained:normal:share=2", seed) == plain


@pytest.mark.parametrize("share,expected", [(0.0, 1.0), (1.0, 1 / 3), (2.0, 1 / 9)])
def test_a_side_of_n_samples_at_one_decision_in_n_to_the_share(share: float, expected: float) -> None:
    enc = load_encounter("kiai/skirmish")
    combat = Combat(enc, seed=0)
    side = next(s for s in enc.sides() if sum(c.side == s for c in combat.combatants) == 3)
    agent = make_agent(f"trained:normal:share={share}", "kiai", seed=7)
    before = agent.rng.bit_generator.state
    draws = 3000
    sampled = sum(agent._handicapped(combat, side) for _ in range(draws))
    if share == 0:
        assert sampled == draws and agent.rng.bit_generator.state == before  # no number drawn at all
    else:
        assert abs(sampled / draws - expected) < 4 * np.sqrt(expected * (1 - expected) / draws)


def test_share_spreads_the_sampled_choices_over_a_skirmish() -> None:
    """At a hot temperature the choice leaves the best often; with share = 1 on a side of 3 about a third as often."""
    enc = load_encounter("kiai/skirmish")
    combat = Combat(enc, seed=3)
    scripted = {s: make_agent("scripted", "kiai", seed=i) for i, s in enumerate(enc.sides())}
    counts = {0: 0, 1: 0}
    positions = 0
    while combat.outcome is None and positions < 40:
        d = combat.decision
        assert d is not None and d.side is not None
        if len(combat.legal_view()) > 1 and sum(c.side == d.side for c in combat.combatants) == 3:
            positions += 1
            for share in counts:
                agent = make_agent(f"trained:hard:temperature=100:guard=1:candidates=4:samples=2:playouts=0:"
                                   f"verify=0:share={share}", "kiai", seed=positions)
                counts[share] += "sampled at temperature" in " ".join(agent.propose(combat).reasons).lower()
        combat.act(scripted[d.side].act(combat))
    assert positions >= 20
    assert counts[0] >= 0.5 * positions
    assert counts[1] < 0.6 * counts[0]


def test_share_outside_its_limits_is_refused_before_any_agent_is_built() -> None:
    with pytest.raises(UnknownAgentError, match="share"):
        make_agent("trained:normal:share=5", "kiai", seed=0)
