"""The order in which search considers a decision's actions: the scripted agent's scores.

The scripted agent's choice comes first, then the runners-up it scored, best first, then every other
legal action in the rules' order. Progressive widening adds children in this order, so with hundreds
of legal actions (a reincarnator turn) search spends its simulations on the few the heuristic rates.
"""

from __future__ import annotations

from typing import Any

from trpg_arena.rules import Action, Combat


def prior_order(policy: Any, combat: Combat) -> list[Action]:
    """The legal actions of `combat`'s open decision, most promising first by `policy`'s scores."""
    legal = combat.legal_view()
    if len(legal) == 1:
        return [legal[0]]
    choose = getattr(policy, "_choose", None)
    if choose is None:  # an agent without scores: its choice, then the rest
        first = policy.act(combat)
        return [first] + [a for a in legal if a != first]
    choice = choose(combat)
    scored = sorted(((float(r[0]), i, r[1]) for i, r in enumerate(choice.rivals())), key=lambda t: (-t[0], t[1]))
    order = [choice.action]
    seen = {choice.action}
    for _, _, a in scored:
        if a not in seen:
            seen.add(a)
            order.append(a)
    order.extend(a for a in legal if a not in seen)
    allowed = getattr(policy, "allowed", None)  # a tempered policy: its combatant's temperament narrows the set
    if allowed is not None:
        keep = allowed(combat)
        if keep is not None:
            order = [a for a in order if a in keep] or order
    return order
