"""The legal action sets of every decision point (section 7): D1, D2, D3, R1, R2, R3, P1."""

from __future__ import annotations

from trpg_arena.rules.core.values import Action
from trpg_arena.rules.kiai.checks import has, wound_penalty
from trpg_arena.rules.kiai.context import SPEAR_CLASS, Ctx
from trpg_arena.rules.kiai.geometry import enemy_mask, geo_of, in_reach, occupied_mask
from trpg_arena.rules.kiai.manoeuvres import can_break
from trpg_arena.rules.kiai.model import Ability
from trpg_arena.rules.kiai.state import Fighter, KiaiState

END_TURN = Action("end_turn")
PASS = Action("pass")
DODGE = Action("dodge")
NO_REACTION = Action("no_reaction")
CONCENTRATE = (Action("concentrate_dodge", option="bonus"), Action("concentrate_dodge", option="twice"))
FLEE = Action("flee")
FEINT_COST = 5


def targets(ctx: Ctx, st: KiaiState, f: Fighter) -> list[Fighter]:
    """KIA-2.2 / KIA-23.3: enemies that are not out and by whom `f` is not intimidated, in roster order."""
    side = ctx.side[f.id]
    out = []
    for cid, g in st.fighters.items():
        if g.out or g.hex is None or ctx.side[cid] == side:
            continue
        if f.conds and has(f, "intimidated", cid):
            continue
        out.append(g)
    return out


def base_hit(ctx: Ctx, f: Fighter, all_out: bool) -> int:
    """The hit value before technique X and action modifiers: x2 all-out, illusion and wounds included."""
    v = ctx.spec[f.id].hit * (2 if all_out else 1) + wound_penalty(ctx, f)
    if f.conds and has(f, "deceived"):
        v -= ctx.opts.illusion_penalty
    return v


def x_values(ctx: Ctx, v: int) -> list[int]:
    """KIA-16.1: 0, step, 2 step, ... while the hit value after -X stays >= 1 (0 is always offered)."""
    step = ctx.opts.technique_step
    return [0, *range(step, v, step)]


def attack_options(ctx: Ctx, verb: str, target: str, ability: str | None, v0: int, v1: int) -> list[Action]:
    """`attack` / `reattack` actions for every legal (technique_x, all_out[, ability]) (cached per values)."""
    cache = geo_of(ctx).attacks
    key = (verb, target, ability, v0, v1, ctx.opts.technique_step)
    hit = cache.get(key)
    if hit is None:
        hit = []
        for ao, v in ((False, v0), (True, v1)):
            for x in x_values(ctx, v):
                opt = (x, ao) if ability is None else (x, ao, ability)
                hit.append(Action(verb, target, None, opt))
        cache[key] = hit
    return hit


def melee_damage_techniques(ctx: Ctx, cid: str) -> list[Ability]:
    """Known techniques with effect damage and delivery melee (used through attack / parry / counter)."""
    return [a for a in ctx.abilities[cid].values() if a.delivery == "melee" and a.effect == "damage"]


def pool(ctx: Ctx, f: Fighter) -> int:
    """KIA-0.4 / KIA-14.2: the pool a feint pays from."""
    return f.spirit if ctx.opts.separate_spirit_pool else f.kiai


def d1(ctx: Ctx, st: KiaiState, f: Fighter) -> list[Action]:
    """The actor's movement / main-action decision (KIA-24.1)."""
    acts: list[Action] = []
    spec = ctx.spec[f.id]
    here = f.hex
    assert here is not None
    main = ctx.weapon(f.main)
    reach = main.reach
    foes = targets(ctx, st, f)
    may_attack = not f.countered  # KIA-10.1, KIA-24.1
    free = 0
    if not f.moved and not f.main_done:  # KIA-8.1, KIA-8.2, KIA-8.3: end in an unoccupied hex
        geo = geo_of(ctx)
        half, full, _ = geo.movement(here, spec.agility, enemy_mask(ctx, st, f.id))
        occ = occupied_mask(ctx, st)
        free = full & ~occ
        acts.extend(map(geo.move_list.__getitem__, geo.indices(half & ~occ)))
        acts.extend(map(geo.run_list.__getitem__, geo.indices(free)))
    if f.main_done:
        acts.append(END_TURN)
        return acts
    near = [g for g in foes if in_reach(ctx, here, g.hex, reach)] if may_attack else []
    if may_attack and not f.moved and main.spec.category in SPEAR_CLASS:  # KIA-17.1
        mind = ctx.opts.charge_min_distance
        geo = geo_of(ctx)
        close = geo.disc(here, mind - 1)
        idx = geo.idx
        for g in foes:
            assert g.hex is not None
            spots = [h for h in geo.disc(g.hex, reach) if free >> idx[h] & 1 and h not in close]
            spots.sort(key=idx.__getitem__)
            for h in spots:
                if in_reach(ctx, h, g.hex, reach):
                    acts.append(Action("charge", g.id, h))
    if near:
        techs = [a.id for a in melee_damage_techniques(ctx, f.id) if f.kiai >= a.level]
        v0, v1 = base_hit(ctx, f, False), base_hit(ctx, f, True)
        for g in near:  # KIA-2, KIA-13, KIA-16, KIA-21.5
            for ab in ("", *techs):
                acts.extend(attack_options(ctx, "attack", g.id, ab, v0, v1))
        off = ctx.weapon(f.off) if f.off else None
        if off is not None and main.spec.hands == 1 and f.main:  # KIA-11.1
            for g in near:
                acts.append(Action("two_weapon_attack", g.id, None, False))
                acts.append(Action("two_weapon_attack", g.id, None, True))
        if pool(ctx, f) >= FEINT_COST:  # KIA-14.2
            for g in near:
                for b in (1, 2, 3):
                    acts.append(Action("feint", g.id, None, b))
        for g in near:  # KIA-18.1, KIA-18.4
            if g.main and (can_break(ctx, f.main, g.main) if ctx.opts.break_restrictions else True):
                acts.append(Action("break_weapon", g.id))
        for g in near:  # KIA-19.1
            if g.main:
                acts.append(Action("disarm", g.id))
    if may_attack:
        for ab in ctx.abilities[f.id].values():  # KIA-21.5
            if ab.effect == "damage" and ab.delivery == "melee" or f.kiai < ab.level:
                continue
            acts.extend(ability_actions(ctx, st, f, ab, foes, near))
    acts.extend(CONCENTRATE)  # KIA-20.1
    for key in (*f.carried, *([f.off] if f.off else [])):  # KIA-24.2
        acts.append(Action("ready_weapon", option=key))
    for h, key in st.ground:  # KIA-19.3
        if geo_of(ctx).dist(here, h) <= 1:
            acts.append(Action("pick_up", option=key))
    if here in ctx.exits:  # KIA-24.3
        acts.append(FLEE)
    acts.append(END_TURN)
    return acts


def ability_actions(ctx: Ctx, st: KiaiState, f: Fighter, ab: Ability, foes: list[Fighter],
                    near: list[Fighter]) -> list[Action]:
    """KIA-21.5 delivery: melee (reach), touch (distance 1), ranged (range + sight), area (centre hex)."""
    here = f.hex
    assert here is not None
    if ab.delivery == "melee":
        return [Action("use_ability", g.id, None, ab.id) for g in near]
    geo = geo_of(ctx)
    if ab.delivery == "touch":
        return [Action("use_ability", g.id, None, ab.id) for g in foes if geo.dist(here, g.hex) == 1]  # type: ignore[arg-type]
    rng = ab.range or 0
    if ab.delivery == "ranged":
        return [Action("use_ability", g.id, None, ab.id) for g in foes
                if geo.dist(here, g.hex) <= rng and geo.clear(here, g.hex)]  # type: ignore[arg-type]
    if rng == 0:
        return [Action("use_ability", None, here, ab.id)]
    key = (here, rng, ab.id)
    centres = geo.centres.get(key)
    if centres is None:  # KIA-21.3: unblocked hexes within range, in sight
        centres = geo.centres[key] = [Action("use_ability", None, h, ab.id) for h in geo.hexes
                                      if h not in geo.blocked and geo.dist(here, h) <= rng and geo.clear(here, h)]
    return centres


def chain_value(ctx: Ctx, f: Fighter) -> int:
    """KIA-15.2 / KIA-16.2: the next consecutive strike's hit value (without the target's dodge)."""
    k = f.chain_k + 1
    return base_hit(ctx, f, f.chain_all_out) - f.chain_x - 5 * k * (k + 1) // 2


def d2(ctx: Ctx, st: KiaiState, f: Fighter) -> list[Action]:
    """KIA-15.1 / KIA-15.3: consecutive_attack or end_turn."""
    acts = []
    if not f.countered and not f.chain_fumbled and chain_value(ctx, f) >= 1:
        reach = ctx.weapon(f.main).reach
        acts = [Action("consecutive_attack", g.id) for g in targets(ctx, st, f) if in_reach(ctx, f.hex, g.hex, reach)]
    acts.append(END_TURN)
    return acts


def d3(ctx: Ctx, st: KiaiState, f: Fighter) -> list[Action]:
    """KIA-11.1: offhand_attack or end_turn."""
    acts = []
    if f.off and not f.countered:
        reach = ctx.weapon(f.off).reach
        acts = [Action("offhand_attack", g.id) for g in targets(ctx, st, f) if in_reach(ctx, f.hex, g.hex, reach)]
    acts.append(END_TURN)
    return acts


def reattack_targets(ctx: Ctx, st: KiaiState, f: Fighter) -> list[Fighter]:
    """KIA-12.1: enemies in reach, at least 5 points less agile (base agility), not intimidating `f`."""
    agi = ctx.spec[f.id].agility
    reach = ctx.weapon(f.main).reach
    return [g for g in targets(ctx, st, f)
            if agi - ctx.spec[g.id].agility >= 5 and in_reach(ctx, f.hex, g.hex, reach)]


def reattack_eligible(ctx: Ctx, st: KiaiState, f: Fighter) -> bool:
    """KIA-12.1 eligibility (apart from having a target)."""
    if f.out or f.countered or f.ran or (ctx.opts.reattack_requires_attack and not f.attacked):
        return False
    return not (f.conds and (has(f, "stunned") or has(f, "concentrating")))


def p1(ctx: Ctx, st: KiaiState, f: Fighter) -> list[Action]:
    """KIA-12.1: reattack(target, (technique_x, all_out)) or pass."""
    acts: list[Action] = []
    v0, v1 = base_hit(ctx, f, False), base_hit(ctx, f, True)
    for g in reattack_targets(ctx, st, f):
        acts.extend(attack_options(ctx, "reattack", g.id, None, v0, v1))
    acts.append(PASS)
    return acts


def r1(ctx: Ctx, st: KiaiState) -> list[Action]:
    """KIA-3.4, KIA-9.6, KIA-10.1: the reactions a strike's kind allows."""
    fr = st.stack[-1]
    t = st.fighters[fr.target]
    a = st.fighters[fr.attacker]
    acts = [DODGE]
    if (fr.skind == "melee" and not t.parry_used and not has(t, "concentrating")
            and not has(t, "intimidated", a.id) and in_reach(ctx, t.hex, a.hex, ctx.weapon(t.main).reach)):
        techs = [ab.id for ab in melee_damage_techniques(ctx, t.id) if t.kiai >= 2 * ab.level]  # KIA-9.5
        acts.append(Action("attack_defense"))
        acts.extend(Action("attack_defense", option=ab) for ab in techs)
        if not t.attacked and not t.countered:
            acts.append(Action("counter"))
            acts.extend(Action("counter", option=ab) for ab in techs)
    acts.append(NO_REACTION)
    return acts
