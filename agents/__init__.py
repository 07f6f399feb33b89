"""Agents that play combats at engine level (the session loop that seats them is `trpg_arena.table`).

An agent is named by a spec string (``scripted``, ``mcts:hard``, ``policy:model.zip``) and built by
``make_agent(spec, ruleset, seed=...)``; it answers ``propose(combat) -> Proposal`` and ``act(combat)``.
Each rule system's scripted policy lives in its own folder (``rules/<ruleset>/tactics.py``, named by its
``scripted_agent``); `agents.plugins` makes it the ``scripted`` agent of that system.
"""

from __future__ import annotations

from trpg_arena.agents.base import Agent, FirstLegalAgent, RandomAgent
from trpg_arena.agents.proposal import Alternative, Proposal
from trpg_arena.agents.spec import (
    AgentInfo,
    AgentSpec,
    UnknownAgentError,
    agent_infos,
    agent_names,
    make_agent,
    register_agent,
)

__all__ = ["Agent", "AgentInfo", "AgentSpec", "Alternative", "FirstLegalAgent", "Proposal", "RandomAgent",
           "UnknownAgentError", "agent_infos", "agent_names", "make_agent", "register_agent"]
