"""The template's scripted policy: what its `scripted` agent plays (named by `TemplateSystem.scripted_agent`).

It needs nothing but the rules: ``ranked(combat)`` returns a `Ranking` of the open decision's actions,
and the agents layer makes the class an agent (proposals, search priors, temperaments). A copy of the
folder is a new system with its own scripted agent, and nothing outside the folder changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.ranking import Ranking, Tactics, pct
from trpg_arena.rules.core.values import Action, Decision

from .state import TemplateState
from .tables import Tables

if TYPE_CHECKING:
    from .state import TemplateCombat


class TemplateTactics(Tactics[TemplateState, Tables]):
    """Hits the foe with the fewest hit points left (a foe a hit may drop first); passes only when it must.

    Ties are broken in roster order: it draws nothing from its generator.
    """

    def choose(self, combat: TemplateCombat, decision: Decision, legal: list[Action]) -> Ranking:
        """A hit on the weakest foe first, the other hits after, pass last."""
        st, t = combat.state, combat.tables
        chance = (7 - t.options.hit_on) / 6  # TPL-1.1: a d6 of hit_on or more

        def worth(a: Action) -> float:
            # the chance to hit, more for a foe closer to dropping (one hit point left: the hit ends it)
            return 0.0 if a.target is None else chance * (1.0 + 1.0 / max(1, st.hp[a.target]))

        best = max(legal, key=worth)  # first of equals: the rules' order
        return Ranking(best, worth(best),
                       lambda: (f"{pct(chance)} to hit; {best.target} has {st.hp.get(best.target or '', 0)} "
                                "hit points left, the fewest of the foes",),
                       lambda: [(worth(a), a) for a in legal])
