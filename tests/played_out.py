"""Judging a departure from the script the way the tests of the `trained` agent do: played out to the end."""

from __future__ import annotations

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


def scripted_positions(name: str, games: int, *, every: int = 1, turns_only: bool = False) -> list[Combat]:
    """Every `every`-th position of seeded scripted games where the decider has a choice (in its own turn only,
    with `turns_only`): the positions the tests ask the `trained` agent about."""
    found: list[Combat] = []
    for seed in range(games):
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
