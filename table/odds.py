"""The odds of a person's attacks, as an NPC's proposal gives them: chance to hit, dice, expected damage.

`action_odds` reads them with the public queries of each system's tactics (``rules/<system>/tactics.py``),
the estimates its scripted policy reasons with, so a GM sees for a PC's choice the numbers an NPC's proposal
cites: reincarnator's dice pool against the defence, the
investigator's chance and damage, kiai's chance to land past the dodge and the wound it should leave,
moonlit's chance to hit and the damage through the target's defence.
"""

from __future__ import annotations

from collections.abc import Callable

from trpg_arena.rules import Action, Combat
from trpg_arena.rules.core.ranking import pct


def _reincarnator(combat: Combat, legal: list[Action]) -> dict[Action, str]:
    from trpg_arena.rules.reincarnator.tactics import ATTACKS, ReincarnatorTactics, p_any_success
    from trpg_arena.rules.reincarnator.verbs import Verb

    d = combat.decision
    assert d is not None
    tactics = ReincarnatorTactics("reincarnator")
    out = {}
    for a in legal:
        if a.verb not in (*ATTACKS, Verb.CHARGE, Verb.ACRO_CHARGE) or a.target is None:
            continue
        try:
            odds = tactics.attack_odds(combat, d.actor, a)
        except (KeyError, AssertionError, AttributeError, IndexError, TypeError):
            continue
        if odds is None:
            continue
        dice = odds.pool - odds.defence
        out[a] = f"{pct(p_any_success(dice))} to hit, {max(dice, 0)} dice ({odds.pool} - {odds.defence} defence)"
    return out


def _investigator(combat: Combat, legal: list[Action]) -> dict[Action, str]:
    from trpg_arena.rules.investigator.tactics import ATTACK_VERBS, InvestigatorTactics

    attacks = [a for a in legal if a.verb in ATTACK_VERBS]
    if not attacks:
        return {}
    tactics = InvestigatorTactics("investigator")
    out = {}
    for a in attacks:
        try:
            est = tactics.estimates(combat, [a]).get(a)
        except (KeyError, AssertionError, AttributeError, IndexError, TypeError):
            continue
        if est is not None:
            out[a] = f"{pct(est.p)} to hit, about {est.damage:.0f} damage"
    return out


def _kiai(combat: Combat, legal: list[Action]) -> dict[Action, str]:
    from trpg_arena.rules.kiai.context import LEVEL_NAMES
    from trpg_arena.rules.kiai.estimates import Estimator
    from trpg_arena.rules.kiai.tactics import STRIKES, charge_mult, strike_setup
    from trpg_arena.rules.kiai.verbs import AttackOption, Verb

    d = combat.decision
    assert d is not None
    strikes = [(a, a.target) for a in legal if a.verb in STRIKES and a.target is not None]
    if not strikes:
        return {}
    est = Estimator(combat)
    ctx = est.ctx
    me = est.st.fighters.get(d.actor)
    out = {}
    for a, target in strikes:
        t = est.st.fighters.get(target)
        if me is None or t is None:
            continue
        v, x, _ = strike_setup(est, me, a)
        pn, pc = est.land(v, t, x)
        dodge = f"vs dodge {est.dodge_value(t, x)[0]}" if est.can_react(t) else f"{t.id} cannot dodge"
        note = f"{pct(pn + pc)} to land (hit {v} {dodge})"
        if a.verb != Verb.FEINT:  # a feint opens the foe's dodge; it deals no damage
            hit: AttackOption | None = a.option if a.verb == Verb.ATTACK else None  # a reattack spends none
            ability = hit.ability if hit is not None else ""
            weapon = me.off if a.verb == Verb.OFFHAND_ATTACK else me.main
            dice = ctx.abilities[me.id][ability].level if ability else ctx.weapon(weapon).level
            base = 0 if ability and ctx.opts.ability_damage_base != "attack_value" else None
            mean, _ = est.damage(me.id, dice, base=base, mult=charge_mult(est, me) if a.verb == Verb.CHARGE else 1.0)
            spec = ctx.spec[t.id]
            through = mean - spec.defense - 5.5 * spec.armour.level
            levels = [name for name, need in zip(LEVEL_NAMES, ctx.thresholds[t.id]) if through >= need]
            note += (f", about {max(0, through):.0f} through its defence: "
                     f"{'a ' + levels[-1] + ' wound' if levels else 'no wound'} on average")
        out[a] = note
    return out


def _moonlit(combat: Combat, legal: list[Action]) -> dict[Action, str]:
    from trpg_arena.rules.moonlit.tactics import MoonlitTactics

    d = combat.decision
    assert d is not None
    tactics = MoonlitTactics("moonlit")
    out: dict[Action, str] = {}
    if d.step == "main":  # an attack skill: its best target (the target is named in a later step)
        for _, a, note in tactics.scored_attacks(combat, legal):
            out[a] = note()
    elif d.step == "target":
        for a in legal:
            e = tactics.target_strike(combat, a)
            if e is not None:
                g = combat.state.fighters[a.target]
                out[a] = f"{pct(e.p_hit)} to hit, about {e.damage:.0f} damage through ({g.hp}/{g.max_hp} HP)"
    return out


ODDS: dict[str, Callable[[Combat, list[Action]], dict[Action, str]]] = {
    "reincarnator": _reincarnator, "investigator": _investigator, "kiai": _kiai, "moonlit": _moonlit}


def action_odds(combat: Combat, legal: list[Action] | None = None) -> dict[Action, str]:
    """A short note of the odds for each legal attack of the open decision that can be estimated."""
    if combat.decision is None:
        return {}
    odds = ODDS.get(combat.system.info.id)
    if odds is None:
        return {}
    own = combat.legal_actions()
    if legal is not None:  # the legal set's own actions, whose options a system types per verb (as `Combat.act`
        # applies them): a caller's may come from JSON with plain tuples
        by_action = {a: a for a in own}
        own = [by_action.get(a, a) for a in legal]
    return odds(combat, own)
