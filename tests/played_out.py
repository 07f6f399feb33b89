"""Judging a departure from the script the way the tests of the `trained` agent do: played out to the end."""

from __future__ import annotations

from typing import Any

import numpy as np

from trpg_arena.agents import make_agent
from trpg_arena.rules import Action, Combat, DecisionKind, Dice, load_encounter


def played_out(combat: Combat, action: Action, side: str, seed: int) -> float:
    """`side`'s result (a win 1, a draw 0.5) after `action`, the scripted policy playing on both sides.

    The dice are `seed`'s, not the combat's own: a departure is judged on other dice than it was chosen on.
    """
    sim = combat.clone(dice=Dice(seed))
    policy = make_agent("scripted", combat.system.info.id, seed=seed)
    sim.act(action)
    while not sim.over:
        sim.act(policy.act(sim))
    result = sim.state.outcome.result
    return 1.0 if result == side else 0.5 if result == "draw" else 0.0


def scripted_positions(name: str, games: int, *, every: int = 1, turns_only: bool = False,
                       first: int = 0) -> list[Combat]:
    """Every `every`-th position of seeded scripted games (seeds `first` on) where the decider has a choice (in its
    own turn only, with `turns_only`): the positions the tests ask the `trained` agent about."""
    found: list[Combat] = []
    for seed in range(first, first + games):
        combat = Combat(load_encounter(name), seed=seed)
        script = make_agent("scripted", combat.system.info.id, seed=seed)
        k = 0
        while not combat.over:
            if len(combat.legal_view()) > 1 and (not turns_only or combat.decision.kind is DecisionKind.TURN):
                k += 1
                if k % every == 0:
                    found.append(combat.clone())
            combat.act(script.act(combat))
    return found


def kept_and_refused(name: str, loose: Any, checked: Any, games: int = 6) -> tuple[list[float], list[float]]:
    """The play-out gains of the departures `loose` proposes on every 2nd position of `games` scripted games of
    `name`, split by whether `checked` (the same agent with a check) takes them: kept, refused.

    A gain is the departure's result less the scripted choice's, each played out to the end 40 times on seeds
    5000-5039 (other dice than the agent's own)."""
    kept: list[float] = []
    refused: list[float] = []
    for combat in scripted_positions(name, games, every=2):
        side = combat.decision.side
        action, ranked, _ = loose._decide(combat)
        scripted = next((s.action for s in ranked if s.gain == 0.0), action)
        if action == scripted:
            continue
        gain = float(np.mean([played_out(combat, action, side, s) - played_out(combat, scripted, side, s)
                              for s in range(5000, 5040)]))
        (kept if checked.act(combat) == action else refused).append(gain)
    return kept, refused
