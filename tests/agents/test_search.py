"""The `mcts` agent: it never touches the live combat's dice, reuses its tree, restores exactly, explains itself."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ENCOUNTERS
from trpg_arena.agents import make_agent
from trpg_arena.agents.search import position_value
from trpg_arena.agents.search.presets import PRESETS, presets_for
from trpg_arena.agents.spec import agent_info
from trpg_arena.rules import RULESETS, Combat, load_encounter

CHEAP = "mcts:simulations=12:depth=4"


def advance(c: Combat, steps: int, seed: int) -> None:
    """Play `steps` scripted decisions (both sides) from the start."""
    rid = c.system.info.id
    agents = {side: make_agent("scripted", rid, seed=seed + i) for i, side in enumerate(c.sides)}
    for _ in range(steps):
        if c.over:
            return
        c.act(agents[c.decision.side].act(c))


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_propose_leaves_the_live_dice_and_state_identical(name: str) -> None:
    c = Combat(name, seed=5)
    advance(c, 6, seed=5)
    if c.over:
        pytest.skip("over before the search")
    dice, snap = c.dice.state(), json.dumps(c.snapshot(), sort_keys=True)
    agent = make_agent(CHEAP, load_encounter(name).ruleset, seed=1)
    p = agent.propose(c)
    assert c.dice.state() == dice, "the search advanced or changed the live dice"
    assert json.dumps(c.snapshot(), sort_keys=True) == snap
    assert p.action in c.legal_actions()
    assert 0.0 <= p.value <= 1.0 and len(p.alternatives) <= 3
    assert all("playouts" in a.reason for a in p.alternatives)
    assert "estimated to win" in p.reasons[0] or len(c.legal_actions()) == 1


def play_mcts_vs_scripted(name: str, seed: int, restore_every: int = 0) -> tuple[list[str], int]:
    """A whole game, mcts on the first side; optionally rebuilding the search agent from its state every N decisions."""
    c = Combat(name, seed=seed)
    rid = c.system.info.id
    search = make_agent(CHEAP, rid, seed=seed)
    other = make_agent("scripted", rid, seed=seed + 1)
    kept = decisions = 0
    while not c.over:
        if c.decision.side == c.sides[0]:
            if restore_every and decisions % restore_every == 0:
                state = json.loads(json.dumps(search.get_state()))
                search = make_agent(CHEAP, rid, seed=999)
                search.set_state(state)
            p = search.propose(c)
            kept += "kept from the last decision" in p.reasons[0]
            decisions += 1
            c.act(p.action)
        else:
            c.act(other.act(c))
    return [e.json_line() for e in c.log], kept


@pytest.mark.parametrize("name", ["moonlit/duel", "kiai/duel"])
def test_the_tree_is_reused_and_a_restored_agent_plays_the_same_game(name: str) -> None:
    log, kept = play_mcts_vs_scripted(name, seed=2)
    assert kept > 0, "no decision reused the subtree of the previous one"
    restored, _ = play_mcts_vs_scripted(name, seed=2, restore_every=2)
    assert restored == log


def test_presets_raise_the_budget_and_are_listed() -> None:
    info = agent_info("mcts", "kiai")
    assert list(info.presets) == ["easy", "normal", "hard", "deadly"]
    budgets = [PRESETS[p]["simulations"] for p in info.presets]
    assert budgets == sorted(budgets) and len(set(budgets)) == 4
    assert PRESETS["easy"]["temperature"] > 0 and PRESETS["normal"]["temperature"] == 0
    assert make_agent("mcts:hard", "moonlit", seed=1).simulations == PRESETS["hard"]["simulations"]


@pytest.mark.parametrize("name", ENCOUNTERS)
def test_value_is_the_result_when_over_and_opposite_for_the_sides(name: str) -> None:
    c = Combat(name, seed=1)
    a, b = c.sides[:2]
    assert -1 < position_value(c, a) < 1
    advance(c, 400, seed=1)
    if c.over:
        if c.result == "draw":
            assert position_value(c, a) == position_value(c, b) < 0
        else:
            winner, loser = (a, b) if c.result == a else (b, a)
            assert position_value(c, winner) == 1.0 and position_value(c, loser) == -1.0


def test_a_systems_presets_apply_to_its_agents_only() -> None:
    changed = [rid for rid in RULESETS if RULESETS[rid].search_changes]  # declared by the rule system itself
    assert sorted(changed) == ["investigator", "kiai", "moonlit", "reincarnator"]
    for rid in changed:
        for preset in PRESETS:
            agent = make_agent(f"mcts:{preset}", rid, seed=1)
            assert all(getattr(agent, k) == v for k, v in RULESETS[rid].search_changes.items())
            assert presets_for(rid)[preset]["simulations"] == PRESETS[preset]["simulations"]
    assert PRESETS["normal"].get("paired", 0) == 0  # the common presets search by UCB; the systems choose
    assert make_agent("mcts:normal", "investigator", seed=1).margin == 1.0  # kiai's margin is kiai's only
