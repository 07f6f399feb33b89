"""The agent contract (`Agent`: ``propose``, ``act``, saved state) and the two baseline agents."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from trpg_arena.agents.proposal import Proposal
from trpg_arena.agents.spec import register_agent
from trpg_arena.rules import Action, Combat, Dice, IllegalActionError

Answer = TypeVar("Answer")


def rng_state(rng: np.random.Generator) -> dict[str, Any]:
    """JSON-safe state of a generator (`set_rng_state` continues it exactly)."""
    return dict(rng.bit_generator.state)


def set_rng_state(rng: np.random.Generator, state: dict[str, Any]) -> None:
    """Put a generator back into a state from `rng_state`."""
    rng.bit_generator.state = state


def _open_decision_only(method: Callable[..., Answer]) -> Callable[..., Answer]:
    """`method` (an agent's ``propose`` or ``act``) refusing a combat that is over, in words, before it starts.

    Asked about a finished combat, agents failed deep inside their own code (an ``AssertionError``, an
    ``IndexError``, numpy's "zero-size array"); `Combat.act` says the same thing this way.
    """
    @functools.wraps(method)
    def answer(self: Agent, combat: Combat, *args: Any, **kwargs: Any) -> Answer:
        if combat.over:
            who = f"agent '{self.spec}'" if self.spec else type(self).__name__
            raise IllegalActionError(f"the combat is over ({combat.result}): there is no decision for {who} to answer")
        return method(self, combat, *args, **kwargs)
    return answer


class Agent:
    """Answers the open decision of a combat with a `Proposal`; `act` is ``propose(...).action``.

    Built as ``cls(ruleset=..., rng=..., **params)`` (see `agents.spec`); all of its randomness comes from
    `rng`. `get_state` / `set_state` save and restore what it carries between decisions (its RNG and any
    memory), so a restored session makes exactly the choices an uninterrupted one would.
    """

    spec = ""  # the spec string it was built from (set by `make_agent`)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every agent's own ``propose`` and ``act`` refuse a finished combat (`_open_decision_only`)."""
        super().__init_subclass__(**kwargs)
        for name in ("propose", "act"):
            if name in cls.__dict__:
                setattr(cls, name, _open_decision_only(cls.__dict__[name]))

    def __init__(self, ruleset: str | None = None, rng: np.random.Generator | None = None,
                 seed: int | None = None) -> None:
        self.ruleset = ruleset
        self.rng = rng if rng is not None else np.random.default_rng(seed)

    @classmethod
    def check_params(cls, ruleset: str, params: dict[str, Any]) -> None:
        """Refuse, before anything starts, typed parameters the agent would refuse (a model file that does not load).

        `check_agent` calls it on the parameters a spec resolves to; the types and limits are checked already.
        """

    def propose(self, combat: Combat) -> Proposal:
        """The agent's choice for ``combat.decision``, its value, reasons and the runners-up."""
        raise NotImplementedError

    def act(self, combat: Combat) -> Action:
        """The proposed action (agents may override this with a faster path that chooses the same)."""
        return self.propose(combat).action

    def get_state(self) -> dict[str, Any]:
        """JSON-safe state: the RNG (subclasses add their memory)."""
        return {"rng": rng_state(self.rng)}

    def set_state(self, state: dict[str, Any]) -> None:
        """Continue from `get_state`'s value."""
        set_rng_state(self.rng, state["rng"])


@register_agent("random")
class RandomAgent(Agent):
    """Uniformly random among the legal actions (masked random play)."""

    @property
    def rng(self) -> np.random.Generator:
        """The agent's own generator (reseed by assigning a new one)."""
        return self._uniforms.rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        # uniforms drawn in blocks, exactly as the combat's dice draw them (one numpy call per 256 choices)
        self._uniforms = Dice(value)

    def act(self, combat: Combat) -> Action:
        """A uniformly random legal action."""
        legal = combat.legal_view()
        return legal[self._uniforms.roll(len(legal)) - 1]

    def propose(self, combat: Combat) -> Proposal:
        """A random legal action; every action is worth the same to this agent."""
        legal = combat.legal_view()
        action = self.act(combat)
        return Proposal(action, 0.0, (f"picked at random among {len(legal)} legal actions",), ())

    def get_state(self) -> dict[str, Any]:
        """The position in the block of uniforms."""
        return {"uniforms": self._uniforms.state()}

    def set_state(self, state: dict[str, Any]) -> None:
        """Continue from `get_state`'s value."""
        self._uniforms = Dice.from_state(state["uniforms"])


@register_agent("first")
class FirstLegalAgent(Agent):
    """Always the first legal action: a deterministic baseline for tests and benchmarks."""

    def propose(self, combat: Combat) -> Proposal:
        """The first legal action."""
        legal = combat.legal_view()
        return Proposal(legal[0], 0.0, ("the first legal action (a deterministic baseline)",), ())

    def act(self, combat: Combat) -> Action:
        """The first legal action."""
        return combat.legal_view()[0]
