"""The agent contract and the agent registry: ``make_agent(name, ruleset=..., seed=...)``."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np

from trpg_arena.rules import RULESETS, Action, Combat, TrpgArenaError


@runtime_checkable
class Agent(Protocol):
    """Anything that answers the current decision of a combat with one legal `Action`."""

    def act(self, combat: Combat) -> Action:
        """Choose an action for ``combat.decision.actor``."""
        ...


class UnknownAgentError(TrpgArenaError, ValueError):
    """An agent name that no factory is registered for (for this rule system)."""


AgentFactory = Callable[[int | None], Agent]
_GENERIC: dict[str, Callable[[str, int | None], Agent]] = {}
_PER_SYSTEM: dict[tuple[str, str], AgentFactory] = {}
_discovered = False


def register_agent(name: str, ruleset: str | None = None) -> Callable[[type], type]:
    """Class decorator: register an agent under `name`, for every system or for one `ruleset`.

    Generic agent classes are built as ``cls(ruleset=..., seed=...)``; per-system ones as ``cls(seed=...)``.
    """

    def deco(cls: type) -> type:
        if ruleset is None:
            _GENERIC[name] = lambda rid, seed: cls(ruleset=rid, seed=seed)
        else:
            _PER_SYSTEM[(name, ruleset)] = lambda seed: cls(seed=seed)
        return cls

    return deco


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    import trpg_arena.agents as pkg

    for mod in pkgutil.walk_packages(pkg.__path__, prefix="trpg_arena.agents."):
        importlib.import_module(mod.name)


def agent_names(ruleset: str) -> list[str]:
    """Agent names usable with this rule system."""
    _discover()
    return sorted(set(_GENERIC) | {n for (n, r) in _PER_SYSTEM if r == ruleset})


def make_agent(name: str, ruleset: str, seed: int | None = None) -> Agent:
    """Build an agent by name (``"random"``, ``"scripted"``, ``"mcts"``, ``"policy:<model.zip>"``...)."""
    _discover()
    if name.startswith("policy:"):
        from trpg_arena.agents.policy import PolicyAgent

        return PolicyAgent(name.split(":", 1)[1], seed=seed)
    if ruleset not in RULESETS:
        raise UnknownAgentError(f"unknown rule system '{ruleset}' (known: {', '.join(RULESETS)})")
    if (name, ruleset) in _PER_SYSTEM:
        return _PER_SYSTEM[(name, ruleset)](seed)
    if name in _GENERIC:
        return _GENERIC[name](ruleset, seed)
    raise UnknownAgentError(f"no agent '{name}' for {ruleset} (known: {', '.join(agent_names(ruleset))})")


@register_agent("random")
class RandomAgent:
    """Uniformly random among the legal actions (masked random play), with its own seeded RNG."""

    def __init__(self, ruleset: str | None = None, seed: int | None = None) -> None:
        self.ruleset = ruleset
        self.rng = np.random.default_rng(seed)

    @property
    def rng(self) -> np.random.Generator:
        """The agent's own generator (reseed by assigning a new one)."""
        return self._rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng = value
        self._buf: list[float] = []
        self._pos = 0

    def act(self, combat: Combat) -> Action:
        """A uniformly random legal action (uniforms drawn in blocks: one numpy call per 256 choices)."""
        legal = combat.legal_view()
        if self._pos >= len(self._buf):
            self._buf = self._rng.random(256).tolist()
            self._pos = 0
        u = self._buf[self._pos]
        self._pos += 1
        return legal[int(u * len(legal))]


@register_agent("first")
class FirstLegalAgent:
    """Always the first legal action: a deterministic baseline for tests and benchmarks."""

    def __init__(self, ruleset: str | None = None, seed: int | None = None) -> None:
        self.ruleset = ruleset

    def act(self, combat: Combat) -> Action:
        """The first legal action."""
        return combat.legal_actions()[0]
