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
from itertools import groupby
from operator import itemgetter
from typing import TYPE_CHECKING, Generic

import numpy as np

from trpg_arena.rules.core.system import S, T
from trpg_arena.rules.core.values import Action, Decision

if TYPE_CHECKING:
    from trpg_arena.rules.core.combat import Combat

_VERB = itemgetter(0)  # an action's verb by position: `Action` is a named tuple, and its field descriptor is slower

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


def of_verb(actions: Iterable[Action], verb: str) -> list[Action]:
    """The actions of one verb, in their order.

    Policies scan the legal set with it rather than testing ``a.verb == Verb.X`` per action: reading an
    enum member costs an attribute hook each time, and a scan reads it once.
    """
    return [a for a in actions if a.verb == verb]


def grouped_by_verb(legal: Iterable[Action]) -> dict[str, list[Action]]:
    """The legal actions per verb, each in legal order.

    A legal set lists each verb's actions together, so it is grouped in runs: one dict write per run, not
    one per action.
    """
    return add_to_groups({}, legal)


def add_to_groups(by: dict[str, list[Action]], actions: Iterable[Action]) -> dict[str, list[Action]]:
    """`by` (actions per verb) with `actions` added, run by run, after those of their verb already there."""
    for verb, run in groupby(actions, _VERB):
        known = by.get(verb)
        if known is None:
            by[verb] = list(run)
        else:
            known.extend(run)
    return by


def pct(p: float) -> str:
    """A probability as a GM reads it: ``62 %``."""
    return f"{round(100 * max(0.0, min(1.0, p)))} %"


class Tactics(Generic[S, T]):
    """A rule system's scripted policy: the shared constructor and the shape of ``ranked``.

    The agents layer builds it as ``Tactics(ruleset=..., rng=...)`` and shares its generator with it (a
    policy that breaks ties draws from it; one that draws nothing keeps it for that contract). ``ranked``
    answers a lone legal action at once; every other decision is the system's `choose`.
    """

    def __init__(self, ruleset: str | None = None, rng: np.random.Generator | None = None) -> None:
        self.ruleset = ruleset
        self.rng = rng if rng is not None else np.random.default_rng()

    def ranked(self, combat: Combat[S, T]) -> Ranking:
        """The open decision's actions ranked: the choice, its value, reasons and scored runners-up (lazy)."""
        legal = combat.legal_view()  # the combat's own list, not a copy: `choose` only reads it
        if len(legal) == 1:
            return only(legal[0])
        d = combat.decision
        assert d is not None
        return self.choose(combat, d, legal)

    def choose(self, combat: Combat[S, T], decision: Decision, legal: list[Action]) -> Ranking:
        """The ranking of an open decision with two or more legal actions (`legal`, in the rules' order).

        `legal` is the combat's own cached list (`Combat.legal_view`), handed over without a copy: read it, never
        change it (a copy with ``list(legal)`` where a policy needs one of its own).
        """
        raise NotImplementedError(f"{type(self).__name__} ranks no decision")
