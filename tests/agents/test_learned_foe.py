"""`foe`: the play-outs that check a departure play the other side by `trained:hard`, not by the script."""

from __future__ import annotations

import numpy as np
import pytest

from tests.played_out import scripted_positions
from trpg_arena.agents import make_agent
from trpg_arena.agents.learned.agent import TrainedAgent
from trpg_arena.rules import Action, Combat

RID = "investigator"


def _first_choice(combat: Combat) -> tuple[Action, Action, str]:
    order = combat.legal_view()[:2]
    return order[0], order[1], combat.decision.side


def test_the_other_side_of_the_playouts_is_played_by_the_trained_look_and_ours_by_the_script(
        monkeypatch: pytest.MonkeyPatch) -> None:
    agent = make_agent("trained:hard:playouts=4:verify=1:foe=3", RID, seed=0)
    assert isinstance(agent.rival, TrainedAgent)
    assert (agent.rival.samples, agent.rival.playouts, agent.rival.verify, agent.rival.foe) == (3, 0, 0, 0)
    assert agent.rival.reply == make_agent("trained:hard", RID, seed=0).reply  # the system's own `normal`
    sides: list[str] = []
    rival_act = agent.rival.act

    def spy(sim: Combat) -> Action:
        sides.append(sim.decision.side)
        return rival_act(sim)

    monkeypatch.setattr(agent.rival, "act", spy)  # which side's decisions reach the rival
    combat = scripted_positions(f"{RID}/duel", 1, turns_only=True)[0]
    scripted, other, side = _first_choice(combat)
    agent._playout_gains(combat, [other], scripted, side, [11, 12, 13, 14])
    assert sides and side not in sides  # the rival decides for the other side, never for ours


def test_the_foe_changes_what_the_playouts_measure_and_stays_paired() -> None:
    combats = scripted_positions(f"{RID}/duel", 2, every=3, turns_only=True)
    seeds = [101, 102, 103, 104, 105, 106]

    def gains(spec: str) -> list[np.ndarray]:
        agent = make_agent(spec, RID, seed=5)
        found: list[np.ndarray] = []
        for combat in combats:
            scripted, other, side = _first_choice(combat)
            found += agent._playout_gains(combat, [other], scripted, side, seeds)
        return found

    script, foe = gains("trained:hard:playouts=6:depth=0"), gains("trained:hard:playouts=6:depth=0:foe=4")
    assert any(not np.array_equal(a, b) for a, b in zip(script, foe, strict=True))
    again = gains("trained:hard:playouts=6:depth=0:foe=4")  # the rival's state is restored between play-outs
    assert all(np.array_equal(a, b) for a, b in zip(foe, again, strict=True))


def test_foe_is_off_by_default_and_checked_like_every_parameter() -> None:
    plain = make_agent("trained:hard", "moonlit", seed=0)
    assert plain.foe == 0 and plain.rival is plain.policy
    # without `foe` the agent draws the numbers it drew before the option existed: its state has no rival
    assert set(plain.get_state()) == {"rng", "policy"}
    with pytest.raises(ValueError, match="foe"):
        make_agent("trained:hard:foe=65", "moonlit", seed=0)


def test_a_saved_agent_with_a_foe_continues_where_it_stood() -> None:
    agent = make_agent("trained:hard:playouts=2:verify=1:foe=2", RID, seed=7)
    twin = make_agent("trained:hard:playouts=2:verify=1:foe=2", RID, seed=99)
    combats = scripted_positions(f"{RID}/duel", 1, every=2)
    agent.act(combats[0])
    twin.set_state(agent.get_state())
    assert [agent.act(c) for c in combats[1:4]] == [twin.act(c) for c in combats[1:4]]


def test_with_answer_the_foe_makes_the_other_sides_decisions_in_the_look_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    # investigator's looks play the other side's reply (`reply=1`): with `answer` the foe plays it, not the script
    agent = make_agent("trained:hard:samples=2:foe=2:answer=1", RID, seed=0)
    seen: list[str] = []
    rival_act = agent.rival.act

    def spy(sim: Combat) -> Action:
        seen.append(sim.decision.side)
        return rival_act(sim)

    monkeypatch.setattr(agent.rival, "act", spy)
    combat = scripted_positions(f"{RID}/duel", 1, turns_only=True)[0]
    side = combat.decision.side
    before = agent.rival.get_state()
    agent.act(combat)
    assert seen and side not in seen
    assert agent.rival.get_state() != before  # the next decision's looks draw other numbers for the foe
    assert make_agent("trained:hard:foe=2", RID, seed=0).answer == 0  # off by default: the script answers
