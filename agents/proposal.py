"""What every agent answers: a `Proposal` (the action, its value, reasons a GM reads, the runners-up)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from trpg_arena.rules import Action, Combat, RuleSystem
from trpg_arena.rules.core.ranking import Ranking, Rival

#: The runners-up a proposal shows at most.
MAX_ALTERNATIVES = 3


@dataclass(frozen=True, slots=True)
class Alternative:
    """A runner-up action with the value the agent gave it (and, optionally, why)."""

    action: Action
    value: float
    reason: str = ""

    def to_json(self, combat: Combat | None = None) -> dict[str, Any]:
        """JSON-safe form; with a combat, also the GM sentence of the action."""
        out = {"action": self.action.to_json(), "value": round(float(self.value), 4), "reason": self.reason}
        if combat is not None and not combat.over:
            out["text"] = combat.system.describe(combat, self.action)
        return out


@dataclass(frozen=True, slots=True)
class Proposal:
    """An agent's answer to the open decision.

    `value` is on the agent's own scale (scripted scores, search win estimates); higher is better.
    `reasons` are short sentences a GM reads ("B2 is the most wounded enemy in reach; 62 % to hit").
    `alternatives` are the next best actions, best first, never including `action`.
    """

    action: Action
    value: float = 0.0
    reasons: tuple[str, ...] = ()
    alternatives: tuple[Alternative, ...] = field(default_factory=tuple)

    def to_json(self, combat: Combat | None = None) -> dict[str, Any]:
        """JSON-safe form; with a combat (at the decision proposed for), the GM sentences too."""
        out: dict[str, Any] = {"action": self.action.to_json(), "value": round(float(self.value), 4),
                               "reasons": list(self.reasons),
                               "alternatives": [a.to_json(combat) for a in self.alternatives]}
        if combat is not None and not combat.over:
            out["text"] = combat.system.describe(combat, self.action)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Proposal:
        """Inverse of `to_json` (the GM sentences are not needed to rebuild it)."""
        return cls(Action.from_json(data["action"]), float(data.get("value", 0.0)), tuple(data.get("reasons", ())),
                   tuple(Alternative(Action.from_json(a["action"]), float(a["value"]), a.get("reason", ""))
                         for a in data.get("alternatives", ())))


def ranked(combat: Combat, scored: list[tuple[float, Action]], reasons: list[str] | tuple[str, ...],
           alternatives: int = 3, notes: dict[Action, str] | None = None) -> Proposal:
    """A proposal from scored legal actions: the best (first among equals) and the next best as alternatives.

    `scored` is in legal order; ties keep that order, so the choice is deterministic.
    """
    if not scored:
        raise ValueError("nothing to propose: no scored actions")
    order = sorted(range(len(scored)), key=lambda i: (-scored[i][0], i))
    best_value, best = scored[order[0]]
    notes = notes or {}
    alts = tuple(Alternative(scored[i][1], scored[i][0], notes.get(scored[i][1], ""))
                 for i in order[1:1 + alternatives])
    return Proposal(best, float(best_value), tuple(reasons) or (f"{combat.system.describe(combat, best)}",), alts)


def proposal_of(choice: Ranking, kind: Callable[[Action], Hashable] | None = None) -> Proposal:
    """The `Proposal` for a policy's ranking: reasons, and up to three distinct runners-up, best first.

    `kind`: what makes another choice (`alternatives`; the rule system's `choice_kind`).

    `act` runs inside search playouts and benchmarks, so a ranking's reasons and runners-up are closures
    (`rules.core.ranking`): only a proposal calls them. Both run the same decision code, so they choose the
    same action and draw the same numbers from the policy's generator.
    """
    reasons = tuple(r for r in choice.why() if r)[:3]
    return Proposal(choice.action, float(choice.value), reasons or ("the scripted policy's choice",),
                    alternatives(choice.action, choice.rivals(), kind=kind or RuleSystem.choice_kind))


def alternatives(chosen: Action, rivals: Iterable[Rival], limit: int = MAX_ALTERNATIVES,
                 kind: Callable[[Action], Hashable] = RuleSystem.choice_kind) -> tuple[Alternative, ...]:
    """The best `limit` rivals other than `chosen`, each action once (at its best value), by value descending.

    Different choices come first: the best rival of each `kind` not yet shown (the rule system's `choice_kind`:
    by default verb, target and option; the chosen action's own counts as shown), then the best of the rest if
    room is left. Otherwise other squares of the same walk or other end cells of the same charge filled the list
    (most of kiai's and investigator's scripted proposals on their skirmishes) and the GM never saw the attack or
    the retreat that came next.
    """
    best: dict[Action, tuple[float, str]] = {}
    for rival in rivals:
        value, action = float(rival[0]), rival[1]
        if action == chosen:
            continue
        note = rival[2] if len(rival) > 2 else ""
        if action not in best or value > best[action][0]:
            best[action] = (value, note)
    order = sorted(best.items(), key=lambda item: -item[1][0])  # stable: equal values keep their order
    shown = {kind(chosen)}
    different: list[tuple[Action, tuple[float, str]]] = []
    variants: list[tuple[Action, tuple[float, str]]] = []
    for item in order:
        its = kind(item[0])
        (variants if its in shown else different).append(item)
        shown.add(its)
    picked = different[:limit] + variants[:max(0, limit - len(different))]
    picked.sort(key=lambda item: -item[1][0])
    return tuple(Alternative(a, v, note) for a, (v, note) in picked)
