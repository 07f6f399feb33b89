"""The `trained` presets where a rule system's own measurements changed them.

The agent is the same everywhere; only the numbers of its presets differ. Each change is registered
as that system's `trained` agent (a system's own registration is found before the generic one, as
the `mcts` presets of `RuleSystem.search_changes` are), so `trained:normal` on that system means the
tuned values, and a spec can still set every parameter by hand. Every entry names the series that
measured it (docs/strength.md).
"""

from __future__ import annotations

from typing import Any

from trpg_arena.agents.learned.agent import HELPS, LIMITS, PRESETS, TrainedAgent
from trpg_arena.agents.spec import register_agent

# reincarnator: a deviation from the script needs dice spread (flat = 1: no gain of win chance reaches 1).
# On its skirmish a third of `normal`'s deviations had none ('end turn' for 'cycle bolt', 'go prone' for
# 'reload' at +0.14): they stop the look-ahead at another point of the turn, so the value's bias between
# the two stopping points passed for a sure gain. 200 games (seed 700000): 50.8 % of decided games
# against scripted without the bar, 54.8 % with it (20 wins of 100 as the ambushed side, against 12).
SYSTEM_CHANGES: dict[str, dict[str, dict[str, Any]]] = {
    "reincarnator": {"normal": {"flat": 1.0}, "hard": {"flat": 1.0}, "deadly": {"flat": 1.0}},
}


def presets_for(ruleset: str) -> dict[str, dict[str, Any]]:
    """The `trained` presets of one rule system: the common ones with that system's changes."""
    changes = SYSTEM_CHANGES.get(ruleset, {})
    return {name: {**values, **changes.get(name, {})} for name, values in PRESETS.items()}


for _ruleset in SYSTEM_CHANGES:
    register_agent("trained", _ruleset, presets=presets_for(_ruleset), helps=HELPS, limits=LIMITS)(TrainedAgent)
