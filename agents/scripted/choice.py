"""What a scripted decision returns: the action, its value, and how to explain it (built only on request).

`act` runs inside search playouts and benchmarks, so it must not pay for sentences. A scripted agent's
decision code therefore returns a `Choice` whose reasons and runners-up are closures: `act` reads only
``.action``, `propose` calls them to build the `Proposal`. Both run the same decision code, so they choose
the same action and draw the same numbers from the agent's RNG; the closures themselves never draw.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from trpg_arena.agents.proposal import Alternative, Proposal
from trpg_arena.rules import Action

#: A runner-up: ``(value, action)`` or ``(value, action, note)``.
Rival = tuple[float, Action] | tuple[float, Action, str]

MAX_ALTERNATIVES = 3


def _no_rivals() -> Iterable[Rival]:
    return ()


@dataclass(frozen=True, slots=True)
class Choice:
    """A decision: the action chosen, its value on the agent's scale, and lazy explanations.

    `why` returns one to three GM sentences built from what the decision reasoned with; `rivals` returns
    scored legal actions (the chosen one may be among them: it is left out of the alternatives).
    """

    action: Action
    value: float
    why: Callable[..., Sequence[str]]  # often a lambda binding its loop variables as defaults (a=a)
    rivals: Callable[..., Iterable[Rival]] = _no_rivals

    def proposal(self) -> Proposal:
        """The `Proposal` for this choice: reasons, and up to three distinct runners-up, best first."""
        reasons = tuple(r for r in self.why() if r)[:3]
        return Proposal(self.action, float(self.value), reasons or ("the scripted policy's choice",),
                        alternatives(self.action, self.rivals()))


def alternatives(chosen: Action, rivals: Iterable[Rival], limit: int = MAX_ALTERNATIVES) -> tuple[Alternative, ...]:
    """The best `limit` rivals other than `chosen`, each action once (at its best value), by value descending."""
    best: dict[Action, tuple[float, str]] = {}
    for rival in rivals:
        value, action = float(rival[0]), rival[1]
        if action == chosen:
            continue
        note = rival[2] if len(rival) > 2 else ""
        if action not in best or value > best[action][0]:
            best[action] = (value, note)
    order = sorted(best.items(), key=lambda item: -item[1][0])  # stable: equal values keep their order
    return tuple(Alternative(a, v, note) for a, (v, note) in order[:limit])


def only(action: Action) -> Choice:
    """The choice when a single action is legal."""
    return Choice(action, 0.0, lambda: ("the only legal action",))


def pct(p: float) -> str:
    """A probability as a GM reads it: ``62 %``."""
    return f"{round(100 * max(0.0, min(1.0, p)))} %"
