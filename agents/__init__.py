"""Agents that play combats at engine level: ``act(combat) -> Action``.

``make_agent("random" | "scripted" | ..., ruleset=..., seed=...)`` builds one by name; scripted
agents live in ``agents/scripted/<ruleset>.py`` and register themselves.
"""

from __future__ import annotations

from trpg_arena.agents.base import (
    Agent,
    FirstLegalAgent,
    RandomAgent,
    UnknownAgentError,
    agent_names,
    make_agent,
    register_agent,
)

__all__ = ["Agent", "FirstLegalAgent", "RandomAgent", "UnknownAgentError", "agent_names", "make_agent",
           "register_agent"]
