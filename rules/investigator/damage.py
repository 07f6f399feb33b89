"""Damage and healing (INV-11), conditions, channel interruption and the round-ending hit (INV-5.5, INV-10.5)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.investigator.compiled import Setup
from trpg_arena.rules.investigator.rolls import REGULAR, check
from trpg_arena.rules.investigator.state import Fighter, InvState
from trpg_arena.rules.investigator.verbs import Condition

if TYPE_CHECKING:
    from trpg_arena.rules.investigator.state import InvCombat


def add_condition(combat: InvCombat, f: Fighter, name: str, rule: str) -> None:
    """Set a boolean condition and emit ``condition_added`` (no event if already set)."""
    if getattr(f, name):
        return
    setattr(f, name, True)
    combat.state.dirty = True
    combat.emit("condition_added", f"{f.id} is now {combat.system.info.condition_text(name)}", actor=f.id, rule=rule,
                condition=name)
    if name in (Condition.PRONE, Condition.UNCONSCIOUS, Condition.DYING, Condition.DEAD) and f.channel_spell:
        interrupt_channel(combat, f, name)


def remove_condition(combat: InvCombat, f: Fighter, name: str, rule: str) -> None:
    """Clear a boolean condition and emit ``condition_removed``."""
    if not getattr(f, name):
        return
    setattr(f, name, False)
    combat.state.dirty = True
    combat.emit("condition_removed", f"{f.id} is no longer {combat.system.info.condition_text(name)}", actor=f.id,
                rule=rule, condition=name)


def interrupt_channel(combat: InvCombat, f: Fighter, reason: str) -> None:
    """End a multi-round cast without effect; the paid costs stay lost (INV-5.5)."""
    if not f.channel_spell:
        return
    spell = f.channel_spell
    f.channel_spell, f.channel_target, f.channel_done = "", "", 0
    combat.emit("cast_interrupted", f"{f.id}'s {spell} is interrupted ({reason})", actor=f.id, rule="INV-5.5",
                spell=spell, reason=reason)


def kill(combat: InvCombat, f: Fighter, rule: str = "INV-11.4") -> None:
    """Death: the body frees its square and keeps its items (INV-11.4)."""
    if f.dead:
        return
    if f.channel_spell:
        interrupt_channel(combat, f, "dead")
    f.dead = True
    f.dying = False
    f.dying_since = None
    combat.state.dirty = True
    combat.emit("condition_added", f"{f.id} dies", actor=f.id, rule=rule, condition=Condition.DEAD, square=f.pos)
    f.pos = None


def spend_round(combat: InvCombat, st: InvState, setup: Setup, f: Fighter, rule: str) -> None:
    """A hit ends the target's round (INV-10.5): cancel its action and turn, spend every slot."""
    f.prepare_used = f.move_used = f.opportunity_used = True
    f.standard_used = max(f.standard_used, setup.prof(f.id).actions)
    if st.stack and st.stack[0].kind == "action" and st.stack[0].actor == f.id and not st.stack[0].cancelled:
        st.stack[0].cancelled = True
        combat.emit("action_cancelled", f"{f.id}'s {st.stack[0].verb} is cut short and its round ends",
                    actor=f.id, rule=rule, verb=st.stack[0].verb)
    if st.turn_actor == f.id:
        st.turn_ended = True
    if f.channel_spell:
        interrupt_channel(combat, f, "hit")


def pow_check(combat: InvCombat, setup: Setup, f: Fighter, rule: str) -> bool:
    """A POW check (the spec's 精神检定); returns success."""
    _, lvl = check(combat, f.id, "POW", setup.prof(f.id).pow, rule=rule)
    return lvl >= REGULAR


def apply_damage(combat: InvCombat, setup: Setup, st: InvState, f: Fighter, dmg: int, *, wound: bool,
                 raw: int | None = None, halved: bool = False, armour: int = 0, rule: str = "INV-11.1") -> None:
    """Apply final damage `dmg` through INV-11.1 .. 11.5 (checks drawn here in the order stated)."""
    prof = setup.prof(f.id)
    hp0 = f.hp
    combat.emit("damage_applied",
                f"{f.id} takes {dmg} damage" + (f" (raw {raw}{', halved' if halved else ''}, armour {armour})"
                                                 if raw is not None else "") + f": hp {hp0} -> {hp0 - dmg}",
                actor=f.id, rule=rule, raw=raw, halved=halved, armour=armour, final=dmg, hp_before=hp0,
                hp_after=hp0 - dmg)
    if dmg <= 0:  # INV-11.1: no effect, no wound
        return
    f.hp = hp0 - dmg
    st.dirty = True
    if wound and not f.untreated_wound:
        f.untreated_wound = True
    if f.channel_spell:
        interrupt_channel(combat, f, "damage")
    basis = prof.max_hp if setup.opt.major_wound_basis == "max_hp" else hp0
    major = 2 * dmg >= basis
    if f.hp <= -3:  # INV-11.4
        kill(combat, f)
        return
    if major:  # INV-11.2: recorded in every branch except death
        add_condition(combat, f, Condition.MAJOR_WOUND, "INV-11.2")
    if f.hp < 0 or (f.hp == 0 and f.major_wound):  # INV-11.3 / INV-11.5
        _make_dying(combat, setup, st, f)
        return
    if f.hp == 0:  # INV-11.5 without a major wound
        add_condition(combat, f, Condition.PRONE, "INV-11.5")
        add_condition(combat, f, Condition.UNCONSCIOUS, "INV-11.5")
        return
    if major and not f.unconscious and not f.dying:  # INV-11.2
        _, lvl = check(combat, f.id, "CON", prof.con, rule="INV-11.2")
        if lvl < REGULAR:
            add_condition(combat, f, Condition.PRONE, "INV-11.2")
            if not pow_check(combat, setup, f, "INV-11.2"):
                add_condition(combat, f, Condition.UNCONSCIOUS, "INV-11.2")


def _make_dying(combat: InvCombat, setup: Setup, st: InvState, f: Fighter) -> None:
    was_dying = f.dying
    add_condition(combat, f, Condition.PRONE, "INV-11.3")
    if was_dying:
        return
    add_condition(combat, f, Condition.DYING, "INV-11.3")
    f.dying_since = st.round
    if not f.unconscious and not pow_check(combat, setup, f, "INV-11.3"):
        add_condition(combat, f, Condition.UNCONSCIOUS, "INV-11.3")


def heal(combat: InvCombat, setup: Setup, f: Fighter, amount: int, rule: str) -> None:
    """Heal up to max HP; at hp >= 1 dying ends (INV-5.2)."""
    before = f.hp
    f.hp = min(setup.prof(f.id).max_hp, f.hp + amount)
    combat.emit("healed", f"{f.id} heals {amount}: hp {before} -> {f.hp}", actor=f.id, rule=rule, amount=amount,
                hp_before=before, hp_after=f.hp)
    if f.hp >= 1 and f.dying:
        remove_condition(combat, f, Condition.DYING, rule)
        f.dying_since = None


def round_end_upkeep(combat: InvCombat, setup: Setup, st: InvState) -> None:
    """The dying deadline (option, INV-11.7) and the Luck/HP upkeep of the dying (INV-11.6), in initiative order."""
    opt = setup.opt
    if opt.dying_deadline:
        for cid in st.order:
            f = st.fighters[setup.idx[cid]]
            if f.dying and not f.dead and f.dying_since is not None and f.dying_since <= st.round - 1:
                combat.emit("dying_upkeep", f"{f.id} was not saved in time", actor=f.id, rule="INV-11.7")
                kill(combat, f, "INV-11.7")
    for cid in st.order:
        f = st.fighters[setup.idx[cid]]
        if not f.dying or f.dead:
            continue
        if opt.dying_grace_round and f.dying_since == st.round:
            continue
        if not f.unconscious:
            x = 0
            if f.luck > 0:
                x = combat.dice.roll(100, roller=f.id, purpose=f"Luck to stay conscious while dying (Luck {f.luck})")
            if f.luck > 0 and f.luck >= x:
                f.luck -= x
                combat.emit("luck_spent", f"{f.id} spends {x} Luck to stay conscious (Luck {f.luck})",
                            actor=f.id, rule="INV-11.6", dice=[x], spent=x, luck=f.luck)
                continue
            combat.emit("dying_upkeep", f"{f.id} cannot hold on" + (f" (rolled {x} > Luck {f.luck})" if x else
                                                                     " (no Luck)"),
                        actor=f.id, rule="INV-11.6", dice=[x] if x else [], luck=f.luck)
            add_condition(combat, f, Condition.UNCONSCIOUS, "INV-11.6")
        f.hp -= 1
        combat.emit("dying_upkeep", f"{f.id} loses 1 HP while dying: hp {f.hp}", actor=f.id, rule="INV-11.6",
                    hp=f.hp)
        if f.hp <= -3:
            kill(combat, f)
