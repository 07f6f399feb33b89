"""Search agents: open-loop MCTS (`mcts`, presets easy/normal/hard/deadly) and its per-system value function."""

from trpg_arena.agents.search.agent import MCTSAgent
from trpg_arena.agents.search.value import position_value

__all__ = ["MCTSAgent", "position_value"]
