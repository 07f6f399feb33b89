"""What a scripted policy's decision is: the action ranked first, its value and lazy explanations.

A rule system's scripted policy (`RuleSystem.scripted_agent`) answers ``ranked(combat)`` with a `Ranking`;
the agents layer turns it into a proposal, the search orders its candidates by it and a temperament
re-weighs it. It lives in the kernel so that a system's own policy needs nothing but the rules.

Policies run inside search playouts and benchmarks, so a ranking must not pay for sentences: its reasons
and runners-up are closures, called only when someone asks for them (a proposal shown to a GM). They
never draw random numbers, so asking for them changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from trpg_arena.rules.core.values import Action

#: A runner-up: ``(value, action)`` or ``(value, action, note)``.
Rival = tuple[float, Action] | tuple[float, Action, str]


def _no_rivals() -> Iterable[Rival]:
    return ()


@dataclass(frozen=True, slots=True)
class Ranking:
    """A decision: the action chosen, its value on the policy's scale, and lazy explanations.

    `why` returns one to three GM sentences built from what the decision reasoned with; `rivals` returns
    scored legal actions (the chosen one may be among them; it is left out of the runners-up shown).
    """

    action: Action
    value: float
    why: Callable[..., Sequence[str]]  # often a lambda binding its loop variables as defaults (a=a)
    rivals: Callable[..., Iterable[Rival]] = _no_rivals

    def order(self, legal: Sequence[Action]) -> list[Action]:
        """Every legal action, most promising first: the choice, the rivals by value, then the rest in order."""
        scored = sorted(((float(r[0]), i, r[1]) for i, r in enumerate(self.rivals())), key=lambda t: (-t[0], t[1]))
        order = [self.action]
        seen = {self.action}
        for _, _, a in scored:
            if a not in seen:
                seen.add(a)
                order.append(a)
        order.extend(a for a in legal if a not in seen)
        return order


def only(action: Action) -> Ranking:
    """The ranking when a single action is legal."""
    return Ranking(action, 0.0, lambda: ("the only legal action",))


def pct(p: float) -> str:
    """A probability as a GM reads it: ``62 %``."""
    return f"{round(100 * max(0.0, min(1.0, p)))} %"
