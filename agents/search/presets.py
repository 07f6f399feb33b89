"""Difficulty presets of the `mcts` agent: search budget, temperature on the final choice, blunder guard.

`simulations` is the budget: play is reproducible from the seed and does not depend on the machine's
load. `time_limit` (seconds) is only a safety net for a GM's wait, set far above what the budget takes
on one core (when it binds, play depends on the machine's speed). From `normal` up the search stands on
the learned value where the system ships one (`value=auto`, `prior=auto`): the `trained` agent's
candidates at the root (`candidates`, `samples` as its own presets), the leaves scored by the learned
value. `temperature` samples the final choice by visit counts (0: the most visited); `guard` keeps the
best line when the fight looks won and the sampled action is worse by more than that much value.
A rule system changes these through its `RuleSystem.search_changes` (`presets_for`): every built-in
system searches the root paired (`paired=1.5:below=own`), because the UCB root let two unlucky
playouts starve the trained agent's choice (docs/search.md). Calibrated by `trpg-arena ladder`.
"""

from __future__ import annotations

from typing import Any

from trpg_arena.agents.spec import Limit
from trpg_arena.rules import RULESETS

PRESETS: dict[str, dict[str, Any]] = {
    "easy": {"simulations": 16, "time_limit": 2.0, "depth": 2, "temperature": 1.0, "guard": 0.25},
    "normal": {"simulations": 48, "time_limit": 5.0, "depth": 4, "temperature": 0.0,
               "value": "auto", "prior": "auto", "candidates": 5, "samples": 16},
    "hard": {"simulations": 192, "time_limit": 20.0, "depth": 6, "temperature": 0.0,
             "value": "auto", "prior": "auto", "candidates": 8, "samples": 32},
    "deadly": {"simulations": 768, "time_limit": 60.0, "depth": 8, "temperature": 0.0,
               "value": "auto", "prior": "auto", "candidates": 12, "samples": 64},
}

def presets_for(ruleset: str) -> dict[str, dict[str, Any]]:
    """The presets of one rule system: the common ones with its `search_changes`, then its `preset_changes`."""
    system = RULESETS[ruleset] if ruleset in RULESETS else None
    changes = system.search_changes if system else {}
    own = system.preset_changes if system else {}
    return {name: {**values, **changes, **own.get(name, {})} for name, values in PRESETS.items()}


# whose decisions below a paired root the tree searches; the others follow the scripted policy
BELOW = ("both", "own", "none")
# which root candidates a paired root plays out: those the trained agent rates above its choice, or all of them
RIVALS = ("above", "all")

HELPS: dict[str, str] = {
    "simulations": "playouts per decision (the budget: the same seed plays the same game on any machine)",
    "time_limit": "seconds per decision at most, a safety net for the GM's wait (0: no limit)",
    "depth": "decisions a playout follows the playout policy (`playout`) before the value function scores it",
    "c": "UCB1 exploration constant",
    "prior_weight": "weight of the scripted agent's ranking in selection",
    "widen": "progressive widening: children allowed = widen * visits^alpha",
    "alpha": "progressive widening exponent",
    "temperature": "final choice sampled by visits^(1/temperature); 0 picks the most visited",
    "guard": "when the fight looks won, keep the best line over a sampled one worse by this much value",
    "playout": "the playout and prior policy (default: the system's scripted agent)",
    "margin": "a UCB root (prior=scripted, or paired=0): leave the anchor's choice (the scripted or the trained "
              "agent's) only for one better by this many standard errors (a paired root tests by `paired` instead)",
    "reuse": "keep the subtree of the chosen action for the next decision",
    "value": "what scores a playout's end: 'hand' (value.py), 'learned' (the system's shipped model), 'auto' "
             "(learned where the system ships a model) or a model file",
    "prior": "the root's candidates: 'scripted' (every legal action, the scripted agent's order), 'trained' "
             "(the trained agent's scored candidates, its choice kept unless clearly beaten) or 'auto' "
             "(trained where the system ships a model)",
    "candidates": "prior=trained: actions the trained agent scores at the root",
    "samples": "prior=trained: dice samples per root candidate",
    "paired": "prior=trained: 0 searches the root by UCB; above 0 plays every candidate on the same dice equally "
              "often and leaves the trained choice only for a paired gain of this many standard errors",
    "below": "paired root: whose decisions below it the tree searches, both sides', our own only, or none (the "
             "rest follow the scripted policy)",
    "rivals": "paired root: which candidates contend with the trained choice, 'above' (those the trained agent "
              "rates above it) or 'all' (for playouts that reach the end of the fight, where no horizon biases "
              "the search's own look)",
    "pin": "prior=trained: 1 scores the root with the values a system pins for the search (investigator: its "
           "`trained:hard` look before the reply), 0 with the system's `trained:hard` as its presets now stand",
}

# The largest search a spec may ask for: the deadliest preset's budget many times over. A server cuts
# every search at its own time limit anyway (`trpg-arena serve --agent-seconds`).
MAX_SIMULATIONS = 100_000

# What each parameter allows: a spec outside these is refused with this list before any agent is built.
LIMITS: dict[str, Limit] = {
    "simulations": Limit(1, MAX_SIMULATIONS),
    "time_limit": Limit(0, 600),
    "depth": Limit(0, 1000),
    "c": Limit(0, 100, above=True),
    "prior_weight": Limit(0, 100),
    "widen": Limit(0, 100, above=True),
    "alpha": Limit(0, 1),
    "temperature": Limit(0, 100),
    "guard": Limit(0, 2),
    "margin": Limit(0, 100),
    # a playout is a fast policy: a search inside every playout would never end, a model file is not read
    "playout": Limit(choices=("scripted", "random", "first")),
    "prior": Limit(choices=("scripted", "trained", "auto")),
    "candidates": Limit(1, 64),
    "samples": Limit(1, 1000),
    "paired": Limit(0, 100),
    "below": Limit(choices=BELOW),
    "rivals": Limit(choices=RIVALS),
    "pin": Limit(0, 1),
}
