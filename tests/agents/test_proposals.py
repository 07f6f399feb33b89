"""Every agent explains itself: `propose` over random states of every registered system and built-in encounter.

A proposal's action is legal, it gives at least one reason, its alternatives are legal, distinct from the
action and sorted by value; proposing changes nothing in the live combat (state, log, dice); and `propose`
chooses exactly what `act` chooses from the same agent state, leaving the agent in the same state.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ENCOUNTERS
from trpg_arena.agents import Proposal, RandomAgent, make_agent
from trpg_arena.agents.proposal import alternatives
from trpg_arena.rules import RULESETS, Action, Combat, IllegalActionError, load_encounter

CHEAP = ["random", "first", "scripted", "ppo", "ppo:varied"]
SEARCH = "mcts:simulations=4:depth=20"  # a search kept cheap: it still clones, samples and plays out
WALK = 80  # the longest random walk from the start to a state
# what a GM reads counts one hex, one square, not "1 hexes" (a reason, an alternative's note)
ONE_PLURAL = re.compile(r"(?<![\d.,])\b1 (hexes|squares|actions|choices)\b")


def random_state(name: str, seed: int, steps: int) -> Combat:
    """The combat after up to `steps` decisions of masked random play from `seed` (it stops early if over)."""
    c = Combat(name, seed=seed)
    walker = RandomAgent(seed=seed)
    for _ in range(steps):
        if c.over:
            break
        c.act(walker.act(c))
    return c


def fingerprint(c: Combat) -> tuple[str, object]:
    """Everything a proposal must leave alone: the snapshot (state, log) and the dice."""
    return json.dumps(c.snapshot(), sort_keys=True), c.dice.state()


def check_proposal(c: Combat, p: Proposal) -> None:
    """A proposal's action and alternatives are legal; it is explained; the alternatives are distinct and sorted."""
    legal = c.legal_actions()
    assert p.action in legal, f"{p.action} is not legal at {c.decision}"
    assert any(r.strip() for r in p.reasons), f"no reason given for {p.action}"
    actions = [a.action for a in p.alternatives]
    assert all(a in legal for a in actions), f"an alternative is not legal: {actions}"
    assert p.action not in actions, "the chosen action is among its own alternatives"
    assert len(set(actions)) == len(actions), f"repeated alternatives: {actions}"
    values = [a.value for a in p.alternatives]
    assert values == sorted(values, reverse=True), f"alternatives not sorted by value: {values}"
    assert np.isfinite(p.value) and all(np.isfinite(values))
    text = json.dumps(p.to_json(c))  # a UI can send it as it is
    assert not ONE_PLURAL.search(text), f"a count of one with a plural noun: {ONE_PLURAL.search(text)}"


def check_agent_at(name: str, spec: str, seed: int, steps: int) -> None:
    """At one random state: a legal, explained proposal that changes nothing and matches `act`."""
    c = random_state(name, seed, steps)
    if c.over:
        return
    rid = load_encounter(name).ruleset
    # two agents in equal states: built alike, and the actor given the proposer's saved state as well
    proposer, actor = make_agent(spec, rid, seed=seed), make_agent(spec, rid, seed=seed)
    actor.set_state(proposer.get_state())
    before = fingerprint(c)
    p = proposer.propose(c)
    assert fingerprint(c) == before, f"{spec}'s propose changed the combat"
    check_proposal(c, p)
    assert actor.act(c) == p.action, f"{spec}: act and propose chose differently at {c.decision}"
    assert actor.get_state() == proposer.get_state(), f"{spec}: act and propose used the agent's RNG differently"
    assert fingerprint(c) == before, f"{spec}'s act changed the combat"


@pytest.mark.parametrize("spec", CHEAP)
@pytest.mark.parametrize("name", ENCOUNTERS)
@given(seed=st.integers(0, 2**31 - 1), steps=st.integers(0, WALK))
def test_proposals_are_legal_explained_sorted_and_change_nothing(name: str, spec: str, seed: int, steps: int) -> None:
    check_agent_at(name, spec, seed, steps)


@pytest.mark.parametrize("name", ENCOUNTERS)
@settings(max_examples=max(2, settings.default.max_examples // 8))  # each example runs two searches
@given(seed=st.integers(0, 2**31 - 1), steps=st.integers(0, WALK))
def test_search_proposals_are_legal_explained_sorted_and_change_nothing(name: str, seed: int, steps: int) -> None:
    check_agent_at(name, SEARCH, seed, steps)


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_scripted_proposals_and_actions_agree_along_whole_games(name: str) -> None:
    """An agent that proposes at every decision plays the very game an agent that only acts plays."""
    rid = load_encounter(name).ruleset
    for seed in range(3):
        games = []
        for ask in ("propose", "act"):
            c = Combat(name, seed=seed)
            agents = {side: make_agent("scripted", rid, seed=seed * 10 + i) for i, side in enumerate(c.sides)}
            while not c.over:
                agent = agents[c.decision.side]
                c.act(agent.propose(c).action if ask == "propose" else agent.act(c))
            games.append(([e.json_line() for e in c.log], [a.get_state() for a in agents.values()]))
        assert games[0] == games[1]


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_scripted_reasons_name_combatants_and_numbers(name: str) -> None:
    """Scripted reasons are built from what the agent reasoned with: ids of combatants and real numbers."""
    rid = load_encounter(name).ruleset
    explained = named = numbered = 0
    for seed in range(6):
        c = Combat(name, seed=seed)
        ids = {v.id for v in c.combatants}
        agents = {side: make_agent("scripted", rid, seed=seed * 10 + i) for i, side in enumerate(c.sides)}
        while not c.over and explained < 60:
            p = agents[c.decision.side].propose(c)
            if len(c.legal_actions()) > 1:
                text = " ".join(p.reasons)
                explained += 1
                named += any(i in text for i in ids)
                numbered += any(ch.isdigit() for ch in text)
            c.act(p.action)
    assert explained >= 20
    assert named >= explained * 0.8 and numbered >= explained * 0.5, (named, numbered, explained)


def test_alternatives_show_different_choices_before_other_squares_of_the_same() -> None:
    # a walk's other squares (or a charge's other end cells) filled the list: kiai's skirmish proposed "move to
    # [3, 5]" with three more moves as its alternatives and never showed the attack or the end of the turn
    walk = Action("move", dest=(3, 5))
    rivals = [(0.9, Action("move", dest=(4, 4))), (0.8, Action("move", dest=(4, 5))),
              (0.7, Action("move", dest=(4, 6))), (0.5, Action("attack", target="gorza", option=("katana", 20))),
              (0.0, Action("end_turn")), (0.95, walk)]
    shown = alternatives(walk, rivals)
    assert [(a.action.verb, a.value) for a in shown] == [("move", 0.9), ("attack", 0.5), ("end_turn", 0.0)]
    # with no other kind of choice, the same walk's next best squares fill the list, best first
    only_walks = alternatives(walk, rivals[:3])
    assert [a.value for a in only_walks] == [0.9, 0.8, 0.7]
    # another option is another choice (a different weapon or technique), not a variant
    strikes = alternatives(Action("attack", target="gorza", option=("katana", 20)),
                           [(0.6, Action("attack", target="gorza", option=("katana", 30))),
                            (0.4, Action("move", dest=(1, 1))), (0.3, Action("move", dest=(1, 2)))])
    assert [a.value for a in strikes] == [0.6, 0.4, 0.3]


def test_an_investigator_attack_after_another_step_is_the_same_choice() -> None:
    # the step an attack or spell embeds is where it is made from, not what it is: "casts mend_flesh on ada, stepping
    # N first" and "..., stepping NE first" are one choice for the alternatives; an item given is part of the choice
    kind = RULESETS["investigator"].choice_kind
    assert kind(Action("cast", "ada", option="mend_flesh+before:N")) == kind(Action("cast", "ada", option="mend_flesh"))
    assert kind(Action("shoot", "cultist", option="after:SE+x2")) == ("shoot", "cultist", "x2")
    assert kind(Action("pass_item", "ada", option="ammo:.38")) == ("pass_item", "ada", "ammo:.38")
    walks = [(0.9, Action("cast", "ada", option="mend_flesh+before:NE")), (0.2, Action("end_turn"))]
    shown = alternatives(Action("cast", "ada", option="mend_flesh+before:N"), walks, kind=kind)
    assert [a.action.verb for a in shown] == ["cast", "end_turn"]  # only one other kind: the variant fills in
    assert RULESETS["kiai"].choice_kind(Action("move", dest=(1, 1))) == ("move", None, None)


@pytest.mark.parametrize("spec", [*CHEAP, SEARCH, "trained"])
@pytest.mark.parametrize("rid", sorted(RULESETS))
def test_an_agent_asked_about_a_finished_combat_says_so(rid: str, spec: str) -> None:
    """It failed inside its own code (an AssertionError, an IndexError, numpy's "zero-size array")."""
    c = Combat(f"{rid}/duel", seed=0)
    while not c.over:
        c.act(c.legal_actions()[0])
    agent = make_agent(spec, rid, seed=1)
    for ask in (agent.propose, agent.act):
        with pytest.raises(IllegalActionError, match=r"the combat is over \(.+\): there is no decision for agent"):
            ask(c)
