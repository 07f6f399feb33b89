"""The odds of a person's attacks, as an NPC's proposal gives them: chance to hit, dice, expected damage.

`action_odds` reads them with the same estimates the scripted agents reason with, so a GM sees for a
PC's choice the numbers an NPC's proposal cites. Systems without an estimate here return nothing
(kiai and moonlit: their agents' estimates are not yet split out per action).
"""

from __future__ import annotations

from collections.abc import Callable

from trpg_arena.agents.scripted.choice import pct
from trpg_arena.rules import Action, Combat


def _reincarnator(combat: Combat, legal: list[Action]) -> dict[Action, str]:
    from trpg_arena.agents.scripted.reincarnator import ATTACKS, ReincarnatorScripted, p_any_success
    from trpg_arena.rules.reincarnator.actions import opts, uid

    d = combat.decision
    assert d is not None
    agent = ReincarnatorScripted("reincarnator")
    out = {}
    for a in legal:
        if a.verb not in (*ATTACKS, "charge", "acro_charge") or a.target is None:
            continue
        try:
            o = tuple(uid(combat, d.actor, x) for x in opts(a))
            odds = agent.odds(combat, agent.pending_of(combat, d.actor, a, o), a.target)
        except (KeyError, AssertionError, AttributeError, IndexError, TypeError):
            continue
        if odds is None:
            continue
        dice = odds.pool - odds.defence
        out[a] = f"{pct(p_any_success(dice))} to hit, {max(dice, 0)} dice ({odds.pool} - {odds.defence} defence)"
    return out


def _investigator(combat: Combat, legal: list[Action]) -> dict[Action, str]:
    from trpg_arena.agents.scripted.investigator import ATTACK_VERBS, NO_ATTACK, InvestigatorScriptedAgent

    agent = InvestigatorScriptedAgent("investigator")
    attacks = [a for a in legal if a.verb in ATTACK_VERBS]
    if not attacks:
        return {}
    agent._choose(combat)  # sets up what its estimates read (the decider, friends and foes)
    out = {}
    for a in attacks:
        try:
            est = agent._estimate(a)
        except (KeyError, AssertionError, AttributeError, IndexError, TypeError):
            continue
        if est.score > NO_ATTACK:
            out[a] = f"{pct(est.p)} to hit, about {est.damage:.0f} damage"
    return out


ODDS: dict[str, Callable[[Combat, list[Action]], dict[Action, str]]] = {
    "reincarnator": _reincarnator, "investigator": _investigator}


def action_odds(combat: Combat, legal: list[Action] | None = None) -> dict[Action, str]:
    """A short note of the odds for each legal attack of the open decision that can be estimated."""
    if combat.decision is None:
        return {}
    odds = ODDS.get(combat.system.info.id)
    return odds(combat, legal if legal is not None else combat.legal_actions()) if odds else {}
