"""The strike procedure (KIA-2.3): hit check, reaction window, dodge / attack-defense / counter, effect.

A strike is a `Frame` of kind ``strike`` on the state's stack; it runs until it needs a reaction
decision (R1, or R2 for a counter strike) and resumes when the decision is answered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import shared_decision
from trpg_arena.rules.kiai.checks import apply_mult, check, has, succeeded
from trpg_arena.rules.kiai.context import Ctx
from trpg_arena.rules.kiai.damage import charge_multiplier, damage_roll, take_damage
from trpg_arena.rules.kiai.manoeuvres import break_effect, disarm_effect
from trpg_arena.rules.kiai.state import CRITICAL, FUMBLE, GRADE_NAMES, SUCCESS, Fighter, Frame, KiaiState
from trpg_arena.rules.kiai.verbs import Condition, Verb

if TYPE_CHECKING:
    from trpg_arena.rules.kiai.state import KiaiCombat


def can_react(f: Fighter) -> bool:
    """KIA-3.5: stunned, incapacitated, dead (or fled) combatants get no reaction decision."""
    return not f.out and not has(f, Condition.STUNNED)


def hit_parts(ctx: Ctx, fr: Frame, att: Fighter) -> tuple[int, int, list[tuple[str, int]]]:
    """KIA-0.3: base, multiplier and additive modifiers of a strike's hit check (wounds are added by `check`)."""
    spec = ctx.spec[att.id]
    base = spec.magic_attack if fr.hit_base == "magic_attack" else spec.hit
    mods: list[tuple[str, int]] = []
    if fr.hit_mod:
        mods.append(("action", fr.hit_mod))
    if fr.tech_x:
        mods.append(("technique", -fr.tech_x))  # KIA-16.1
    if fr.hit_base == "hit" and att.conds and has(att, Condition.DECEIVED):
        mods.append(("deceived", -ctx.opts.illusion_penalty))  # KIA-23.3: hit and dodge only
    return base, fr.mult, mods


def hit_value(ctx: Ctx, fr: Frame, att: Fighter) -> int:
    """The effective hit value without the wound penalty."""
    base, mult, mods = hit_parts(ctx, fr, att)
    return apply_mult(base, mult) + sum(m for _, m in mods)


# the conditions the dodge loop reads, bound once: an enum member costs a class attribute lookup (slow on 3.11)
_HALVING = frozenset((Condition.EXPOSED_ALL_OUT, Condition.EXPOSED_CHARGE))  # KIA-13.1, KIA-17.3
_RUNNING, _CONCENTRATING, _DECEIVED = Condition.RUNNING, Condition.CONCENTRATING, Condition.DECEIVED


def dodge_parts(ctx: Ctx, tgt: Fighter, dodge_x: int) -> tuple[int, int, list[tuple[str, int]], bool]:
    """KIA-0.3 for dodge: halved once if exposed; technique, concentrate, running, illusion modifiers."""
    base = ctx.spec[tgt.id].dodge
    mult = 1
    mods: list[tuple[str, int]] = []
    twice = False
    for c in tgt.conds:
        t = c.type
        if t in _HALVING:
            mult = -2  # KIA-13.1, KIA-17.3: halving applies once
        elif t == _RUNNING:
            mods.append(("running", -20))  # KIA-8.2
        elif t == _CONCENTRATING:
            if c.mode == "twice":
                twice = True  # KIA-20.1
            else:
                mods.append(("concentrating", 20))
        elif t == _DECEIVED:
            mods.append(("deceived", -ctx.opts.illusion_penalty))
    if dodge_x:
        mods.append(("technique", -dodge_x))
    return base, mult, mods, twice


def dodge_check(combat: KiaiCombat, ctx: Ctx, tgt: Fighter, dodge_x: int) -> int:
    """KIA-3.1 (with KIA-20.1's best of two)."""
    base, mult, mods, twice = dodge_parts(ctx, tgt, dodge_x)
    return check(combat, ctx, tgt, "dodge", base, mult, mods, "KIA-3.1", twice=twice)


def strike_damage(combat: KiaiCombat, ctx: Ctx, fr: Frame) -> int:
    """KIA-4.1 / KIA-21.2 / KIA-17.2: the attacker's damage for this strike."""
    spec = ctx.spec[fr.attacker]
    if fr.ability:
        n = ctx.abilities[fr.attacker][fr.ability].level
        base = spec.attack if ctx.opts.ability_damage_base == "attack_value" else 0
        rule = "KIA-21.2"
    else:
        n = ctx.weapon(fr.weapon).level
        base = spec.attack
        rule = "KIA-4.1"
    mult = charge_multiplier(ctx, fr.attacker, fr.weapon) if fr.charge else (1, 1)
    return damage_roll(combat, ctx, fr.attacker, base, n, "KIA-17.2" if fr.charge else rule, mult=mult)


def defender_damage(combat: KiaiCombat, ctx: Ctx, d: Fighter, ability: str) -> int:
    """KIA-9.3 / KIA-9.5: the defender's damage with its main-hand weapon or a melee damage technique."""
    spec = ctx.spec[d.id]
    if ability:
        n = ctx.abilities[d.id][ability].level
        base = spec.attack if ctx.opts.ability_damage_base == "attack_value" else 0
        return damage_roll(combat, ctx, d.id, base, n, "KIA-9.5", purpose="parry damage")
    return damage_roll(combat, ctx, d.id, spec.attack, ctx.weapon(d.main).level, "KIA-9.3", purpose="parry damage")


def _resolved(combat: KiaiCombat, st: KiaiState, fr: Frame, result: str, rule: str) -> None:
    """Emit `strike_resolved` (miss | dodged | complete_dodge | blocked | lands) and remember the result."""
    how = ""
    if fr.reaction in (Verb.ATTACK_DEFENSE, Verb.COUNTER) and result == "blocked":
        how = f" by {fr.reaction.replace('_', '-')}"
    combat.emit("strike_resolved", f"{fr.attacker}'s {fr.skind} strike at {fr.target}: {result}{how} "
                f"({GRADE_NAMES[fr.grade]})", actor=fr.attacker, rule=rule, target=fr.target, result=result,
                grade=GRADE_NAMES[fr.grade], strike_kind=fr.skind, reaction=fr.reaction or None)
    st.last = result


def _pop(st: KiaiState, fr: Frame) -> None:
    if st.stack and st.stack[-1] is fr:
        st.stack.pop()


def run_strike(combat: KiaiCombat, ctx: Ctx, st: KiaiState, fr: Frame) -> None:
    """Advance one strike frame until it needs a decision or is finished (KIA-2.3)."""
    F = st.fighters
    att = F[fr.attacker]
    tgt = F[fr.target]
    if fr.step == "hit":
        base, mult, mods = hit_parts(ctx, fr, att)
        purpose = "magic attack" if fr.hit_base == "magic_attack" else "hit"
        grade = check(combat, ctx, att, purpose, base, mult, mods, "KIA-2.1")
        fr.grade = grade
        if not succeeded(grade):  # KIA-2.3 step 2: a miss rolls nothing else
            if grade == FUMBLE and fr.chain:
                att.chain_fumbled = True  # KIA-15.3
            _resolved(combat, st, fr, "miss", "KIA-2.3")
            _pop(st, fr)
            return
        fr.step = "react"
    if fr.step == "react":
        fr.step = "resolve"
        if can_react(tgt):  # KIA-3.4 reaction window
            kind = "R2" if fr.skind == "counter" else "R1"
            st.decision = shared_decision(tgt.id, kind, f"{fr.attacker}'s {fr.skind} strike "
                                          f"{'(CRITICAL) ' if fr.grade == CRITICAL else ''}hits {tgt.id}: react")
            return
        fr.reaction = Verb.NO_REACTION  # KIA-3.5
        combat.emit("reaction_declared", f"{tgt.id} cannot react", actor=tgt.id, rule="KIA-3.5",
                    reaction=Verb.NO_REACTION, ability=None)
    if fr.step == "resolve":
        _resolve(combat, ctx, st, fr, att, tgt)
        if fr.step != "effect":
            return
    if fr.step == "effect":
        _effect(combat, ctx, st, fr, att, tgt)
        return
    if fr.step == "negated":  # after the counter strike (KIA-10.2)
        st.last = "negated"
        _pop(st, fr)


def _resolve(combat: KiaiCombat, ctx: Ctx, st: KiaiState, fr: Frame, att: Fighter, tgt: Fighter) -> None:
    r = fr.reaction
    if r == Verb.DODGE:
        dg = dodge_check(combat, ctx, tgt, fr.dodge_x)
        if dg == CRITICAL:  # KIA-3.3 complete dodge
            _resolved(combat, st, fr, "complete_dodge", "KIA-3.3")
            _pop(st, fr)
            return
        if dg == SUCCESS:
            if fr.grade == CRITICAL:  # KIA-3.2: a critical dodged becomes a normal hit
                fr.grade = SUCCESS
            else:
                _resolved(combat, st, fr, "dodged", "KIA-3.1")
                _pop(st, fr)
                return
        fr.step = "effect"
        return
    if r in (Verb.ATTACK_DEFENSE, Verb.COUNTER):
        _parry(combat, ctx, st, fr, att, tgt, counter=r == Verb.COUNTER)
        return
    fr.step = "effect"  # no_reaction


def _parry(combat: KiaiCombat, ctx: Ctx, st: KiaiState, fr: Frame, att: Fighter, d: Fighter, *, counter: bool) -> None:
    """KIA-9.1 to KIA-9.5 and KIA-10.1 to KIA-10.4."""
    spec = ctx.spec[d.id]
    mods: list[tuple[str, int]] = []
    if counter:
        mods.append(("counter", -20))  # KIA-10.1
    if has(d, Condition.DECEIVED):
        mods.append(("deceived", -ctx.opts.illusion_penalty))
    rule = "KIA-10.1" if counter else "KIA-9.1"
    dg = check(combat, ctx, d, "counter" if counter else "attack-defense", spec.hit, 1, mods, rule)
    if not succeeded(dg):  # KIA-9.4 / KIA-10.3: lands, +1 level
        fr.rise += 1
        fr.step = "effect"
        return
    d.parry_used = True  # KIA-9.2: only a successful check uses it up
    a_dmg = strike_damage(combat, ctx, fr)
    fr.dmg = a_dmg
    b_dmg = defender_damage(combat, ctx, d, fr.react_ability)
    defender_wins = b_dmg > a_dmg or (b_dmg == a_dmg and ctx.opts.ad_tie_winner == "defender")
    if counter and not ctx.opts.counter_requires_winning:  # KIA-10.2, flag off: no comparison, it strikes back
        combat.emit("counter_unopposed", f"{fr.attacker} {a_dmg} and {d.id} {b_dmg}: the counter strikes back "
                    "without a comparison", actor=d.id, rule="KIA-10.2", attacker_damage=a_dmg,
                    defender_damage=b_dmg)
    else:
        combat.emit("comparison", f"{fr.attacker} {a_dmg} vs {d.id} {b_dmg}: "
                    f"{'defender' if defender_wins else 'attacker'} wins", actor=d.id,
                    rule="KIA-10.2" if counter else "KIA-9.3", attacker_damage=a_dmg, defender_damage=b_dmg,
                    winner="defender" if defender_wins else "attacker")
    if counter and (defender_wins or not ctx.opts.counter_requires_winning):
        _resolved(combat, st, fr, "blocked", "KIA-10.2")
        fr.step = "negated"
        st.stack.append(Frame("strike", "react", d.id, att.id, skind="counter", weapon=d.main, grade=dg,
                              dmg=a_dmg + b_dmg))
        return
    if not counter and defender_wins:
        _resolved(combat, st, fr, "blocked", "KIA-9.3")
        _pop(st, fr)
        return
    fr.step = "effect"


def _rises(fr: Frame) -> tuple[str, ...]:
    """The cause of each level a landing strike's wound goes up.

    Its critical (KIA-5.1, KIA-7.4); the defender's failed attack-defense or counter (KIA-9.4, KIA-10.3).
    """
    failed = "the failed counter" if fr.reaction == Verb.COUNTER else "the failed attack-defense"
    return ("the critical",) * (fr.grade == CRITICAL) + (failed,) * fr.rise


def _effect(combat: KiaiCombat, ctx: Ctx, st: KiaiState, fr: Frame, att: Fighter, tgt: Fighter) -> None:
    """KIA-2.3 step 5: the landing strike's effect."""
    _resolved(combat, st, fr, "lands", "KIA-2.3")
    _pop(st, fr)
    st.last = "lands"
    if fr.effect == "damage":
        dmg = fr.dmg if fr.dmg >= 0 else strike_damage(combat, ctx, fr)
        take_damage(combat, ctx, st, tgt.id, dmg, _rises(fr), "KIA-10.2" if fr.skind == "counter" else "KIA-7.3")
    elif fr.effect == "break":
        break_effect(combat, ctx, st, fr, att, tgt)
    elif fr.effect == "disarm":
        disarm_effect(combat, ctx, st, att, tgt)
    st.last = "lands"
