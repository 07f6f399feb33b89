"""The attack procedure (REI-3.5-3.9, group 4, REI-5.1-5.7): pools, defences, windows, damage."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import Decision
from trpg_arena.rules.reincarnator.conditions import (
    apply_damage,
    effect_mod,
    end_hidden,
    grapple_group,
    grapples_of,
    in_grapple,
    key_es,
    loser_margin,
    rating,
    reset_aim,
    rs,
    wound_penalty,
)
from trpg_arena.rules.reincarnator.data import es, static
from trpg_arena.rules.reincarnator.geometry import cheb
from trpg_arena.rules.reincarnator.model import ItemSpec
from trpg_arena.rules.reincarnator.movement import bf, doors_now, knockback
from trpg_arena.rules.reincarnator.pools import roll_pool
from trpg_arena.rules.reincarnator.state import Cell, Pending

if TYPE_CHECKING:
    from trpg_arena.rules.core.combat import Combat

RANGED_VERBS = ("ranged_attack", "acro_fire", "throw", "cast", "vehicle_attack")
MELEE_VERBS = ("melee_attack", "charge", "acro_charge", "grapple")


def attack_class(p: Pending) -> str:
    """REI-3.5 class of an attack."""
    if p.cell is not None:
        return "undefended"
    if p.verb in RANGED_VERBS:
        return "ranged"
    if p.verb == "vehicle_crush":
        return "crush"
    if p.verb in ("bull_rush", "grapple_strike", "pin_strike"):
        return "undefended"
    return "melee"


def cell_of(combat: Combat, cid: str) -> Cell:
    """Where a combatant or vehicle stands."""
    state = rs(combat)
    if cid in state.vehicles:
        return state.vehicles[cid].cell
    c = state.fighters[cid].cell
    assert c is not None
    return c


def source_cell(combat: Combat, p: Pending) -> Cell:
    """The attacking cell (a vehicle's for vehicle verbs; drivers share it anyway)."""
    return cell_of(combat, p.actor)


def weapon_range(combat: Combat, p: Pending) -> int:
    """Reach or range of the attack in metres."""
    st = static(combat)
    if p.verb in ("vehicle_crush", "grapple") or p.weapon is None:
        return 1
    if p.verb == "cast":
        return st.spells[p.actor][p.weapon or ""].range_m
    if p.verb == "throw":
        return throw_range(combat, p.actor, p.attr or "dex")
    w = st.weapon(p.actor, p.weapon or "")
    assert w is not None
    if p.verb in RANGED_VERBS:
        return w.range_m or 1
    return w.reach


def throw_range(combat: Combat, cid: str, attr: str) -> int:
    """REI-4.7: attribute x 5 m, plus ES(STR) x 10 m for a Strength throw."""
    st = static(combat)
    v = rating(st, cid, attr)
    return v * 5 + (es(v, st.enc.options.extra_successes) * 10 if attr == "str" else 0)


def in_reach(combat: Combat, p: Pending, target: str) -> bool:
    """Within reach/range and in line of sight (section 5)."""
    a, b = source_cell(combat, p), cell_of(combat, target)
    return cheb(a, b) <= weapon_range(combat, p) and bf(combat).los(a, b, doors_now(rs(combat)))


def throw_crushes(combat: Combat, cid: str, item: ItemSpec) -> bool:
    """REI-4.9: a thrown object at least 2 sizes larger than a thrower of size over 4 crushes."""
    size = static(combat).specs[cid].size
    return item.size >= size + 2 and size > 4


def off_guard(combat: Combat, p: Pending, target: str) -> str | None:
    """'basic', 'greater' or None for this attack (REI-1.3, 1.4, 6.6)."""
    state = rs(combat)
    st = static(combat)
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


def attack_pool(combat: Combat, p: Pending, target: str | None) -> tuple[int, str, dict[str, int]]:
    """Attack pool P with its modifiers, the key attribute, and the parts (REI-4.1, 3.12)."""
    st = static(combat)
    state = rs(combat)
    a = p.actor
    parts: dict[str, int] = {}
    v = p.verb
    if v == "cast":
        sp = st.spells[a][p.weapon or ""]
        aux = max((rating(st, a, s) for s in ("mana_burst", "mana_sense") if s != sp.specialty), default=0)
        parts = {"int": rating(st, a, "int"), "lore": rating(st, a, "lore"), sp.specialty: rating(st, a, sp.specialty),
                 "aux": aux, "power": sp.power}
        key = "int"
    elif v in ("vehicle_attack", "vehicle_crush"):
        parts = {"int": rating(st, a, "int"), "tools": rating(st, a, "tools"),
                 "vehicle_operation": rating(st, a, "vehicle_operation"),
                 "precision_operation": rating(st, a, "precision_operation")}
        if v == "vehicle_attack":
            w = st.items[p.weapon or ""]
            parts["damage"] = w.damage
        else:
            veh = rs(combat).fighters[a].in_vehicle or ""
            parts["size_diff"] = st.vehicles[veh].size - st.specs[target or ""].size
        key = "int"
    elif v == "throw":
        w = st.items[p.weapon or ""]
        key = p.attr or "dex"
        parts = {key: rating(st, a, key), "athletics": rating(st, a, "athletics"),
                 "throwing": rating(st, a, "throwing"),
                 "ballistics": rating(st, a, "ballistics"),
                 "damage": w.damage if w.kind in ("thrown", "object") else 0}
    elif v == "grapple":
        s, d = rating(st, a, "str"), rating(st, a, "dex")
        key = "str" if s >= d else "dex"
        r_spec = grapple_spec(combat, a, p.weapon)
        grab = max((w.damage for w in st.natural[a].values() if w.grab_suited), default=0)
        parts = {key: max(s, d), "martial": rating(st, a, "martial"), r_spec: rating(st, a, r_spec), "grab": grab}
    else:
        w = st.weapon(a, p.weapon or "")
        assert w is not None
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
    pool = sum(parts.values())
    mods: dict[str, int] = {}
    wp = wound_penalty(combat, a)
    if wp:
        mods["wound"] = -wp  # REI-3.11
    if v not in ("vehicle_attack", "vehicle_crush"):
        lm = loser_margin(state, a)
        if lm:
            mods["grapple_loser"] = -lm  # REI-7.7
        eff = effect_mod(state.fighters[a], "attack_dp")
        if eff:
            mods["effects"] = eff
        f = state.fighters[a]
        if (target is not None and v in ("ranged_attack", "acro_fire", "throw") and f.aim_target == target
                and f.aim_count and p.cell is None):
            mods["aim"] = f.aim_count  # REI-5.1
        if p.all_out:
            mods["all_out"] = 2  # REI-5.3
        if p.bonus:
            mods["charge"] = p.bonus  # REI-5.5
    cls = attack_class(p)
    if target in state.fighters and (cls == "melee" or v == "bull_rush") and state.fighters[target].prone:
        mods["prone_target"] = -2  # REI-6.1
    if (cls == "melee" or v == "bull_rush") and state.fighters[a].prone and st.enc.options.prone_attacker_melee_penalty:
        mods["prone_attacker"] = -st.enc.options.prone_attacker_melee_penalty
    if p.into == "careful" and target is not None:
        n = len(grapple_group(state, target))
        pen = max(0, 2 * n - st.specs[a].called_shot_reduction)
        if pen:
            mods["into_grapple"] = -pen  # REI-7.17
    parts.update({f"mod_{k}": m for k, m in mods.items()})
    return pool + sum(mods.values()), key, parts


def grapple_spec(combat: Combat, cid: str, with_: str | None) -> str:
    """R: brawl, or the soft weapon's specialty (REI-7.15)."""
    if with_:
        w = static(combat).items.get(with_)
        if w is not None and w.specialty:
            return w.specialty
    return "brawl"


def cover_defence(combat: Combat, p: Pending, target: str) -> int:
    """Cover defence of a target (REI-3.5, 5.11, 6.1, 6.2, 6.6)."""
    state = rs(combat)
    f = state.fighters[target]
    st = static(combat)
    if f.in_vehicle is not None:
        return st.vehicles[f.in_vehicle].occupant_cover
    c = 0
    if f.cover_source is not None:
        counts = True
        if st.enc.options.cover_directional and f.cell is not None:
            src = f.cover_source
            if "," in src:
                sc: Cell = tuple(int(x) for x in src.split(","))  # type: ignore[assignment]
            else:
                sc = cell_of(combat, src)
            ac = source_cell(combat, p) if p.cell is None or p.verb != "blast" else p.cell
            counts = cheb(ac, sc) < cheb(ac, f.cell)
        if counts:
            c += f.cover_value
    c += 2 * (f.prone + f.crouching + f.hidden)
    return c


def dodge_defence(combat: Combat, p: Pending, target: str, og: str | None, hs: int) -> int:
    """REI-3.7: base dodge + acrobatic bonus, doubled, halved when off-guard, minus high speed."""
    state = rs(combat)
    if target in state.vehicles:
        return max(0, static(combat).vehicles[target].dodge_defense - hs)
    f = state.fighters[target]
    d = static(combat).specs[target].dodge_defense + f.acro_dodge + effect_mod(f, "dodge_defense")
    if f.full_defense or p.out_of_range:
        d *= 2
    if og:
        d //= 2
    return max(0, d - hs)


def high_speed(combat: Combat, p: Pending) -> int:
    """REI-4.11 high speed of the attack (0 with the option off)."""
    st = static(combat)
    if st.enc.options.high_speed_rule == "off":
        return 0
    if p.verb == "cast":
        return st.spells[p.actor][p.weapon or ""].high_speed
    if p.verb == "throw":
        w = st.items[p.weapon or ""]
        if w.high_speed is not None:
            return w.high_speed
        return 4 if p.fast else 1
    if p.verb in ("ranged_attack", "acro_fire", "vehicle_attack"):
        w = st.items[p.weapon or ""]
        return st.high_speed(w)
    return 0


def penetration(combat: Combat, p: Pending) -> int:
    """破穿 of the attack (REI-3.6)."""
    st = static(combat)
    if p.verb == "cast":
        return st.spells[p.actor][p.weapon or ""].penetration
    if p.weapon:
        w = st.weapon(p.actor, p.weapon)
        return w.penetration if w is not None else 0
    return 0


def defences(combat: Combat, p: Pending, target: str) -> tuple[int, int, dict[str, int]]:
    """Defence dice D and the base-defence extra successes that apply (REI-3.5-3.7, 5.9)."""
    state = rs(combat)
    st = static(combat)
    cls = attack_class(p)
    if p.verb == "bull_rush" and st.enc.options.bull_rush_defenses_apply:
        cls = "melee"
    if cls == "undefended":
        return 0, 0, {}
    og = off_guard(combat, p, target)
    parts: dict[str, int] = {}
    bd_es = 0
    if target in state.vehicles:
        vs = st.vehicles[target]
        if cls != "ranged" or st.enc.options.base_defense_vs_ranged:
            parts["base"] = vs.base_defense
        parts["dodge"] = dodge_defence(combat, p, target, None, high_speed(combat, p) if cls == "ranged" else 0)
        return sum(parts.values()), 0, parts
    f = state.fighters[target]
    spec = st.specs[target]
    if cls != "ranged" or st.enc.options.base_defense_vs_ranged:
        alert = st.enc.surprise is not None and target in st.enc.surprise.alert
        denied = (og == "greater" or (og == "basic" and not (alert and state.fighters[p.actor].surprise_turn))
                  or (in_grapple(state, target) and p.actor not in grapple_group(state, target)))  # REI-7.7
        base = spec.base_defense + effect_mod(f, "base_defense")
        bd_eff = 0 if denied else max(0, base - f.bd_loss - penetration(combat, p))
        parts["base"] = bd_eff
        if st.enc.options.extra_successes and (bd_eff >= 1 or f.full_defense or f.crouching):
            bd_es = spec.base_defense_es  # REI-3.6
    hs = high_speed(combat, p) if cls == "ranged" else 0
    parts["dodge"] = dodge_defence(combat, p, target, og, hs)
    if cls == "melee":
        parts["parry"] = max(0, f.parry_value - loser_margin(state, target))  # REI-5.9, 7.7
    if cls == "ranged":
        parts["cover"] = cover_defence(combat, p, target)
    return sum(parts.values()), bd_es, parts


# --- procedure ----------------------------------------------------------------------------------------
def declare(combat: Combat, p: Pending) -> None:
    """Step 1-2 of REI-3.8: declaration, then the target's reaction window or resolution."""
    state = rs(combat)
    tgt = p.target if p.target is not None else f"{p.cell[0]},{p.cell[1]}" if p.cell else "?"
    combat.emit("attack_declared", f"{p.actor} {p.verb.replace('_', ' ')}s {tgt}"
                + (f" with {p.weapon}" if p.weapon else ""), actor=p.actor, rule="REI-3.8", verb=p.verb,
                target=p.target, cell=list(p.cell) if p.cell else None, weapon=p.weapon)
    if p.target is not None and p.target in state.fighters:
        p.origin = state.fighters[p.target].cell
    if window_opens(combat, p):
        p.step = "window"
        state.pending.append(p)
        combat.emit("reaction_window", f"{p.target} may react to the attack", actor=p.target, rule="REI-5.7",
                    window="attack_declared")
        state.decision = Decision(p.target or "", "attack_declared", f"{p.actor} attacks you: step away or pass")
        return
    resolve(combat, p)


def window_opens(combat: Combat, p: Pending) -> bool:
    """REI-5.7 / REI-2.14: the target has a reflex step and its reflex action."""
    state = rs(combat)
    t = p.target
    if t is None or t not in state.fighters or p.cell is not None:
        return False
    f = state.fighters[t]
    return (f.status == "active" and f.reflex and static(combat).reflex_step[t] > 0 and not in_grapple(state, t)
            and f.in_vehicle is None)


def after_window(combat: Combat, p: Pending) -> None:
    """Resume an attack after its reaction window was answered."""
    resolve(combat, p)


def resolve(combat: Combat, p: Pending) -> None:
    """Steps 3-9 of REI-3.8."""
    from trpg_arena.rules.reincarnator import explosives, grapple

    state = rs(combat)
    st = static(combat)
    if p.verb in ("charge", "acro_charge", "vehicle_crush"):
        t = state.fighters[p.target or ""]
        if t.status != "active" or not in_reach(combat, p, p.target or ""):
            combat.emit("attack_cancelled", f"{p.actor}'s {p.verb.replace('_', ' ')} attack is cancelled",
                        actor=p.actor, rule="REI-5.6", verb=p.verb)  # REI-5.6
            return
    target = p.target
    if target is not None and target in state.fighters:
        if not in_reach(combat, p, target) and p.origin is not None and state.fighters[target].cell != p.origin:
            p.out_of_range = True  # REI-5.7: stepped out of range, the attack still resolves
    if p.into == "random" and target is not None:
        group = grapple_group(state, target)
        order = [c for c in st.roster if c in group]
        faces = sum(st.specs[c].size for c in order)
        face = combat.dice.roll(faces)
        acc = 0
        for c in order:
            acc += st.specs[c].size
            if face <= acc:
                target = c
                break
        combat.emit("random_victim", f"the shot into the grapple goes at {target} (d{faces} = {face})",
                    actor=p.actor, rule="REI-7.17", face=face, sides=faces, victim=target)
        p.target = target
    if p.cell is not None and p.target is None:
        explosives.deliver(combat, p)
        return
    assert target is not None
    pool, key, parts = attack_pool(combat, p, target)
    d, bd_es, dparts = defences(combat, p, target)
    if p.verb in ("vehicle_attack", "vehicle_crush"):
        bonus = es(rating(st, p.actor, key), st.enc.options.extra_successes)  # REI-4.12: no effect bonus
    else:
        bonus = key_es(combat, p.actor, key)
    roll = roll_pool(combat.dice, pool - d, st.enc.options, bonus)
    n = max(0, roll.t - bd_es)
    combat.emit("roll", f"{p.actor} rolls {pool} - {d} = {pool - d} dice: {fmt(roll.dice)} -> {roll.r} successes"
                f"{f' + {roll.es} extra' if roll.es else ''}{f' - {bd_es} on base defence' if bd_es and roll.t else ''}"
                f" = {n}", actor=p.actor, rule="REI-3.8", pool=pool, defence=d, dice=[list(b) for b in roll.dice],
                r=roll.r, es=roll.es, t=roll.t, n=n, parts=parts, defence_parts=dparts, chance=roll.chance)
    after_roll(combat, p)
    if p.verb == "grapple":
        grapple.after_contact(combat, p, n)
        return
    if p.verb == "bull_rush":
        # REI-7.2: the attack becomes a push; no damage, the reflex save is the only defence
        combat.emit("bull_rush", f"{p.actor} rams {target} ({n})", actor=p.actor, rule="REI-7.2", target=target, n=n)
        reflex_knockback(combat, p, target, n, "REI-7.2")
        return
    if n < 1:
        combat.emit("miss", f"{p.actor} misses {target}", actor=p.actor, rule="REI-3.8", target=target)
        if p.verb == "throw":
            land_thrown(combat, p, target)
        return
    combat.emit("hit", f"{p.actor} hits {target} ({n})", actor=p.actor, rule="REI-3.8", target=target, n=n)
    if p.verb == "throw":
        land_thrown(combat, p, target)
    on_hit(combat, p, target, n)


def after_roll(combat: Combat, p: Pending) -> None:
    """REI-3.8 step 9: all-out and charge defence loss, aim reset, hidden first attack."""
    state = rs(combat)
    f = state.fighters[p.actor]
    if p.all_out:
        f.bd_loss += 2  # REI-5.3
    if p.bonus:
        f.bd_loss += p.bonus  # REI-5.5
    reset_aim(combat, p.actor, "attacked")
    if f.hidden:
        f.hidden_attacked = True


def on_hit(combat: Combat, p: Pending, target: str, n: int) -> None:
    """Damage and mode effects of a hit (REI-3.9, 4.3, 4.14)."""
    st = static(combat)
    crush = p.verb == "vehicle_crush" or (
        p.verb == "throw" and throw_crushes(combat, p.actor, st.items[p.weapon or ""]))
    if p.verb == "cast":
        dtype = st.spells[p.actor][p.weapon or ""].damage_type
        extra = 0
    else:
        w = st.weapon(p.actor, p.weapon or "") if p.weapon else None
        dtype = "bashing" if crush or w is None else w.dtype
        extra = 0
        if w is not None and w.kind == "natural":
            dtype = "lethal" if w.lethal else "bashing"  # REI-4.3
            extra = w.damage if w.lethal else 0
        if p.verb == "throw" and w is not None and w.kind not in ("thrown", "object"):
            dtype = "bashing"  # improvised (REI-4.6)
    if dtype == "lethal":
        apply_damage(combat, target, n, extra, "REI-3.9", p.actor)
    else:
        apply_damage(combat, target, 0, n, "REI-3.9", p.actor)
    if crush and target in rs(combat).fighters:
        reflex_knockback(combat, p, target, n, "REI-4.14")


def reflex_knockback(combat: Combat, p: Pending, target: str, attack_succ: int, rule: str) -> None:
    """The reflex save contest and knockback (REI-4.14, 7.2, 3.4)."""
    st = static(combat)
    state = rs(combat)
    if state.fighters[target].cell is not None:
        pool = (rating(st, target, "dex") + rating(st, target, "athletics") + rating(st, target, "reflex")
                - wound_penalty(combat, target))
        roll = roll_pool(combat.dice, pool, st.enc.options, key_es(combat, target, "dex"))
        combat.emit("roll", f"{target} reflex save: {pool} dice {fmt(roll.dice)} -> {roll.t}", actor=target,
                    rule=rule, pool=pool, defence=0, dice=[list(b) for b in roll.dice], r=roll.r, es=roll.es,
                    t=roll.t, n=roll.t, save=True)
        dist = attack_succ - roll.t
        if dist > 0 and state.fighters[target].cell is not None:
            knockback(combat, cell_of(combat, p.actor), target, dist, rule)


def land_thrown(combat: Combat, p: Pending, target: str) -> None:
    """REI-4.6: the thrown item lies in the target's cell."""
    it = rs(combat).items[p.weapon or ""]
    it.loc, it.holder, it.cell = "ground", None, cell_of(combat, target)
    combat.emit("item_moved", f"{p.weapon} lands at {it.cell[0]},{it.cell[1]}", actor=p.actor, rule="REI-4.6",
                item=p.weapon, cell=list(it.cell))


def fmt(batches: tuple[tuple[int, ...], ...]) -> str:
    """Dice faces as text, batches joined by '+'."""
    return " + ".join("[" + ",".join(map(str, b)) + "]" for b in batches)


def hidden_in_path_cancel(combat: Combat, p: Pending) -> None:
    """REI-5.6 helper: a bumped charge cancels its attack step."""
    combat.emit("attack_cancelled", f"{p.actor}'s charge is stopped; the attack is cancelled", actor=p.actor,
                rule="REI-5.6", verb=p.verb)


__all__ = ["attack_pool", "declare", "defences", "end_hidden", "grapples_of", "resolve"]
