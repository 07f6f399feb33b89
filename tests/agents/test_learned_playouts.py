"""`playouts`: a deviation without dice spread is checked by playing it out to the end before it is taken."""

from __future__ import annotations

import numpy as np

from trpg_arena.agents import make_agent
from trpg_arena.agents.learned.agent import _NO_SPREAD
from trpg_arena.rules import Action, Combat, DecisionKind, Dice, load_encounter

RID = "reincarnator"


def _turn_positions(name: str, games: int) -> list[Combat]:
    """Positions of scripted games where the decider has a choice in its own turn."""
    found: list[Combat] = []
    for seed in range(games):
        combat = Combat(load_encounter(name), seed=seed)
        script = make_agent("scripted", RID, seed=seed)
        while not combat.over:
            if len(combat.legal_view()) > 1 and combat.decision.kind is DecisionKind.TURN:
                found.append(combat.clone())
            combat.act(script.act(combat))
    return found


def _played_out(combat: Combat, action: Action, side: str, seed: int) -> float:
    """`side`'s result (a win 1, a draw 0.5) after `action`, the scripted policy playing on both sides."""
    sim = combat.clone(dice=Dice(seed))
    policy = make_agent("scripted", RID, seed=seed)
    sim.act(action)
    while not sim.over:
        sim.act(policy.act(sim))
    result = sim.state.outcome.result
    return 1.0 if result == side else 0.5 if result == "draw" else 0.0


def test_a_deviation_without_dice_spread_is_taken_only_where_it_plays_out_better() -> None:
    # On reincarnator's duel the value prefers, without any dice spread, both steps that change nothing
    # (one square for another) and dropping the sword for a step, which really gains. `flat` cannot tell
    # them apart; playing each out to the end can. Judged here on other dice than the agent's own.
    loose = make_agent("trained:normal:flat=0:playouts=0", RID, seed=0)
    checked = make_agent("trained:normal:flat=0:playouts=16", RID, seed=0)
    kept: list[float] = []
    refused: list[float] = []
    for combat in _turn_positions(f"{RID}/duel", 30):
        side = combat.decision.side
        action, ranked, _ = loose._decide(combat)
        if not ranked or ranked[0].gain <= 0 or ranked[0].se >= _NO_SPREAD:
            continue  # not a departure without spread
        scripted = next(s.action for s in ranked if s.gain == 0.0)
        gain = float(np.mean([_played_out(combat, action, side, s) - _played_out(combat, scripted, side, s)
                              for s in range(5000, 5040)]))
        (kept if checked.act(combat) == action else refused).append(gain)
    assert kept and refused  # the check keeps some such departures and refuses others
    assert np.mean(kept) > 0.05 and np.mean(kept) > np.mean(refused) + 0.05


def test_reincarnators_presets_check_such_deviations_by_playouts() -> None:
    for preset in ("normal", "hard", "deadly"):
        agent = make_agent(f"trained:{preset}", RID, seed=0)
        assert agent.playouts == 16 and agent.flat == 0.0
    assert make_agent("trained:normal", "kiai", seed=0).playouts == 0  # the other systems are unchanged
