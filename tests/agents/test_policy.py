"""The trained-policy agent: it plays only legal actions, never substitutes one, and explains its choice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.console import Console

from tests.conftest import SYSTEMS
from trpg_arena.agents import make_agent
from trpg_arena.agents.codec import Codec
from trpg_arena.agents.policy import PolicyAgent, PolicyError
from trpg_arena.experiments.train import TrainArgs, run_training
from trpg_arena.rules import Combat, load_encounter
from trpg_arena.table.session import play

RID = SYSTEMS[0]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("train")
    return run_training(TrainArgs(encounter=f"{RID}/duel", steps=256, n_steps=128, eval_games=1, out=out),
                        Console(quiet=True))


class IllegalModel:
    """A stand-in model that always picks the first masked-out action: the bug the agent must report."""

    def predict(self, obs: np.ndarray, action_masks: np.ndarray, deterministic: bool = True) -> tuple[int, None]:
        return int(np.flatnonzero(~action_masks)[0]), None


def test_an_illegal_choice_raises_instead_of_being_replaced() -> None:
    combat = Combat(load_encounter(f"{RID}/duel"), seed=0)
    layout = Codec.for_combat(combat).layout()
    card = {"ruleset": RID, "encounter": "duel", "side": combat.sides[0], "layout": layout}
    agent = PolicyAgent.of_model(IllegalModel(), card)
    with pytest.raises(PolicyError, match="not legal"):
        agent.act(combat)


def test_a_trained_policy_plays_only_legal_actions_and_explains(trained: dict[str, Any]) -> None:
    agent = make_agent(f"policy:{trained['model']}", RID, seed=0)
    side = trained["side"]
    for seed in range(6):  # whole games on its side: every decision the policy makes is checked as legal
        combat = Combat(load_encounter(f"{RID}/duel"), seed=seed)
        other = next(s for s in combat.sides if s != side)
        play(combat, {side: agent, other: make_agent("random", RID, seed=seed)})
        assert combat.over
    combat = Combat(load_encounter(f"{RID}/duel"), seed=1)
    proposal = agent.propose(combat)
    assert combat.is_legal(proposal.action) and 0.0 < proposal.value <= 1.0 and proposal.reasons
    assert all(combat.is_legal(a.action) and a.action != proposal.action for a in proposal.alternatives)
    assert proposal.value + sum(a.value for a in proposal.alternatives) <= 1.0 + 1e-6


def test_a_model_without_its_card_is_still_checked_against_the_layout(trained: dict[str, Any],
                                                                      tmp_path: Path) -> None:
    bare = tmp_path / "bare.zip"
    bare.write_bytes(Path(trained["model"]).read_bytes())  # no bare.json beside it
    agent = make_agent(f"policy:{bare}", RID, seed=0)
    assert agent.card is None
    combat = Combat(load_encounter(f"{RID}/skirmish"), seed=0)  # the canonical layout fits every encounter
    play(combat, [agent, make_agent("random", RID, seed=0)])
    assert combat.over
    other = next(r for r in SYSTEMS if r != RID)  # another system's spaces differ: refused, saying so
    with pytest.raises(PolicyError, match="expects"):
        agent.act(Combat(load_encounter(f"{other}/duel"), seed=0))


def test_a_trained_policy_plays_an_encounter_it_never_saw(trained: dict[str, Any]) -> None:
    assert trained["layout"]["kind"] == "canonical" and trained["encounter"] == "duel"
    agent = make_agent(f"policy:{trained['model']}", RID, seed=0)
    for name in (f"{RID}/skirmish", f"{RID}/brawl"):
        combat = Combat(load_encounter(name), seed=2)
        play(combat, [agent, make_agent("random", RID, seed=2)])
        assert combat.over


def test_a_broken_card_is_a_located_error(trained: dict[str, Any], tmp_path: Path) -> None:
    model = tmp_path / "m.zip"
    model.write_bytes(Path(trained["model"]).read_bytes())
    (tmp_path / "m.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(PolicyError, match="m.json"):
        make_agent(f"policy:{model}", RID, seed=0)


def test_a_canonical_policy_plays_either_side(trained: dict[str, Any]) -> None:
    """Its observation is seen from the decider's side, so the side it trained on does not bind it."""
    agent = make_agent(f"policy:{trained['model']}", RID, seed=0)
    combat = Combat(load_encounter(f"{RID}/duel"), seed=0)
    play(combat, [agent, agent])
    assert combat.over


def test_an_encounter_layout_policy_refuses_the_side_it_was_not_trained_for() -> None:
    combat = Combat(load_encounter(f"{RID}/duel"), seed=0)
    card = {"ruleset": RID, "encounter": "duel", "side": "nobody", "layout": Codec.for_combat(combat).layout()}
    agent = PolicyAgent.of_model(IllegalModel(), card)
    with pytest.raises(PolicyError, match="trained to play side 'nobody'") as caught:
        agent.act(combat)
    assert "\n" not in str(caught.value)
