"""Attack numbers (REI-3.5-3.7, 4.1-4.15, 5.3, 5.5, 6.1, 7.7, 7.17): classes, reach, pools and defences."""


from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.battlefield import chebyshev as cheb
from trpg_arena.rules.reincarnator.conditions import (
    effect_mod,
    loser_margin,
    rating,
    shot_group,
    wound_penalty,
)
from trpg_arena.rules.reincarnator.data import es
from trpg_arena.rules.reincarnator.model import ItemSpec
from trpg_arena.rules.reincarnator.movement import board, doors_now
from trpg_arena.rules.reincarnator.state import Cell, Pending, cell_of_key
from trpg_arena.rules.reincarnator.verbs import Verb

if TYPE_CHECKING:
    from trpg_arena.rules.reincarnator.state import ReiCombat

RANGED_VERBS = (Verb.RANGED_ATTACK, Verb.ACRO_FIRE, Verb.THROW, Verb.CAST, Verb.VEHICLE_ATTACK)
# verb sets tested per action, built once (an enum member is a slow class attribute on Python 3.11)
UNDEFENDED = frozenset((Verb.BULL_RUSH, Verb.GRAPPLE_STRIKE, Verb.PIN_STRIKE))
NO_WEAPON = frozenset((Verb.VEHICLE_CRUSH, Verb.GRAPPLE))
VEHICLE_VERBS = frozenset((Verb.VEHICLE_ATTACK, Verb.VEHICLE_CRUSH))
AIMED = frozenset((Verb.RANGED_ATTACK, Verb.ACRO_FIRE, Verb.THROW))  # aim counts for them (REI-5.1)
FIRED = frozenset((Verb.RANGED_ATTACK, Verb.ACRO_FIRE, Verb.VEHICLE_ATTACK))


# the members the functions below compare, bound once as module names: an enum member is a class attribute
# lookup (slow on Python 3.11) and these run for every action
(BULL_RUSH, CAST, GRAPPLE, THROW, VEHICLE_ATTACK, VEHICLE_CRUSH) = (
    Verb.BULL_RUSH, Verb.CAST, Verb.GRAPPLE, Verb.THROW, Verb.VEHICLE_ATTACK, Verb.VEHICLE_CRUSH)


def attack_class(p: Pending) -> str:
    """REI-3.5 class of an attack."""
    if p.cell is not None:
        return "undefended"
    if p.verb in RANGED_VERBS:
        return "ranged"
    if p.verb == VEHICLE_CRUSH:
        return "crush"
    if p.verb in UNDEFENDED:
        return "undefended"
    return "melee"


def cell_of(combat: ReiCombat, cid: str) -> Cell:
    """Where a combatant or vehicle stands."""
    state = combat.state
    if cid in state.vehicles:
        return state.vehicles[cid].cell
    c = state.fighters[cid].cell
    assert c is not None
    return c


def source_cell(combat: ReiCombat, p: Pending) -> Cell:
    """The attacking cell (a vehicle's for vehicle verbs; drivers share it anyway)."""
    return cell_of(combat, p.actor)


def weapon_range(combat: ReiCombat, p: Pending) -> int:
    """Reach or range of the attack in metres."""
    st = combat.tables
    if p.verb in NO_WEAPON or p.weapon is None:
        return 1
    if p.verb == CAST:
        return st.spells[p.actor][p.weapon or ""].range_m
    if p.verb == THROW:
        return throw_range(combat, p.actor, p.attr or "dex")
    w = st.weapon(p.actor, p.weapon or "")
    assert w is not None
    if p.verb in RANGED_VERBS:
        return w.range_m or 1
    return w.reach


def throw_range(combat: ReiCombat, cid: str, attr: str) -> int:
    """REI-4.7: attribute x 5 m, plus ES(STR) x 10 m for a Strength throw."""
    st = combat.tables
    v = rating(st, cid, attr)
    return v * 5 + (es(v, st.enc.options.extra_successes) * 10 if attr == "str" else 0)


def in_reach(combat: ReiCombat, p: Pending, target: str) -> bool:
    """Within reach/range and in line of sight (section 5)."""
    a, b = source_cell(combat, p), cell_of(combat, target)
    return cheb(a, b) <= weapon_range(combat, p) and board(combat).los(a, b, doors_now(combat))


def throw_crushes(combat: ReiCombat, cid: str, item: ItemSpec) -> bool:
    """REI-4.9: a thrown object at least 2 sizes larger than a thrower of size over 4 crushes."""
    size = combat.tables.specs[cid].size
    return item.size >= size + 2 and size > 4


def off_guard(combat: ReiCombat, p: Pending, target: str) -> str | None:
    """'basic', 'greater' or None for this attack (REI-1.3, 1.4, 6.6)."""
    state = combat.state
    st = combat.tables
    f = state.fighters.get(p.actor)
    if f is None or target not in state.fighters:
        return None
    level = None
    if f.surprise_turn:
        level = "basic"  # REI-1.3
    if f.hidden and not f.hidden_attacked:
        level = "basic"  # REI-6.6
    if level and st.specs[p.actor].has("greater_off_guard"):
        level = "greater"
    return level


def attack_pool(combat: ReiCombat, p: Pending, target: str | None) -> tuple[int, str, dict[str, int]]:
    """Attack pool P with its modifiers, the key attribute, and the parts (REI-4.1, 3.12)."""
    pool, key, base = _pool_base(combat, p, target)
    mods = _pool_mods(combat, p, target)
    parts = dict(base)
    parts.update({f"mod_{k}": m for k, m in mods.items()})
    return pool + sum(mods.values()), key, parts


def attack_dice(combat: ReiCombat, p: Pending, target: str | None) -> int:
    """`attack_pool`'s pool alone: a policy weighing many attacks needs no parts."""
    return _pool_base(combat, p, target)[0] + sum(_pool_mods(combat, p, target).values())


def _pool_base(combat: ReiCombat, p: Pending, target: str | None) -> tuple[int, str, tuple[tuple[str, int], ...]]:
    """The ratings and weapon part of an attack pool: its sum, the key attribute and the parts in order.

    Only a vehicle's crush reads the state (the vehicle driven), so every other attack's part is a constant of
    the encounter, worked out once per attacker, verb, weapon and attribute in the static tables' memo.
    """
    memo_key = None if p.verb in VEHICLE_VERBS else ("pool", p.actor, p.verb, p.weapon, p.attr)
    if memo_key is not None:
        known: tuple[int, str, tuple[tuple[str, int], ...]] | None = combat.tables.memo.get(memo_key)
        if known is not None:
            return known
    pool, key, parts = _pool_parts(combat, p, target)
    out = (pool, key, tuple(parts.items()))
    if memo_key is not None:
        combat.tables.memo[memo_key] = out
    return out


def _pool_parts(combat: ReiCombat, p: Pending, target: str | None) -> tuple[int, str, dict[str, int]]:
    """The ratings and weapon part of an attack pool, from the specs (REI-4.1)."""
    st = combat.tables
    a = p.actor
    parts: dict[str, int] = {}
    v = p.verb
    if v == CAST:
        sp = st.spells[a][p.weapon or ""]
        aux = max((rating(st, a, s) for s in ("mana_burst", "mana_sense") if s != sp.specialty), default=0)
        parts = {"int": rating(st, a, "int"), "lore": rating(st, a, "lore"), sp.specialty: rating(st, a, sp.specialty),
                 "aux": aux, "power": sp.power}
        key = "int"
    elif v in VEHICLE_VERBS:
        parts = {"int": rating(st, a, "int"), "tools": rating(st, a, "tools"),
                 "vehicle_operation": rating(st, a, "vehicle_operation"),
                 "precision_operation": rating(st, a, "precision_operation")}
        if v == VEHICLE_ATTACK:
            w = st.items[p.weapon or ""]
            parts["damage"] = w.damage
        else:
            veh = combat.state.fighters[a].in_vehicle or ""
            parts["size_diff"] = st.vehicles[veh].size - st.specs[target or ""].size
        key = "int"
    elif v == THROW:
        w = st.items[p.weapon or ""]
        key = p.attr or "dex"
        parts = {key: rating(st, a, key), "athletics": rating(st, a, "athletics"),
                 "throwing": rating(st, a, "throwing"),
                 "ballistics": rating(st, a, "ballistics"),
                 "damage": w.damage if w.kind in ("thrown", "object") else 0}
    elif v == GRAPPLE:
        s, d = rating(st, a, "str"), rating(st, a, "dex")
        key = "str" if s >= d else "dex"
        r_spec = grapple_spec(combat, a, p.weapon)
        grab = max((w.damage for w in st.natural[a].values() if w.grab_suited), default=0)
        parts = {key: max(s, d), "martial": rating(st, a, "martial"), r_spec: rating(st, a, r_spec), "grab": grab}
    else:
        wpn = st.weapon(a, p.weapon or "")
        assert wpn is not None
        w = wpn
        if w.is_ranged:
            if w.kind == "bow":
                s, d = rating(st, a, "str"), rating(st, a, "dex")
                key = "str" if s >= d else "dex"
            else:
                key = "dex"
            parts = {key: rating(st, a, key), "martial": rating(st, a, "martial"),
                     w.specialty or "none": rating(st, a, w.specialty), "ballistics": rating(st, a, "ballistics"),
                     "damage": w.damage}
        else:
            spec = w.specialty or ("brawl" if w.kind == "natural" else "")
            parts = {"str": rating(st, a, "str"), "martial": rating(st, a, "martial"),
                     spec or "none": rating(st, a, spec), "martial_mastery": rating(st, a, "martial_mastery"),
                     "damage": w.damage}
            key = "str"
    return sum(parts.values()), key, parts


def _pool_mods(combat: ReiCombat, p: Pending, target: str | None) -> dict[str, int]:
    """The modifiers of an attack pool in this state (REI-3.11, 5.1, 5.3, 5.5, 6.1, 7.7, 7.17).

    A policy weighs every legal attack with it, so the common case (no grapple, no effect) tests the state's
    lists before calling the functions that walk them.
    """
    st = combat.tables
    state = combat.state
    options = st.enc.options
    a = p.actor
    v = p.verb
    f = state.fighters[a]
    mods: dict[str, int] = {}
    wp = wound_penalty(combat, a)
    if wp:
        mods["wound"] = -wp  # REI-3.11
    if v not in VEHICLE_VERBS:
        lm = loser_margin(state, a) if state.grapples else 0
        if lm:
            mods["grapple_loser"] = -lm  # REI-7.7
        eff = effect_mod(f, "attack_dp") if f.effects else 0
        if eff:
            mods["effects"] = eff
        if (target is not None and v in AIMED and f.aim_target == target
                and f.aim_count and p.cell is None):
            mods["aim"] = f.aim_count  # REI-5.1
        if p.all_out:
            mods["all_out"] = 2  # REI-5.3
        if p.bonus:
            mods["charge"] = p.bonus  # REI-5.5
    close = attack_class(p) == "melee" or v == BULL_RUSH
    if close:
        tf = state.fighters.get(target) if target is not None else None
        if tf is not None and tf.prone:
            mods["prone_target"] = -2  # REI-6.1
        if f.prone and options.prone_attacker_melee_penalty:
            mods["prone_attacker"] = -options.prone_attacker_melee_penalty
    if p.into == "careful" and target is not None:
        n = len(shot_group(state, target, p.actor))
        pen = max(0, 2 * n - st.specs[a].called_shot_reduction)
        if pen:
            mods["into_grapple"] = -pen  # REI-7.17
    return mods


def grapple_spec(combat: ReiCombat, cid: str, with_: str | None) -> str:
    """R: brawl, or the soft weapon's specialty (REI-7.15)."""
    if with_:
        w = combat.tables.items.get(with_)
        if w is not None and w.specialty:
            return w.specialty
    return "brawl"


def cover_defence(combat: ReiCombat, p: Pending, target: str) -> int:
    """Cover defence of a target (REI-3.5, 5.11, 6.1, 6.2, 6.6)."""
    state = combat.state
    f = state.fighters[target]
    st = combat.tables
    if f.in_vehicle is not None:
        return st.vehicles[f.in_vehicle].occupant_cover
    c = 0
    if f.cover_source is not None:
        counts = True
        if st.enc.options.cover_directional and f.cell is not None:
            src = f.cover_source
            if "," in src:
                sc = cell_of_key(src)
            else:
                sc = cell_of(combat, src)
            ac = source_cell(combat, p) if p.cell is None or p.verb != "blast" else p.cell
            counts = cheb(ac, sc) < cheb(ac, f.cell)
        if counts:
            c += f.cover_value
    c += 2 * (f.prone + f.crouching + f.hidden)
    return c


def dodge_defence(combat: ReiCombat, p: Pending, target: str, og: str | None, hs: int) -> int:
    """REI-3.7: base dodge + acrobatic bonus, doubled, halved when off-guard, minus high speed."""
    state = combat.state
    if target in state.vehicles:
        return max(0, combat.tables.vehicles[target].dodge_defense - hs)
    f = state.fighters[target]
    d = combat.tables.specs[target].dodge_defense + f.acro_dodge + (effect_mod(f, "dodge_defense") if f.effects else 0)
    if f.full_defense or p.out_of_range:
        d *= 2
    if og:
        d //= 2
    return max(0, d - hs)


def high_speed(combat: ReiCombat, p: Pending) -> int:
    """REI-4.11 high speed of the attack (0 with the option off)."""
    st = combat.tables
    if st.enc.options.high_speed_rule == "off":
        return 0
    if p.verb == CAST:
        return st.spells[p.actor][p.weapon or ""].high_speed
    if p.verb == THROW:
        w = st.items[p.weapon or ""]
        if w.high_speed is not None:
            return w.high_speed
        return 4 if p.fast else 1
    if p.verb in FIRED:
        w = st.items[p.weapon or ""]
        return st.high_speed(w)
    return 0


def penetration(combat: ReiCombat, p: Pending) -> int:
    """破穿 of the attack (REI-3.6)."""
    st = combat.tables
    if p.verb == CAST:
        return st.spells[p.actor][p.weapon or ""].penetration
    if p.weapon:
        w = st.weapon(p.actor, p.weapon)
        return w.penetration if w is not None else 0
    return 0


def defences(combat: ReiCombat, p: Pending, target: str) -> tuple[int, int, dict[str, int]]:
    """Defence dice D and the base-defence extra successes that apply (REI-3.5-3.7, 5.9)."""
    state = combat.state
    st = combat.tables
    options = st.enc.options
    cls = attack_class(p)
    if p.verb == BULL_RUSH and options.bull_rush_defenses_apply:
        cls = "melee"
    if cls == "undefended":
        return 0, 0, {}
    og = off_guard(combat, p, target)
    parts: dict[str, int] = {}
    bd_es = 0
    ranged = cls == "ranged"
    if target in state.vehicles:
        vs = st.vehicles[target]
        if not ranged or options.base_defense_vs_ranged:
            parts["base"] = vs.base_defense
        parts["dodge"] = dodge_defence(combat, p, target, None, high_speed(combat, p) if ranged else 0)
        return sum(parts.values()), 0, parts
    f = state.fighters[target]
    spec = st.specs[target]
    if not ranged or options.base_defense_vs_ranged:
        if og == "greater":
            denied = True
        elif og == "basic":
            alert = st.enc.surprise is not None and target in st.enc.surprise.alert
            denied = not (alert and state.fighters[p.actor].surprise_turn)
        else:
            denied = False
        if not denied and state.grapples:  # REI-7.7
            # the defender is in a grapple the attacker is not part of: each grapple on its own, so a third
            # party linked through a chain (it holds the defender's opponent) still counts as outside
            denied = any(target in (g.holder, g.held) and p.actor not in (g.holder, g.held) for g in state.grapples)
        base = spec.base_defense + (effect_mod(f, "base_defense") if f.effects else 0)
        bd_eff = 0 if denied else max(0, base - f.bd_loss - penetration(combat, p))
        parts["base"] = bd_eff
        # REI-3.6; a bull rush's option subtracts defence dice only: its push is the total t (REI-3.4, 7.2)
        if options.extra_successes and (bd_eff >= 1 or f.full_defense or f.crouching) and p.verb != BULL_RUSH:
            bd_es = spec.base_defense_es
    hs = high_speed(combat, p) if ranged else 0
    parts["dodge"] = dodge_defence(combat, p, target, og, hs)
    if cls == "melee":
        parts["parry"] = max(0, f.parry_value - (loser_margin(state, target) if state.grapples else 0))  # REI-5.9, 7.7
    if ranged:
        parts["cover"] = cover_defence(combat, p, target)
    return sum(parts.values()), bd_es, parts
