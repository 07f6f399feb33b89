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
    ranked = getattr(policy, "ranked", None)  # a scripted agent (or a tempered one): its public ranking
    if ranked is None:  # an agent without scores: its choice, then the rest
        first = policy.act(combat)
        return [first] + [a for a in legal if a != first]
    order = ranked(combat).order(legal)
    allowed = getattr(policy, "allowed", None)  # a tempered policy: its combatant's temperament narrows the set
    if allowed is not None:
        keep = allowed(combat)
        if keep is not None:
            order = [a for a in order if a in keep] or order
    return order
