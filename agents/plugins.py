"""What each rule system brings to the agents: its `scripted` agent and its changes to the search presets.

A rule system names these on its `RuleSystem` (`scripted_agent`, `search_changes`); the agent registry
registers them here once every agent module is imported (`agents.spec`), for every system the kernel
found, those of ``TRPG_ARENA_RULES_PATH`` included. So a new system, a copy of ``rules/_template`` say,
plays with its own scripted agent without a line changed outside its folder.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import replace
from typing import Any

import numpy as np

from trpg_arena.agents.base import Agent
from trpg_arena.agents.proposal import Proposal, alternatives, proposal_of
from trpg_arena.agents.search.agent import MCTSAgent
from trpg_arena.agents.search.presets import HELPS, LIMITS, presets_for
from trpg_arena.agents.spec import register_agent
from trpg_arena.rules import RULESETS, Action, Combat, RuleSystem
from trpg_arena.rules.core.ranking import Ranking


class PolicyAgent(Agent):
    """A system's scripted policy that needs only the rules (``ranked(combat)``), as an agent.

    The policy shares the agent's generator (also when one is assigned to the agent later); what it
    remembers between decisions is that generator only.
    """

    policy_class: Any = None  # set on the subclass made for each system (`agent_class`)

    def __init__(self, ruleset: str | None = None, rng: np.random.Generator | None = None,
                 seed: int | None = None) -> None:
        super().__init__(ruleset, rng, seed)
        self.policy = self.policy_class(ruleset=ruleset, rng=self.rng)

    @property
    def rng(self) -> np.random.Generator:
        """The agent's generator, which its policy draws its tie-breaks from."""
        return self._rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng = value
        policy = self.__dict__.get("policy")
        if policy is not None:  # a generator assigned after construction (a reseeded league seat) reaches the policy
            policy.rng = value

    def ranked(self, combat: Combat) -> Ranking:
        """The policy's ranking of the open decision's actions."""
        ranking: Ranking = self.policy.ranked(combat)
        return ranking

    def act(self, combat: Combat) -> Action:
        """The action the policy ranks first."""
        return self.ranked(combat).action

    def propose(self, combat: Combat) -> Proposal:
        """The same choice as `act`, with its value, the reasons and the runners-up.

        A ranking that scores no runner-up (a rule that fired alone) still shows the GM what else was legal,
        valued no higher than the choice.
        """
        choice = self.ranked(combat)
        proposal = proposal_of(choice, combat.system.choice_kind)
        if proposal.alternatives:
            return proposal
        others = [(min(0.0, choice.value), a, "also legal; this policy sees nothing gained by it")
                  for a in combat.legal_actions() if a != choice.action]
        return replace(proposal, alternatives=alternatives(choice.action, others, kind=combat.system.choice_kind))


def agent_class(system: RuleSystem) -> type | None:
    """The class of a system's `scripted` agent (`RuleSystem.scripted_agent`), made an agent if it is a bare policy."""
    where = system.scripted_agent
    if where is None:
        return None
    module_name, _, name = where.partition(":")
    # a relative module is relative to the module that names it (as a relative import would be), which may be
    # a parent class's: reincarnator's registered class subclasses the one its system.py defines
    owner = next(c for c in type(system).__mro__ if "scripted_agent" in vars(c))
    package = sys.modules[owner.__module__].__package__
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
