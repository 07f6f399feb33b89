"""Attacks: melee of every kind, throws and shots, with defense, maneuvers, flanking and damage.

Rules INV-0.3, 0.7-0.10, 6.1-6.8, 7.1-7.3, 8.1-8.9, 9.1, 9.2, 10.1, 10.5. An attack is a frame on the stack:
``declare`` opens the target's defense decision when it has one, ``roll`` draws every die and applies the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.battlefield import chebyshev
from trpg_arena.rules.investigator.compiled import Setup, WeaponT
from trpg_arena.rules.investigator.damage import add_condition, apply_damage, interrupt_channel, spend_round
from trpg_arena.rules.investigator.legal import fighter, melee_weapon, shot_band, wielded_item
from trpg_arena.rules.investigator.rolls import (
    EXTREME,
    FAILURE,
    FUMBLE,
    HARD,
    LEVELS,
    REGULAR,
    Expr,
    check,
    trunc_half,
)
from trpg_arena.rules.investigator.sight import line_status
from trpg_arena.rules.investigator.state import Fighter, Frame, GroundItem, InvState, Item
from trpg_arena.rules.investigator.verbs import Condition, Verb

if TYPE_CHECKING:
    from trpg_arena.rules.investigator.state import InvCombat

PREPARED = "prepared technique"  # the source named for a pending bonus die (INV-4.1)
# the rule an attack's result cites when its target defended; an undefended attack cites the attack's own rule
DEFENSE_RULE: dict[str, str] = {Verb.DODGE: "INV-8.3", Verb.FIGHT_BACK: "INV-8.4"}


def take_bonus(f: Fighter, kinds: tuple[str, ...]) -> list[str]:
    """Use up a matching pending bonus (INV-4.1): the bonus die it gives, named, or none."""
    if f.bonus_to and any(k in f.bonus_to for k in kinds):
        f.bonus_to = None
        f.bonus_expires = ""
        return [PREPARED]
    return []


def effective(lvl: int, required: int) -> int:
    """Effective attack level E (INV-0.3)."""
    if lvl >= required:
        return lvl
    return FUMBLE if lvl == FUMBLE else FAILURE


def flanked(setup: Setup, st: InvState, a: Fighter, t: Fighter) -> bool:
    """INV-8.6: an able hostile of `t` stands on the square opposite `a` across `t`."""
    assert a.pos is not None and t.pos is not None
    dx, dy = t.pos[0] - a.pos[0], t.pos[1] - a.pos[1]
    opt = setup.opt
    if opt.flanking_geometry == "diagonal_only" and not (abs(dx) == 1 and abs(dy) == 1):
        return False
    opp = (t.pos[0] + dx, t.pos[1] + dy)
    tside = setup.side_of[t.id]
    for f in st.fighters:
        if f.pos == opp and f is not a and f.able and setup.side_of[f.id] != tside:
            return not opt.flanking_requires_attack or f.id in t.melee_attackers
    return False


def roll_damage(combat: InvCombat, setup: Setup, who: Fighter, expr: Expr, db_mode: str, impale: bool,
                extreme: bool, rule: str) -> int:
    """Raw damage (INV-0.7): weapon dice then DB dice; extreme = maxima plus an impale roll. Floored at 0."""
    db = setup.prof(who.id).db if db_mode != "none" else Expr((), 0)
    faces: list[int] = []
    if extreme:
        dbv = db.maximum
        if db_mode == "half":
            dbv = trunc_half(dbv)
        total = expr.maximum + dbv
        how = f"extreme: max {expr} = {expr.maximum}, DB {dbv}"
        if impale:
            v, faces = expr.roll(combat, who.id, "impaling damage")
            total += v
            how += f", impale {expr} = {v}"
    else:
        wv, faces = expr.roll(combat, who.id, "damage")
        dv, dfaces = db.roll(combat, who.id, "the damage bonus")
        faces = faces + dfaces
        if db_mode == "half":
            dv = trunc_half(dv)
        total = wv + dv
        how = f"{expr} = {wv}" + (f", DB {dv}" if db_mode != "none" and (db.dice or db.flat) else "")
    total = max(0, total)
    combat.emit("damage_roll", f"{who.id} rolls damage: {how} -> {total}", actor=who.id, rule=rule, dice=faces,
                total=total, extreme=extreme)
    return total


def deal(combat: InvCombat, setup: Setup, st: InvState, a: Fighter, t: Fighter, expr: Expr, db_mode: str,
         impale: bool, lvl: int, *, halve: bool, rule: str) -> None:
    """Roll and apply weapon damage from `a` to `t` (INV-0.7, 0.8, 10.1, 11.1)."""
    extreme = setup.opt.extreme_damage and lvl >= EXTREME
    raw = roll_damage(combat, setup, a, expr, db_mode, impale, extreme, rule)
    total = raw // 2 if halve else raw
    armour = setup.prof(t.id).armour
    apply_damage(combat, setup, st, t, max(0, total - armour), wound=True, raw=raw, halved=halve, armour=armour)


def drop(st: InvState, pos: tuple[int, int], item: Item) -> None:
    """Put an item on a square, merging thrown units of the same id (INV-8.8)."""
    for g in st.ground:
        if g.pos == pos and g.item.id == item.id:
            g.item.count += item.count
            return
    st.ground.append(GroundItem(pos, item))


def push_attack(st: InvState, verb: str, attacker: str, target: str, maneuver: str = "", shots: int = 1) -> None:
    """Start an attack sub-procedure."""
    st.stack.append(Frame("attack", "declare", attacker, verb=verb, target=target, head=maneuver, shots=shots))


def run_attack(combat: InvCombat, setup: Setup, st: InvState, fr: Frame) -> bool:
    """Advance an attack frame; True when a decision was opened."""
    t = fighter(setup, st, fr.target)
    if fr.step == "declare":
        fr.step = "roll"
        opt = setup.opt
        if fr.verb == "shot":
            want = opt.dive_for_cover and t.able and not t.prone and not t.lose_next_standard  # INV-6.3
        elif fr.verb == Verb.THROW:
            want = opt.dodge_thrown and t.able  # INV-8.8
        else:
            want = t.able  # INV-8.3
        if want:
            st.decision = setup.decision(t.id, "defense", fr.actor, fr.verb)
            return True
        fr.defense = "none"
        return False
    st.stack.pop()
    a = fighter(setup, st, fr.actor)
    if fr.verb == "shot":
        resolve_shot(combat, setup, st, a, t, fr)
    elif fr.verb == Verb.THROW:
        resolve_throw(combat, setup, st, a, t, fr)
    else:
        resolve_melee(combat, setup, st, a, t, fr)
    st.dirty = True
    return False


def _defend(combat: InvCombat, setup: Setup, t: Fighter, how: str, e: int) -> int:
    """The defender's check (drawn after the attacker's); returns its level. Counts the defense (INV-8.7)."""
    t.defenses += 1
    if how == Verb.DODGE:
        b = take_bonus(t, ("dodge",))
        _, lvl = check(combat, t.id, "Dodge", setup.prof(t.id).skill("Dodge"), bonus_from=b, rule="INV-8.3")
        return lvl
    w = melee_weapon(setup, t)
    b = take_bonus(t, ("fight_back",))
    _, lvl = check(combat, t.id, w.skill, setup.prof(t.id).skill(w.skill), bonus_from=b, rule="INV-8.4")
    return lvl


def resolve_melee(combat: InvCombat, setup: Setup, st: InvState, a: Fighter, t: Fighter, fr: Frame) -> None:
    """Any melee attack (INV-8.1, 8.3-8.7, 7.x, 9.x, 10.1); the frame holds kind, maneuver and defense."""
    opt = setup.opt
    w = melee_weapon(setup, a)
    kind = fr.verb
    required = REGULAR
    why = ""
    bonus: list[str] = []  # one named source per bonus die, one per penalty die (INV-0.4)
    penalty: list[str] = []
    if kind == "melee" and a.moved_long:  # INV-8.5 / INV-4.8; a pursuit attack never counts as moving
        if opt.moving_attack_penalty == "difficulty":
            required = EXTREME if required == EXTREME else required + 1
            why = "it moved far this round"
        else:
            penalty.append("moved far this round")
    if a.pos is not None and t.pos is not None and flanked(setup, st, a, t):  # INV-8.6
        bonus.append("flanking")
    if opt.outnumbered and t.defenses >= max(1, setup.prof(t.id).actions):  # INV-8.7
        bonus.append("target outnumbered")
    if opt.prone_modifiers:  # INV-11.8
        bonus += ["prone target"] if t.prone else []
        penalty += ["prone attacker"] if a.prone else []
    if fr.head:  # INV-7.3
        diff = setup.prof(t.id).build - setup.prof(a.id).build
        penalty += ["target's bigger Build"] * max(0, min(2, diff))
        bonus += take_bonus(a, ("maneuver", "melee"))
    else:
        bonus += take_bonus(a, ("melee",))
    label = {"melee": "melee", "opportunity": "opportunity attack", "pursuit": "pursuit attack",
             "pursue": "pursuit"}[kind]
    _, lvl = check(combat, a.id, w.skill, setup.prof(a.id).skill(w.skill), bonus_from=bonus, penalty_from=penalty,
                   required=required, rule="INV-8.1", why=why)
    e = effective(lvl, required)
    how = fr.defense
    hit = False
    d = FAILURE
    if how in (Verb.DODGE, Verb.FIGHT_BACK):
        d = _defend(combat, setup, t, how, e)
        if how == Verb.DODGE:
            hit = e >= REGULAR and not d >= e
            result = "hit" if hit else ("dodged" if e >= REGULAR else "miss")
        elif d >= REGULAR and d > e:
            result = "fought back"
        elif e >= REGULAR and e >= d:
            hit, result = True, "hit"
        else:
            result = "miss"
    else:
        hit = e >= REGULAR
        result = "hit" if hit else "miss"
    if a.id not in t.melee_attackers:
        t.melee_attackers.append(a.id)
    combat.emit("attack_result", f"{a.id}'s {label}{' (' + fr.head + ')' if fr.head else ''} on {t.id}: {result}",
                actor=a.id, rule=DEFENSE_RULE.get(how, "INV-8.1"), target=t.id, attack=kind,
                maneuver=fr.head or None, result=result, level=LEVELS[lvl], effective=LEVELS[e])
    if result == "fought back":  # INV-8.4: full damage to the attacker, never ends a round
        tw = melee_weapon(setup, t)
        deal(combat, setup, st, t, a, tw.damage, tw.db_mode, tw.impale, d, halve=False, rule="INV-8.4")
        return
    if lvl == FUMBLE and kind in ("melee", "pursue"):
        _fumble(setup, st, a)
    if not hit:
        return
    if t.channel_spell:
        interrupt_channel(combat, t, "hit")
    if fr.head:
        apply_maneuver(combat, setup, st, a, t, fr.head)
    else:
        deal(combat, setup, st, a, t, w.damage, w.db_mode, w.impale, e, halve=kind == "opportunity",
             rule="INV-10.1" if kind == "opportunity" else "INV-0.7")
    if kind in ("opportunity", "pursuit"):  # INV-10.5
        spend_round(combat, st, setup, t, "INV-10.5")
    if kind == "pursue" and not t.had_turn:  # INV-9.2
        t.had_turn = True
        combat.emit("turn_lost", f"{t.id} loses its coming turn", actor=t.id, rule="INV-9.2")


def _fumble(setup: Setup, st: InvState, a: Fighter) -> None:
    """INV-0.9: with ``lose_turn``, a fumbled attack in one's own turn ends that turn."""
    if setup.opt.fumble_policy == "lose_turn" and st.turn_actor == a.id:
        st.turn_ended = True


def apply_maneuver(combat: InvCombat, setup: Setup, st: InvState, a: Fighter, t: Fighter, man: str) -> None:
    """Maneuver effects (INV-7.2)."""
    if man == "knock_down":
        add_condition(combat, t, Condition.PRONE, "INV-7.2")
    elif man == "disarm":
        it = wielded_item(t)
        if it is not None and t.pos is not None:
            t.weapons.remove(it)
            t.wielded = "unarmed"
            drop(st, t.pos, it)
            combat.emit("item_dropped", f"{t.id} drops {it.id} on {list(t.pos)}", actor=t.id, rule="INV-7.2",
                        item=it.id, square=t.pos)
    elif man == "push" and a.pos is not None and t.pos is not None:
        sx = (t.pos[0] > a.pos[0]) - (t.pos[0] < a.pos[0])
        sy = (t.pos[1] > a.pos[1]) - (t.pos[1] < a.pos[1])
        dest = (t.pos[0] + sx, t.pos[1] + sy)
        free = (0 <= dest[0] < setup.width and 0 <= dest[1] < setup.height
                and setup.terrain.get(dest) not in ("wall", "obstacle")
                and not any(f.pos == dest and f.present for f in st.fighters))
        if not free:
            combat.emit("push_blocked", f"{t.id} cannot be pushed to {list(dest)}", actor=t.id, rule="INV-7.2",
                        square=dest)
            return
        old = t.pos
        t.pos = dest
        combat.emit("pushed", f"{t.id} is pushed from {list(old)} to {list(dest)}", actor=t.id, rule="INV-7.2",
                    src=old, dest=dest)


def resolve_throw(combat: InvCombat, setup: Setup, st: InvState, a: Fighter, t: Fighter, fr: Frame) -> None:
    """A throw (INV-8.8, 8.9)."""
    opt = setup.opt
    it = wielded_item(a)
    if it is None or t.pos is None or a.pos is None:
        combat.emit("target_lost", f"{a.id}'s throw has no target", actor=a.id, rule="INV-10.4")
        return
    w: WeaponT = setup.weapons[it.template]
    required, why = REGULAR, ""
    penalty: list[str] = []  # one named source per penalty die (INV-0.4)
    if a.moved_long:  # INV-8.9
        if opt.moving_attack_penalty == "difficulty":
            required, why = min(EXTREME, required + 1), "it moved far this round"
        else:
            penalty.append("moved far this round")
    if opt.throw_obstruction and line_status(setup, st, a.pos, t.pos, (a.id, t.id)) == "obstructed":
        required, why = EXTREME, "the line of the throw is obstructed"  # INV-6.6 via INV-8.8
    if opt.prone_modifiers and t.prone and chebyshev(a.pos, t.pos) > 1:
        penalty.append("prone target at range")
    bonus = take_bonus(a, ("throw",))
    _, lvl = check(combat, a.id, w.skill, setup.prof(a.id).skill(w.skill), bonus_from=bonus, penalty_from=penalty,
                   required=required, rule="INV-8.8", why=why)
    e = effective(lvl, required)
    hit = e >= REGULAR
    result = "hit" if hit else "miss"
    if fr.defense == Verb.DODGE:  # INV-8.3, as for a melee attack
        d = _defend(combat, setup, t, Verb.DODGE, e)
        if hit and d >= e:
            hit, result = False, "dodged"
    where = t.pos
    combat.emit("attack_result", f"{a.id}'s throw at {t.id}: {result}", actor=a.id,
                rule=DEFENSE_RULE.get(fr.defense, "INV-8.8"), target=t.id, attack="throw", result=result,
                level=LEVELS[lvl])
    if lvl == FUMBLE:
        _fumble(setup, st, a)
    if hit:
        if t.channel_spell:
            interrupt_channel(combat, t, "hit")
        deal(combat, setup, st, a, t, w.damage, w.db_mode, w.impale, e, halve=False, rule="INV-8.8")
    # one unit lands on the target's square, hit or miss
    it.count -= 1
    drop(st, where, Item(it.id, it.template, "weapon", 0, False, 1))
    combat.emit("item_dropped", f"a {w.name} lands on {list(where)}", actor=a.id, rule="INV-8.8", item=it.id,
                square=where, left=it.count)
    if it.count <= 0:
        a.weapons.remove(it)
        a.wielded = "unarmed"


def resolve_shot(combat: InvCombat, setup: Setup, st: InvState, a: Fighter, t: Fighter, fr: Frame) -> None:
    """One shoot action: the optional dive for cover, then each shot (INV-6.1-6.8, 0.9, 0.10, 7.1)."""
    opt = setup.opt
    it = wielded_item(a)
    dived: list[str] = []  # the penalty die of a successful dive for cover, named (INV-6.3)
    if fr.defense == Verb.DIVE_FOR_COVER:  # INV-6.3: the Dodge check is drawn before the shot
        _, dl = check(combat, t.id, "Dodge", setup.prof(t.id).skill("Dodge"), rule="INV-6.3")
        if dl >= REGULAR:
            dived = ["target dived for cover"]
        if not t.had_turn and t.standard_used < setup.prof(t.id).actions:
            t.standard_used += 1
        else:
            t.lose_next_standard = True
        combat.emit("dive_for_cover", f"{t.id} dives for cover{' successfully' if dived else ''} and forfeits "
                                      f"a standard action", actor=t.id, rule="INV-6.3", success=bool(dived))
        if t.channel_spell:
            interrupt_channel(combat, t, "dive_for_cover")
    assert it is not None
    w = setup.weapons[it.template]
    n = fr.shots
    for i in range(n):
        if t.pos is None or a.pos is None or t.dead or t.fled:
            combat.emit("target_lost", f"{a.id} has no target for shot {i + 1}", actor=a.id, rule="INV-10.4")
            return
        d = chebyshev(a.pos, t.pos)
        band = shot_band(setup, w, d)
        if band is None:
            combat.emit("target_lost", f"{t.id} is out of range", actor=a.id, rule="INV-6.2")
            return
        required, dmg = band
        why = f"{d} squares is {'long' if required == HARD else 'very long'} range" if required > REGULAR else ""
        if line_status(setup, st, a.pos, t.pos, (a.id, t.id)) == "obstructed":  # INV-6.6
            required, why = EXTREME, "the line of fire is obstructed"
        bonus = ["point-blank range"] if d == 1 else []  # INV-6.7
        penalty = dived + (["multiple shots"] if n >= 2 else [])  # INV-6.8
        if opt.prone_modifiers and t.prone and d > 1:
            penalty.append("prone target at range")
        if i == 0:
            bonus += take_bonus(a, ("shoot", "maneuver") if fr.head else ("shoot",))
        r, lvl = check(combat, a.id, w.skill, setup.prof(a.id).skill(w.skill), bonus_from=bonus,
                       penalty_from=penalty, required=required, rule="INV-6.1", why=why)
        if w.malfunction is not None and r >= w.malfunction:  # INV-0.10
            it.jammed = True
            combat.emit("weapon_jammed", f"{a.id}'s {w.name} jams", actor=a.id, rule="INV-0.10", weapon=it.id)
            return
        it.loaded -= 1
        combat.emit("ammo_spent", f"{a.id} fires ({it.loaded} left)", actor=a.id, rule="INV-6.1", weapon=it.id,
                    loaded=it.loaded)
        e = effective(lvl, required)
        hit = e >= REGULAR
        combat.emit("attack_result", f"{a.id}'s shot{' (' + fr.head + ')' if fr.head else ''} at {t.id}: "
                                     f"{'hit' if hit else 'miss'}", actor=a.id, rule="INV-6.1", target=t.id,
                    attack="shot", maneuver=fr.head or None, result="hit" if hit else "miss", level=LEVELS[lvl])
        if lvl == FUMBLE:
            _fumble(setup, st, a)
        if not hit:
            continue
        if t.channel_spell:
            interrupt_channel(combat, t, "hit")
        if fr.head == "disarm":
            apply_maneuver(combat, setup, st, a, t, "disarm")
        else:
            deal(combat, setup, st, a, t, dmg, "none", w.impale, e, halve=False, rule="INV-6.1")
