"""What a scripted decision returns (`Choice`, the kernel's `Ranking`) and the `Proposal` built from it.

`act` runs inside search playouts and benchmarks, so it must not pay for sentences. A scripted agent's
decision code (its public ``ranked(combat)``) therefore returns a `Choice` whose reasons and runners-up are
closures: `act` reads only ``.action``, `propose` calls them (`proposal_of`). Both run the same decision
code, so they choose the same action and draw the same numbers from the agent's RNG.
"""

from __future__ import annotations

from collections.abc import Iterable

from trpg_arena.agents.proposal import Alternative, Proposal
from trpg_arena.rules import Action
from trpg_arena.rules.core.ranking import Ranking, Rival, only, pct

__all__ = ["MAX_ALTERNATIVES", "Choice", "Rival", "alternatives", "only", "pct", "proposal_of"]

# The kernel's ranking is the scripted agents' choice (a system's own policy may need nothing but the rules).
Choice = Ranking

MAX_ALTERNATIVES = 3


def proposal_of(choice: Ranking) -> Proposal:
    """The `Proposal` for a choice: reasons, and up to three distinct runners-up, best first."""
    reasons = tuple(r for r in choice.why() if r)[:3]
    return Proposal(choice.action, float(choice.value), reasons or ("the scripted policy's choice",),
                    alternatives(choice.action, choice.rivals()))


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

