"""Combatant bookkeeping shared by every rule module: states, checks, HP, conditions, effects, the end check."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import Outcome, Termination
from trpg_arena.rules.moonlit.data import CONDITIONS, SKILLS, Skill
from trpg_arena.rules.moonlit.state import Check, Fighter, LastingEffect
from trpg_arena.rules.moonlit.tables import Stats, Table
from trpg_arena.rules.moonlit.verbs import Condition

if TYPE_CHECKING:
    from collections.abc import Callable

    from trpg_arena.rules.moonlit.state import MoonCombat, MoonState

ABLE = frozenset(("not_acted", "standby", "acted"))
GONE = frozenset(("dead", "fled", "absent"))
PRE_ENTRY = frozenset(("deploy", "round_start", "entry"))


def eff_action(f: Fighter, s: Stats) -> int:
    """Effective Action (MOON-13.3): 1 while paralysed."""
    return 1 if f.paralysis else s.action


def setup_key(f: Fighter, s: Stats, idx: int, by_ap: bool = False) -> tuple[int, int, int]:
    """Setup order (MOON-4.8): effective Action (or AP) descending, pc first, roster order."""
    return (-(f.ap if by_ap else eff_action(f, s)), 0 if s.kind == "pc" else 1, idx)


def priority_key(f: Fighter, s: Stats, idx: int) -> tuple[int, int, int, int]:
    """Priority order (MOON-5.2, 14.1): AP descending, pc first, effective Action descending, roster order."""
    return (-f.ap, 0 if s.kind == "pc" else 1, -eff_action(f, s), idx)


def first_by_priority(st: MoonState, t: Table, ok: Callable[[str, Fighter], bool]) -> Fighter | None:
    """The combatant of the turn order that `ok` accepts (given its id and itself) first in priority order, or None."""
    fs, stats, order = st.fighters, t.stats, st.order
    best = min((n for n, i in enumerate(order) if ok(i, fs[i])),
               key=lambda n: priority_key(fs[order[n]], stats[order[n]], n), default=None)
    return None if best is None else fs[order[best]]


def set_state(c: MoonCombat, f: Fighter, new: str, cause: str, rule: str | None = None) -> None:
    """Change a combatant's state (MOON-2.1), counting ten seconds per `acted` in the main loop (MOON-6.2)."""
    old = f.state
    if old == new:
        return
    f.state = new
    st = c.state
    if old == "incapacitated":
        st.downed -= 1
    elif new == "incapacitated":
        st.downed += 1
    c.emit("state_changed", f"{f.id}: {old} -> {new} ({cause})", actor=f.id, rule=rule or "MOON-2.1",
           combatant=f.id, **{"from": old}, to=new, cause=cause)
    if new == "acted" and st.phase == "main":
        st.elapsed += 10  # MOON-6.2
        c.emit("time_advanced", f"{st.elapsed} seconds have passed", rule="MOON-6.2", elapsed_seconds=st.elapsed)


def ap_drop(c: MoonCombat, f: Fighter, amount: int, cause: str) -> None:
    """Lower AP; a not_acted combatant at AP <= 0 becomes acted at once (MOON-2.7)."""
    f.ap -= amount
    c.emit("ap_set", f"{f.id}: AP {f.ap + amount} -> {f.ap} ({cause})", actor=f.id, rule="MOON-2.7",
           combatant=f.id, ap=f.ap, ap_roll=f.ap_roll, cause=cause)
    end_turn_at_zero_ap(c, f, "no action points left")


def end_turn_at_zero_ap(c: MoonCombat, f: Fighter, cause: str) -> None:
    """MOON-2.7: a not_acted combatant whose rolled AP is 0 or below becomes acted at once (standby is exempt)."""
    if f.state == "not_acted" and f.ap <= 0 and c.state.ap_rolled:
        set_state(c, f, "acted", cause, "MOON-2.7")


def check_mods(f: Fighter, passive: bool) -> list[tuple[str, int]]:
    """Condition and marker modifiers of a check (MOON-0.7): bind, failed escape / ambush (counted once)."""
    mods: list[tuple[str, int]] = []
    if f.bind:
        mods.append(("bind", -3))  # MOON-13.4
    if f.mark_escape or (passive and f.mark_ambush):
        mods.append(("ambushed", -3))  # MOON-4.5 / 14.6, never twice
    return mods


def hit_mods(t: Table, f: Fighter, sk: Skill, offense: list[str]) -> list[tuple[str, int]]:
    """The modifiers of `f`'s hit or counter check with `sk` and the `offense` skills (MOON-0.7, 15.8).

    Its conditions and markers, the offense skills' hit modifiers, its weapon's where the type matches, and its
    lasting ``hit`` effects (battle_focus, stimulant).
    """
    mods = check_mods(f, passive=False)
    off_mod = sum(SKILLS[o].hit_mod for o in offense)
    if off_mod:
        mods.append(("offense", off_mod))
    w = t.stats[f.id].weapon
    if w is not None and w.type == sk.type and w.hit_mod:
        mods.append((w.id, w.hit_mod))  # MOON-15.8
    mods += [(e.source, e.value) for e in f.effects if e.kind == "hit"]
    return mods


def roll_check(c: MoonCombat, roller: str, purpose: str, base: int, mods: list[tuple[str, int]],
               rule: str, stat: str = "") -> Check:
    """Roll a 2D6 check (MOON-0.1/0.2): natural + base + modifiers; critical (0.3) and fumble (0.4).

    `stat` names the base (``melee``, ``body``) and each modifier is named in the log's sentence.
    """
    d1, d2 = c.dice.roll_many(2, 6, roller=roller, purpose=purpose)
    nat = d1 + d2
    total = nat + base + sum(m for _, m in mods)
    o = c.tables.opts
    crit = nat >= o.moon_crit_natural
    fumble = not crit and nat <= o.moon_fumble_natural
    tag = " critical" if crit else " fumble" if fumble else ""
    named = "".join(f" {'-' if m < 0 else '+'} {name.replace('_', ' ')} {abs(m)}" for name, m in mods if m)
    c.emit("roll", f"{roller} {purpose}: [{d1},{d2}] {nat} + {stat or 'base'} {base}{named} = {total}{tag}",
           actor=roller, rule=rule, roller=roller, purpose=purpose, dice=[d1, d2], natural=nat, base=base,
           modifiers=[list(m) for m in mods], total=total, critical=crit, fumble=fumble)
    return Check(nat, total, crit, fumble)


def active_wins(a: Check, p: Check) -> bool:
    """MOON-0.5: an active check against a passive one; the passive side wins ties."""
    if p.crit or a.fumble:
        return False
    return a.crit or p.fumble or a.total > p.total


def beats_target(ch: Check, target: int) -> bool:
    """MOON-0.6: a check against a target number."""
    return ch.crit or (not ch.fumble and ch.total >= target)


def roll_dice(c: MoonCombat, n: int, roller: str, purpose: str, rule: str) -> list[int]:
    """Roll n d6 (damage, reduction, heal) and log them."""
    dice = c.dice.roll_many(n, 6, roller=roller, purpose=purpose)
    c.emit("roll", f"{roller} {purpose}: {dice} = {sum(dice)}", actor=roller, rule=rule, roller=roller,
           purpose=purpose, dice=dice, natural=sum(dice), base=0, modifiers=[], total=sum(dice), critical=False,
           fumble=False)
    return dice


# --- effects -----------------------------------------------------------------------------------
def add_effect(c: MoonCombat, f: Fighter, source: str, kind: str, value: int, duration: str) -> None:
    """Add a lasting effect; the same (source, receiver) replaces the old one (MOON-14.2, 14.4)."""
    f.effects = [e for e in f.effects if e.source != source]
    f.effects.append(LastingEffect(source, kind, value, duration))


# --- conditions ---------------------------------------------------------------------------------
def conditions_of(f: Fighter) -> list[Condition]:
    """Conditions a combatant has, in the fixed order poison, paralysis, bind, trance, baptism."""
    return [cond for cond in CONDITIONS if getattr(f, cond)]  # each condition is the fighter field of its name


# what a combatant with each on/off condition is (``B1 is already bound``)
AFFLICTED: dict[str, str] = {Condition.PARALYSIS: "paralysed", Condition.BIND: "bound", Condition.TRANCE: "tranced",
                             Condition.BAPTISM: "baptised"}


def add_condition(c: MoonCombat, f: Fighter, cond: str, cause: str) -> None:
    """Inflict a condition (MOON-13.1): poison stacks (13.2); others have no effect when already present."""
    if cond == Condition.POISON:
        f.poison += 1
    elif getattr(f, cond):
        c.emit("condition_added", f"{f.id} is already {AFFLICTED[cond]}: no effect", actor=f.id, rule="MOON-13.1",
               combatant=f.id, condition=cond, stacks=1, cause=cause, changed=False)
        return
    else:
        setattr(f, cond, True)
    poison = cond == Condition.POISON
    c.emit("condition_added", f"{f.id} gains {cond}" + (f" ({f.poison} stacks)" if poison else ""),
           actor=f.id, rule="MOON-13.1", combatant=f.id, condition=cond, stacks=f.poison if poison else 1,
           cause=cause, changed=True)
    if cond == Condition.PARALYSIS and c.tables.opts.moon_paralysis_current_ap and c.state.ap_rolled:
        # MOON-13.3 (flag): paralysis after the AP roll also lowers current AP by Action - 1.
        ap_drop(c, f, c.tables.stats[f.id].action - 1, "paralysis")


def remove_condition(c: MoonCombat, f: Fighter, cond: str, cause: str) -> None:
    """Remove a condition (poison: every stack at once, MOON-13.2)."""
    stacks = f.poison
    if cond == Condition.POISON:
        f.poison = 0
    else:
        setattr(f, cond, False)
    c.emit("condition_removed", f"{f.id} is rid of {cond}", actor=f.id, rule="MOON-13.1", combatant=f.id,
           condition=cond, stacks=stacks if cond == Condition.POISON else 1, cause=cause)


# --- HP -----------------------------------------------------------------------------------------
def vanish(c: MoonCombat, f: Fighter, cause: str) -> None:
    """A summon leaves play (MOON-14.3, 15.7)."""
    s = c.tables.stats[f.id]
    set_state(c, f, "absent", cause, "MOON-15.7")
    f.zone = None
    f.pending = None
    c.emit("summon_vanished", f"{f.id} vanishes ({cause})", actor=f.id, rule="MOON-15.7", summon=f.id,
           summoner=s.summoner)


def vanish_summons_of(c: MoonCombat, summoner: str) -> None:
    """Every present summon of a summoner vanishes (MOON-15.7)."""
    st = c.state
    for sid in c.tables.summons_of.get(summoner, ()):
        g = st.fighters[sid]
        if g.state != "absent":
            vanish(c, g, f"{summoner} is out")


def fall(c: MoonCombat, f: Fighter, cause: str) -> None:
    """HP reached 0: incapacitated (MOON-11.2), or vanished for a summon (MOON-15.7)."""
    st = c.state
    f.pending = None
    f.countering = False
    if c.tables.stats[f.id].is_summon:
        vanish(c, f, "reduced to 0 HP")
        return
    set_state(c, f, "incapacitated", cause, "MOON-11.2")
    if st.atk is not None:
        st.vanish_later.append(f.id)  # MOON-8.1 step 10
    else:
        vanish_summons_of(c, f.id)


def lose_hp(c: MoonCombat, f: Fighter, amount: int, cause: str, actual: bool) -> None:
    """HP loss (MOON-11.1): floor at 0, death_rebirth (15.6), incapacitation (11.2), standby break (9.2)."""
    if amount <= 0 or f.state in GONE:
        return
    before = f.hp
    f.hp = max(0, f.hp - amount)
    if cause != "attack":
        c.emit("hp_lost", f"{f.id} loses {before - f.hp} HP ({cause}) -> {f.hp}", actor=f.id, rule="MOON-11.1",
               combatant=f.id, amount=before - f.hp, cause=cause, hp_after=f.hp)
    if f.hp == 0 and before > 0:
        s = c.tables.stats[f.id]
        if (not f.rebirth_used and not f.baptism and "death_rebirth" in s.skills):
            f.rebirth_used = True  # MOON-15.6
            f.hp = min(10, f.max_hp)
            # the loss's own event reported HP 0 (`hp_after`); this one takes it from there
            c.emit("trait_triggered", f"{f.id}: death_rebirth! HP 0 -> {f.hp} instead of falling", actor=f.id,
                   rule="MOON-15.6", combatant=f.id, trait="death_rebirth", hp_before=0, hp_after=f.hp)
        else:
            fall(c, f, cause)
            return
    if actual and f.state == "standby" and not f.countering and f.pending is not None:
        break_standby(c, f)


def break_standby(c: MoonCombat, f: Fighter) -> None:
    """MOON-9.2: actual damage breaks standby: not_acted if AP > 0, else acted; costs are not refunded."""
    f.pending = None
    c.emit("standby_broken", f"{f.id}'s standby is broken", actor=f.id, rule="MOON-9.2", combatant=f.id)
    set_state(c, f, "not_acted" if f.ap > 0 else "acted", "standby broken", "MOON-9.2")


def heal(c: MoonCombat, f: Fighter, amount: int, source: str, flat: int = 0) -> None:
    """Healing (MOON-11.5) capped at the current maximum (11.7); revives the incapacitated (11.4).

    `flat` is the part of `amount` that is no die (the log names it: ``heals 3 (1 rolled + 2 regeneration)``).
    """
    if f.state in GONE:
        return  # MOON-11.6
    f.hp = min(f.max_hp, f.hp + amount)
    parts = f" ({amount - flat} rolled + {flat} {source})" if flat else ""
    c.emit("healed", f"{f.id} heals {amount}{parts} -> HP {f.hp}", actor=f.id, rule="MOON-11.5", combatant=f.id,
           amount=amount, hp_after=f.hp, source=source)
    if f.state == "incapacitated" and f.hp > 0:
        st = c.state
        if st.phase == "setup":
            set_state(c, f, "not_acted", "revived", "MOON-11.4")
            if st.ap_rolled:
                roll_ap(c, f, "revived")
        else:
            set_state(c, f, "acted", "revived", "MOON-11.4")


def roll_ap(c: MoonCombat, f: Fighter, cause: str) -> None:
    """MOON-4.6: AP = effective Action + 2D6 (not a check)."""
    s = c.tables.stats[f.id]
    d1, d2 = c.dice.roll_many(2, 6, roller=f.id, purpose="the action points of the round (AP)")
    f.ap_roll = d1 + d2
    f.ap = eff_action(f, s) + f.ap_roll
    c.emit("ap_set", f"{f.id}: AP {eff_action(f, s)} + [{d1},{d2}] = {f.ap}", actor=f.id, rule="MOON-4.6",
           combatant=f.id, ap=f.ap, ap_roll=f.ap_roll, dice=[d1, d2], cause=cause)


def cap_damage(c: MoonCombat, f: Fighter, amount: int) -> None:
    """MOON-12.1: lower maximum HP (minimum 1), then cap HP; not actual damage."""
    f.max_hp = max(1, f.max_hp - amount)
    f.hp = min(f.hp, f.max_hp)
    c.emit("cap_damage", f"{f.id}: cap damage {amount} -> max HP {f.max_hp}, HP {f.hp}", actor=f.id,
           rule="MOON-12.1", combatant=f.id, amount=amount, max_hp_after=f.max_hp, hp_after=f.hp)


# --- end of combat --------------------------------------------------------------------------------
def check_end(c: MoonCombat) -> bool:
    """Section 9: a side is out with no able non-summon combatant and no pending arrival."""
    st = c.state
    t = c.tables
    out = []
    for side in ("A", "B"):  # a plain loop: it runs after every main action (a closure with any() is ~2.5x slower)
        alive = False
        for cid in t.ids:
            s = t.stats[cid]
            if s.side != side or s.is_summon:
                continue
            f = st.fighters[cid]
            if f.state in ABLE or (f.state == "absent" and cid in t.arrivals and (
                    t.arrivals[cid][0] > st.round or (t.arrivals[cid][0] == st.round and st.step in PRE_ENTRY))):
                alive = True
                break
        if not alive:
            out.append(side)
    if not out:
        return False
    if len(out) == 2:
        finish(c, None, Termination.MUTUAL)
    else:
        loser = out[0]
        winner = "B" if loser == "A" else "A"
        fled = all(st.fighters[cid].state == "fled" for cid in t.ids
                   if t.stats[cid].side == loser and not t.stats[cid].is_summon)
        finish(c, winner, Termination.FLED if fled else Termination.ELIMINATED)
    return True


def finish(c: MoonCombat, winner: str | None, why: Termination) -> None:
    """End the combat (section 9), clearing conditions first under MOON-1.4's flag."""
    st = c.state
    t = c.tables
    if t.opts.moon_clear_conditions_on_end:
        for f in st.fighters.values():
            for cond in conditions_of(f):
                remove_condition(c, f, cond, "combat over")
    final = {cid: {"state": st.fighters[cid].state, "hp": st.fighters[cid].hp, "max_hp": st.fighters[cid].max_hp,
                   "conditions": conditions_of(st.fighters[cid])} for cid in st.order}
    c.emit("combat_end", f"combat over: {'draw' if winner is None else 'side ' + winner + ' wins'} ({why.value})",
           rule="MOON-7.5", result="win" if winner else "draw", winner=winner, reason=why.value, rounds=st.round,
           elapsed_seconds=st.elapsed, final=final)
    st.outcome = Outcome(winner, why, st.round)
    st.decision = None
    st.atk = None
