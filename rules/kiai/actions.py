"""Applying a chosen action (section 7): declarations, costs, movement and pushing the procedures."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.errors import InvalidActionError
from trpg_arena.rules.core.values import Action
from trpg_arena.rules.kiai.abilities import start_ability
from trpg_arena.rules.kiai.catalogue import describe
from trpg_arena.rules.kiai.checks import check, succeeded
from trpg_arena.rules.kiai.conditions import add_condition
from trpg_arena.rules.kiai.context import Ctx
from trpg_arena.rules.kiai.damage import check_end
from trpg_arena.rules.kiai.legal import FEINT_COST, tables_of
from trpg_arena.rules.kiai.manoeuvres import pick_up, ready_weapon
from trpg_arena.rules.kiai.state import Fighter, Frame, Hex, KiaiState
from trpg_arena.rules.kiai.verbs import AttackOption, Condition, ReattackOption, Verb

if TYPE_CHECKING:
    from trpg_arena.rules.kiai.state import KiaiCombat

ATTACK_TYPES = frozenset({Verb.ATTACK, Verb.TWO_WEAPON_ATTACK, Verb.OFFHAND_ATTACK, Verb.CONSECUTIVE_ATTACK, Verb.FEINT,
                          Verb.CHARGE, Verb.BREAK_WEAPON, Verb.DISARM, Verb.USE_ABILITY, Verb.REATTACK})  # KIA-24.1


def spend_kiai(combat: KiaiCombat, f: Fighter, amount: int, rule: str, *, spirit: bool = False) -> None:
    """KIA-0.4 / KIA-21.1: pay a cost in full on declaration."""
    if spirit:
        f.spirit -= amount
        left = f.spirit
    else:
        f.kiai -= amount
        left = f.kiai
    combat.emit("kiai_spent", f"{f.id} spends {amount} {'spirit' if spirit else 'kiai'} ({left} left)", actor=f.id,
                rule=rule, amount=amount, remaining=left, pool="spirit" if spirit else "kiai")


def _move(combat: KiaiCombat, ctx: Ctx, st: KiaiState, f: Fighter, dest: Hex, rule: str) -> None:
    """KIA-8.1 / KIA-8.3: follow the cheapest path that avoids enemies."""
    assert f.hex is not None
    fid = f.id
    if not combat.recording:  # the path is only read back for the log (headless envs record none)
        f.hex = dest
        f.moved = True
        return
    # the search of the legal list just offered, as a rule (the grid keeps it)
    found = ctx.grid.path(f.hex, dest, ctx.spec[fid].agility, enemy_mask(ctx, st, fid))
    assert found is not None, "a legal move reaches its hex"
    p, cost = found
    f.hex = dest
    f.moved = True
    texts = (ctx.tables or tables_of(ctx)).moved_texts
    combat.emit("moved", f"{fid}{texts[dest]}{cost})", actor=fid, rule=rule, path=p, cost=cost)


def enemy_mask(ctx: Ctx, st: KiaiState, cid: str) -> int:
    """Hexes a path may not enter (KIA-8.3), as a grid mask: those of enemies that are not out."""
    fighters = st.fighters
    bit = ctx.grid.bit
    m = 0
    for i in ctx.foes_of[cid]:
        f = fighters[i]
        if not f.out and f.hex is not None:
            m |= bit[f.hex]
    return m


def _strike(f: Fighter, target: str, *, skind: str = "melee", effect: str = "damage", ability: str = "", mult: int = 1,
            hit_mod: int = 0, tech_x: int = 0, dodge_x: int = 0, charge: bool = False, chain: bool = False) -> Frame:
    return Frame("strike", "hit", f.id, target, skind=skind, effect=effect, weapon=f.main, ability=ability, mult=mult,
                 hit_mod=hit_mod, tech_x=tech_x, dodge_x=dodge_x, charge=charge, chain=chain)


def _target(a: Action) -> str:
    """The target of an action whose verb takes one (every such action in a legal set names it)."""
    if a.target is None:
        raise InvalidActionError(f"{a.verb} needs a target")
    return a.target


def apply_action(combat: KiaiCombat, ctx: Ctx, st: KiaiState, kind: str, actor: str, a: Action) -> None:
    """Apply one legal action of `actor` at a decision of `kind`."""
    f = st.fighters[actor]
    verb = a.verb
    if verb in ATTACK_TYPES:
        f.attacked = True  # KIA-2.3 step 1
    if kind in ("R1", "R2", "R3"):
        _react(combat, ctx, st, f, a)
        return
    if combat.recording:
        combat.emit("action_declared", f"{actor} declares: {describe(a)}", actor=actor, rule="KIA-24.1",
                    verb=verb, target=a.target, dest=a.dest, option=a.option)
    if kind == "P1":
        st.reattack_index += 1
        if verb == Verb.REATTACK:  # KIA-12.1
            again: ReattackOption = a.option  # the legal set's own option (`Combat.act`)
            if again.all_out:
                add_condition(combat, f, Condition.EXPOSED_ALL_OUT, rule="KIA-13.1")
            st.stack.append(_strike(f, _target(a), mult=2 if again.all_out else 1, tech_x=again.technique,
                                    dodge_x=again.technique))
        return
    if verb == Verb.END_TURN:
        st.stage = "turn_end"
    elif verb == Verb.MOVE:
        _move(combat, ctx, st, f, a.dest, "KIA-8.1")
    elif verb == Verb.RUN:  # KIA-8.2
        _move(combat, ctx, st, f, a.dest, "KIA-8.2")
        f.ran = True
        add_condition(combat, f, Condition.RUNNING, rule="KIA-8.2")
        if not ctx.opts.run_allows_action:
            st.stage = "turn_end"
    elif verb == Verb.ATTACK:
        hit: AttackOption = a.option  # the legal set's own option (`Combat.act`)
        f.main_done = True
        if hit.ability:
            spend_kiai(combat, f, ctx.abilities[f.id][hit.ability].level, "KIA-21.1")
        if hit.all_out:
            add_condition(combat, f, Condition.EXPOSED_ALL_OUT, rule="KIA-13.1")
        f.chain_x, f.chain_all_out = hit.technique, hit.all_out
        st.stack.append(_strike(f, _target(a), mult=2 if hit.all_out else 1, tech_x=hit.technique,
                                dodge_x=hit.technique, ability=hit.ability, chain=True))
        st.stage = "d2"
    elif verb == Verb.CONSECUTIVE_ATTACK:
        _consecutive(combat, ctx, st, f, _target(a))
    elif verb == Verb.TWO_WEAPON_ATTACK:  # KIA-11.1
        ao = bool(a.option)
        f.main_done = True
        f.chain_all_out = ao
        if ao:
            add_condition(combat, f, Condition.EXPOSED_ALL_OUT, rule="KIA-13.1")
        st.stack.append(_strike(f, _target(a), mult=2 if ao else 1, hit_mod=-10))
        st.stage = "d3"
    elif verb == Verb.OFFHAND_ATTACK:
        st.stack.append(Frame("strike", "hit", f.id, _target(a), weapon=f.off,
                              mult=2 if f.chain_all_out else 1, hit_mod=-20))
        st.stage = "turn_end"
    else:
        _main(combat, ctx, st, f, a)


def _consecutive(combat: KiaiCombat, ctx: Ctx, st: KiaiState, f: Fighter, target: str) -> None:
    """KIA-15.1 to KIA-15.3, KIA-16.2."""
    if not f.chain_passed:
        agi = ctx.spec[f.id].agility
        if not succeeded(check(combat, ctx, f, "agility", agi, 1, [], "KIA-15.1")):
            st.stage = "turn_end"
            return
        f.chain_passed = True
    f.chain_k += 1
    k = f.chain_k
    x = f.chain_x
    dodge_x = x if ctx.opts.technique_chain_dodge_reduction else 0
    st.stack.append(_strike(f, target, mult=2 if f.chain_all_out else 1, hit_mod=-5 * k * (k + 1) // 2,
                            tech_x=x, dodge_x=dodge_x, chain=True))


def _main(combat: KiaiCombat, ctx: Ctx, st: KiaiState, f: Fighter, a: Action) -> None:
    """The main actions that end the turn."""
    verb = a.verb
    f.main_done = True
    st.stage = "turn_end"
    if verb == Verb.CHARGE:  # KIA-17.1 to KIA-17.3
        add_condition(combat, f, Condition.EXPOSED_CHARGE, rule="KIA-17.3")
        _move(combat, ctx, st, f, a.dest, "KIA-17.1")
        st.stack.append(_strike(f, _target(a), charge=True))
    elif verb == Verb.FEINT:  # KIA-14
        spend_kiai(combat, f, FEINT_COST, "KIA-14.2", spirit=ctx.opts.separate_spirit_pool)
        st.stack.append(Frame("feint", "start", f.id, _target(a), bonus_on=int(a.option)))
    elif verb == Verb.BREAK_WEAPON:  # KIA-18.1
        st.stack.append(_strike(f, _target(a), skind="manoeuvre", effect="break", mult=-2))
    elif verb == Verb.DISARM:  # KIA-19.1
        st.stack.append(_strike(f, _target(a), skind="manoeuvre", effect="disarm", mult=-2))
    elif verb == Verb.USE_ABILITY:  # KIA-21
        ab = ctx.abilities[f.id][a.option]
        spend_kiai(combat, f, ab.level, "KIA-21.1")
        start_ability(combat, ctx, st, f.id, ab, a.target, a.dest)
    elif verb == Verb.CONCENTRATE_DODGE:  # KIA-20.1
        add_condition(combat, f, Condition.CONCENTRATING, mode=str(a.option), rule="KIA-20.1")
    elif verb == Verb.READY_WEAPON:
        ready_weapon(combat, ctx, f, str(a.option))
    elif verb == Verb.PICK_UP:
        pick_up(combat, ctx, st, f, str(a.option))
    elif verb == Verb.FLEE:  # KIA-24.3
        f.out = "fled"
        f.hex = None
        combat.emit("fled", f"{f.id} flees the battle", actor=f.id, rule="KIA-24.3")
        check_end(combat, ctx, st)
    else:  # pragma: no cover - legal_actions never offers anything else
        raise RuntimeError(f"kiai: unknown verb {verb!r}")


def _react(combat: KiaiCombat, ctx: Ctx, st: KiaiState, f: Fighter, a: Action) -> None:
    """R1 / R2 / R3: record the reaction on the pending frame; pay technique costs (KIA-9.5, KIA-10.4)."""
    fr = st.stack[-1]
    verb = a.verb
    combat.emit("reaction_declared", f"{f.id} reacts: {describe(a)}", actor=f.id, rule="KIA-3.4", reaction=verb,
                ability=a.option)
    fr.reaction = verb
    fr.react_ability = a.option or ""
    if verb in (Verb.ATTACK_DEFENSE, Verb.COUNTER):
        if verb == Verb.COUNTER:
            f.countered = True  # KIA-10.1
        if a.option:
            spend_kiai(combat, f, 2 * ctx.abilities[f.id][a.option].level, "KIA-9.5" if verb == Verb.ATTACK_DEFENSE
                       else "KIA-10.4")
