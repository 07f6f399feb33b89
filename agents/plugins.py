"""What each rule system brings to the agents: its `scripted` agent and its changes to the search presets.

A rule system names these on its `RuleSystem` (`scripted_agent`, `search_changes`); the agent registry
registers them here once every agent module is imported (`agents.spec`), for every system the kernel
found, those of ``TRPG_ARENA_RULES_PATH`` included. So a new system, a copy of ``rules/_template`` say,
plays with its own scripted agent without a line changed outside its folder.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from trpg_arena.agents.base import Agent
from trpg_arena.agents.proposal import Proposal
from trpg_arena.agents.scripted.choice import Choice, proposal_of
from trpg_arena.agents.search.agent import MCTSAgent
from trpg_arena.agents.search.presets import HELPS, LIMITS, presets_for
from trpg_arena.agents.spec import register_agent
from trpg_arena.rules import RULESETS, Action, Combat, RuleSystem


class PolicyAgent(Agent):
    """A system's scripted policy that needs only the rules (``ranked(combat)``), as an agent.

    The policy shares the agent's generator; what it remembers between decisions is that generator only.
    """

    policy_class: Any = None  # set on the subclass made for each system (`agent_class`)

    def __init__(self, ruleset: str | None = None, rng: np.random.Generator | None = None,
                 seed: int | None = None) -> None:
        super().__init__(ruleset, rng, seed)
        self.policy = self.policy_class(ruleset=ruleset, rng=self.rng)

    def ranked(self, combat: Combat) -> Choice:
        """The policy's ranking of the open decision's actions."""
        ranking: Choice = self.policy.ranked(combat)
        return ranking

    def act(self, combat: Combat) -> Action:
        """The action the policy ranks first."""
        return self.ranked(combat).action

    def propose(self, combat: Combat) -> Proposal:
        """The same choice as `act`, with its value, the reasons and the runners-up."""
        return proposal_of(self.ranked(combat))


def agent_class(system: RuleSystem) -> type | None:
    """The class of a system's `scripted` agent (`RuleSystem.scripted_agent`), made an agent if it is a bare policy."""
    where = system.scripted_agent
    if where is None:
        return None
    module_name, _, name = where.partition(":")
    package = type(system).__module__.rpartition(".")[0]  # the system's package, for a relative module
    cls = getattr(importlib.import_module(module_name, package=package if module_name.startswith(".") else None),
                  name)
    if isinstance(cls, type) and issubclass(cls, Agent):
        return cls
    # a policy written with the rules alone: an agent subclass named after it, so that specs and errors read well
    return type(cls.__name__, (PolicyAgent,), {"policy_class": cls, "__doc__": cls.__doc__,
                                               "__module__": cls.__module__})


def register_system_agents() -> None:
    """Register every rule system's scripted agent and, where its presets differ, its `mcts` agent."""
    for rid in RULESETS:
        system = RULESETS[rid]
        cls = agent_class(system)
        if cls is not None:
            register_agent("scripted", ruleset=rid)(cls)
        if system.search_changes:  # the same agent, registered again where a system's presets differ
            register_agent("mcts", ruleset=rid, presets=presets_for(rid), helps=HELPS, limits=LIMITS)(MCTSAgent)
