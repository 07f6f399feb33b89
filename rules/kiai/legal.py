"""The legal action sets of every decision point (section 7): D1, D2, D3, R1, R2, R3, P1."""

from __future__ import annotations

from trpg_arena.rules.core.grid import Grid, Picker
from trpg_arena.rules.core.values import Action, remember
from trpg_arena.rules.kiai.checks import has, wound_penalty
from trpg_arena.rules.kiai.context import SPEAR_CLASS, UNARMED, Ctx, action
from trpg_arena.rules.kiai.manoeuvres import can_break
from trpg_arena.rules.kiai.model import Ability
from trpg_arena.rules.kiai.state import Fighter, Hex, KiaiState
from trpg_arena.rules.kiai.verbs import AttackOption, Condition, ReattackOption, Verb

END_TURN = action(Verb.END_TURN)
PASS = action(Verb.PASS)
DODGE = action(Verb.DODGE)
NO_REACTION = action(Verb.NO_REACTION)
CONCENTRATE = (action(Verb.CONCENTRATE_DODGE, option="bonus"), action(Verb.CONCENTRATE_DODGE, option="twice"))
FLEE = action(Verb.FLEE)
FEINT_COST = 5
# Legal lists that repeat are handed out as one shared list object each (the kernel never mutates a legal
# list, and the env memoises mask indices by list identity).
DODGE_OR_NOT = [DODGE, NO_REACTION]
SHARED_LIMIT = 4096


def targets(ctx: Ctx, st: KiaiState, f: Fighter) -> list[Fighter]:
    """KIA-2.2 / KIA-23.3: enemies that are not out and by whom `f` is not intimidated, in roster order."""
    side = ctx.side[f.id]
    return [g for cid, g in st.fighters.items() if not (g.out or g.hex is None or ctx.side[cid] == side)
            and not (f.conds and has(f, Condition.INTIMIDATED, cid))]


def base_hit(ctx: Ctx, f: Fighter, all_out: bool) -> int:
    """The hit value before technique X and action modifiers: x2 all-out, illusion and wounds included."""
    v = ctx.spec[f.id].hit * (2 if all_out else 1) + wound_penalty(ctx, f)
    if f.conds and has(f, Condition.DECEIVED):
        v -= ctx.opts.illusion_penalty
    return v


def x_values(ctx: Ctx, v: int) -> list[int]:
    """KIA-16.1: 0, step, 2 step, ... while the hit value after -X stays >= 1 (0 is always offered)."""
    step = ctx.opts.technique_step
    return [0, *range(step, v, step)]


def attack_options(ctx: Ctx, verb: Verb, target: str, ability: str | None, v0: int, v1: int) -> list[Action]:
    """`attack` / `reattack` actions for every legal (technique_x, all_out[, ability]) (cached per values)."""
    cache = (ctx.tables or tables_of(ctx)).attacks
    key = (verb, target, ability, v0, v1)
    hit = cache.get(key)
    if hit is None:
        hit = []
        for ao, v in ((False, v0), (True, v1)):
            for x in x_values(ctx, v):
                opt = ReattackOption(x, ao) if ability is None else AttackOption(x, ao, ability)
                hit.append(action(verb, target, None, opt))
        cache[key] = hit
    return hit


def melee_damage_techniques(ctx: Ctx, cid: str) -> list[Ability]:
    """Known techniques with effect damage and delivery melee (used through attack / parry / counter)."""
    return [a for a in ctx.abilities[cid].values() if a.delivery == "melee" and a.effect == "damage"]


def pool(ctx: Ctx, f: Fighter) -> int:
    """KIA-0.4 / KIA-14.2: the pool a feint pays from."""
    return f.spirit if ctx.opts.separate_spirit_pool else f.kiai


class Tables:
    """Prebuilt actions and static per-combatant facts of one encounter (shared by its combats)."""

    def __init__(self, ctx: Ctx) -> None:
        ids = ctx.ids
        self.grid = grid = ctx.grid
        hexes = grid.cells
        # KIA-8.1 / KIA-8.2: one move and one run action per hex, read back from reach masks row by row
        self.moves = Picker(grid, [action(Verb.MOVE, dest=h) for h in hexes])
        self.runs = Picker(grid, [action(Verb.RUN, dest=h) for h in hexes])
        self.moved_texts = {h: f" moves to {list(h)} (cost " for h in hexes}  # the `moved` event's text
        self.attacks: dict[tuple[object, ...], list[Action]] = {}  # see `attack_options`
        self.sight: dict[tuple[Hex, int], int] = {}  # (hex, range) -> mask of the hexes in range and sight
        self.centres: dict[tuple[Hex, int, str], list[Action]] = {}  # area abilities' centre hexes
        self.charge_spots: dict[tuple[Hex, int], tuple[tuple[int, int], ...]] = {}  # see `_charge_spots`
        self.agility = {c: ctx.spec[c].agility for c in ids}
        self.initiative = {c: (ctx.spec[c].initiative, ctx.spec[c].quick_attack) for c in ids}  # KIA-1.1
        # constant parts of the per-combatant event texts (initiative_rolled, turn_started, turn_ended)
        self.initiative_texts = {c: (f"{c} initiative: d10=", f" + {ini} + {quick} = ")
                                 for c, (ini, quick) in self.initiative.items()}
        self.turn_texts = {c: (f"{c}'s turn", f"{c}'s turn ends") for c in ids}
        self.two_weapon = {g: (action(Verb.TWO_WEAPON_ATTACK, g, None, False),
                               action(Verb.TWO_WEAPON_ATTACK, g, None, True)) for g in ids}
        self.feints = {g: tuple(action(Verb.FEINT, g, None, b) for b in (1, 2, 3)) for g in ids}
        self.breaks = {g: action(Verb.BREAK_WEAPON, g) for g in ids}
        self.disarms = {g: action(Verb.DISARM, g) for g in ids}
        self.consecutive = {g: action(Verb.CONSECUTIVE_ATTACK, g) for g in ids}
        self.offhand = {g: action(Verb.OFFHAND_ATTACK, g) for g in ids}
        self.ready = {k: action(Verb.READY_WEAPON, option=k) for k in ctx.weapons}
        self.pick = {k: action(Verb.PICK_UP, option=k) for k in ctx.weapons}
        self.use = {(a, g): action(Verb.USE_ABILITY, g, None, a) for c in ids for a in ctx.abilities[c] for g in ids}
        self.at_self: dict[tuple[str, Hex], list[Action]] = {}
        self.techs = {c: tuple(melee_damage_techniques(ctx, c)) for c in ids}
        self.others = {c: tuple(a for a in ctx.abilities[c].values() if not (a.effect == "damage"
                                                                            and a.delivery == "melee")) for c in ids}
        self.reactions: dict[tuple[str, ...], list[Action]] = {}
        self.charges: dict[str, list[Action]] = {}
        self.shared: dict[tuple[object, ...], list[Action]] = {}

    def last_list(self, verb: Verb, ids: tuple[str, ...], last: Action) -> list[Action]:
        """The shared list of `verb`'s prebuilt action at each of `ids`, then `last` (D2, D3)."""
        key = (verb, ids)
        hit = self.shared.get(key)
        if hit is None:
            made = {Verb.CONSECUTIVE_ATTACK: self.consecutive, Verb.OFFHAND_ATTACK: self.offhand}[verb]
            hit = remember(self.shared, key, [*(made[g] for g in ids), last], SHARED_LIMIT)
        return hit

    def charges_of(self, target: str) -> list[Action]:
        """``charge`` at `target` from every hex, by hex index (built on first use)."""
        hit = self.charges.get(target)
        if hit is None:
            charge = Verb.CHARGE
            hit = self.charges[target] = [action(charge, target, h) for h in self.grid.cells]
        return hit

    def react_list(self, techs: tuple[str, ...], counter: bool) -> list[Action]:
        """R1's list when attack-defense (and counter) are allowed, with these techniques."""
        key = (*techs, "+" if counter else "-")
        hit = self.reactions.get(key)
        if hit is None:
            hit = [DODGE, action(Verb.ATTACK_DEFENSE), *(action(Verb.ATTACK_DEFENSE, option=ab) for ab in techs)]
            if counter:
                hit.append(action(Verb.COUNTER))
                hit.extend(action(Verb.COUNTER, option=ab) for ab in techs)
            hit.append(NO_REACTION)
            self.reactions[key] = hit
        return hit


def tables_of(ctx: Ctx) -> Tables:
    """The (cached) `Tables` of an encounter."""
    t = ctx.tables
    if t is None:
        t = ctx.tables = Tables(ctx)
    return t


def in_reach(ctx: Ctx, a: Hex | None, b: Hex | None, reach: int) -> bool:
    """KIA-2.2: hex distance <= reach; reach >= 2 also needs a clear line (section 5)."""
    if a is None or b is None:
        return False
    return _reachable(ctx.grid, a, b, reach)


def _reachable(grid: Grid, a: Hex, b: Hex, reach: int) -> bool:
    """`in_reach` for two hexes on the map."""
    d = grid.distance(a, b)
    return d <= reach and (d <= 1 or grid.clear(a, b))


def d1(ctx: Ctx, st: KiaiState, f: Fighter) -> list[Action]:
    """The actor's movement / main-action decision (KIA-24.1)."""
    T = ctx.tables or tables_of(ctx)
    grid = T.grid
    here = f.hex
    assert here is not None
    fid = f.id
    sides = ctx.side
    side = sides[fid]
    bit = grid.bit
    shy = {c.source for c in f.conds if c.type == Condition.INTIMIDATED} if f.conds else ()
    foes: list[tuple[Fighter, Hex]] = []  # `targets` with their hexes, and the enemy and occupied masks, in one pass
    emask = occ = 0
    for cid, g in st.fighters.items():
        h = g.hex
        if h is None:
            continue
        b = bit[h]
        occ |= b
        if g.out or sides[cid] == side:
            continue
        emask |= b
        if cid not in shy:
            foes.append((g, h))
    moved = f.moved
    free = 0
    if not moved and not f.main_done:  # KIA-8.1, KIA-8.2, KIA-8.3: end in an unoccupied hex
        agility = T.agility[fid]
        within = grid.reach(here, agility, emask).within  # costs: difficult hexes 2 (graph), enemies block
        free = within[agility] & ~occ  # the start is occupied: never a destination
        acts: list[Action] = []
        T.moves.extend(acts, within[agility // 2] & ~occ)  # KIA-0.5
        T.runs.extend(acts, free)
    else:
        acts = []
    if f.main_done:
        acts.append(END_TURN)
        return acts
    mspec = (ctx.weapons[f.main] if f.main else UNARMED).spec  # `ctx.weapon`, inline
    reach = mspec.reach
    may_attack = not f.countered  # KIA-10.1, KIA-24.1
    idx = grid.index
    row = grid.distances[idx[here]]
    near: list[Fighter] = []
    if may_attack:
        for g, gh in foes:
            d = row[idx[gh]]
            if d <= reach and (d <= 1 or grid.clear(here, gh)):
                near.append(g)
        if not moved and mspec.category in SPEAR_CLASS:  # KIA-17.1
            mind = ctx.opts.charge_min_distance
            for g, gh in foes:
                ckey = (gh, reach)
                spots = T.charge_spots.get(ckey)
                if spots is None:
                    spots = T.charge_spots[ckey] = _charge_spots(grid, gh, reach)
                charges = None
                for i, b in spots:
                    if free & b and row[i] >= mind:  # not within mind - 1 of here
                        if charges is None:
                            charges = T.charges_of(g.id)
                        acts.append(charges[i])
    if near:
        kiai = f.kiai
        techs = [a.id for a in T.techs[fid] if kiai >= a.level]
        v0, v1 = base_hit(ctx, f, False), base_hit(ctx, f, True)
        for g in near:  # KIA-2, KIA-13, KIA-16, KIA-21.5
            gid = g.id
            acts.extend(attack_options(ctx, Verb.ATTACK, gid, "", v0, v1))
            for ab in techs:
                acts.extend(attack_options(ctx, Verb.ATTACK, gid, ab, v0, v1))
        if f.off and mspec.hands == 1 and f.main:  # KIA-11.1
            acts.extend(a for g in near for a in T.two_weapon[g.id])
        if pool(ctx, f) >= FEINT_COST:  # KIA-14.2
            acts.extend(a for g in near for a in T.feints[g.id])
        restrict = ctx.opts.break_restrictions
        acts.extend(T.breaks[g.id] for g in near  # KIA-18.1, KIA-18.4
                    if g.main and (not restrict or can_break(ctx, f.main, g.main)))
        acts.extend(T.disarms[g.id] for g in near if g.main)  # KIA-19.1
    if may_attack:
        kiai = f.kiai
        acts.extend(a for ab in T.others[fid] if kiai >= ab.level  # KIA-21.5
                    for a in _ability_actions(T, here, ab, foes, near, row))
    acts.extend(CONCENTRATE)  # KIA-20.1
    ready = T.ready
    acts.extend(ready.get(key) or action(Verb.READY_WEAPON, option=key) for key in f.carried)  # KIA-24.2
    if f.off:
        acts.append(ready.get(f.off) or action(Verb.READY_WEAPON, option=f.off))
    if st.ground:  # KIA-19.3
        acts.extend(T.pick.get(key) or action(Verb.PICK_UP, option=key) for h, key in st.ground if row[idx[h]] <= 1)
    if here in ctx.exits:  # KIA-24.3
        acts.append(FLEE)
    acts.append(END_TURN)
    return acts


def _charge_spots(grid: Grid, target: Hex, reach: int) -> tuple[tuple[int, int], ...]:
    """KIA-17.1: (index, bit) of the hexes from which `target` is in reach, by ascending index."""
    cells, bits = grid.cells, grid.bits
    return tuple((i, bits[i]) for i in grid.indices(grid.disc(target, reach))
                 if _reachable(grid, cells[i], target, reach))


def _ability_actions(T: Tables, here: Hex, ab: Ability, foes: list[tuple[Fighter, Hex]],
                     near: list[Fighter], row: list[int]) -> list[Action]:
    """KIA-21.5 delivery: melee (reach), touch (distance 1), ranged (range + sight), area (centre hex).

    On prebuilt actions; `foes` come with their hexes, `row` holds the distances from `here` by hex index.
    """
    aid = ab.id
    use = T.use
    if ab.delivery == "melee":
        return [use[aid, g.id] for g in near]
    grid = T.grid
    idx = grid.index
    if ab.delivery == "touch":
        return [use[aid, g.id] for g, gh in foes if row[idx[gh]] == 1]
    rng = ab.range or 0
    if ab.delivery == "ranged":
        seen = T.sight.get((here, rng))
        if seen is None:
            seen = T.sight[here, rng] = grid.in_sight(here, rng)
        bit = grid.bit
        return [use[aid, g.id] for g, gh in foes if seen & bit[gh]]
    if rng == 0:
        key0 = (aid, here)
        hit = T.at_self.get(key0)
        if hit is None:
            hit = T.at_self[key0] = [action(Verb.USE_ABILITY, None, here, aid)]
        return hit
    key = (here, rng, aid)
    centres = T.centres.get(key)
    if centres is None:  # KIA-21.3: unblocked hexes within range, in sight
        use_ability = Verb.USE_ABILITY
        centres = T.centres[key] = [action(use_ability, None, h, aid)
                                    for h in grid.cells_of(grid.in_sight(here, rng) & ~grid.sight_blockers)]
    return centres


def chain_value(ctx: Ctx, f: Fighter) -> int:
    """KIA-15.2 / KIA-16.2: the next consecutive strike's hit value (without the target's dodge)."""
    k = f.chain_k + 1
    return base_hit(ctx, f, f.chain_all_out) - f.chain_x - 5 * k * (k + 1) // 2


def d2(ctx: Ctx, st: KiaiState, f: Fighter) -> list[Action]:
    """KIA-15.1 / KIA-15.3: consecutive_attack or end_turn."""
    ids: tuple[str, ...] = ()
    if not f.countered and not f.chain_fumbled and chain_value(ctx, f) >= 1:
        reach = ctx.weapon(f.main).reach
        ids = tuple([g.id for g in targets(ctx, st, f) if in_reach(ctx, f.hex, g.hex, reach)])
    return tables_of(ctx).last_list(Verb.CONSECUTIVE_ATTACK, ids, END_TURN)


def d3(ctx: Ctx, st: KiaiState, f: Fighter) -> list[Action]:
    """KIA-11.1: offhand_attack or end_turn."""
    ids: tuple[str, ...] = ()
    if f.off and not f.countered:
        reach = ctx.weapon(f.off).reach
        ids = tuple([g.id for g in targets(ctx, st, f) if in_reach(ctx, f.hex, g.hex, reach)])
    return tables_of(ctx).last_list(Verb.OFFHAND_ATTACK, ids, END_TURN)


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
    return not (f.conds and (has(f, Condition.STUNNED) or has(f, Condition.CONCENTRATING)))


def p1(ctx: Ctx, st: KiaiState, f: Fighter) -> list[Action]:
    """KIA-12.1: reattack(target, (technique_x, all_out)) or pass."""
    v0, v1 = base_hit(ctx, f, False), base_hit(ctx, f, True)
    ids = tuple([g.id for g in reattack_targets(ctx, st, f)])
    shared = tables_of(ctx).shared
    key = (Verb.REATTACK, ids, v0, v1)
    acts = shared.get(key)
    if acts is None:
        acts = [*(a for gid in ids for a in attack_options(ctx, Verb.REATTACK, gid, None, v0, v1)), PASS]
        remember(shared, key, acts, SHARED_LIMIT)
    return acts


def r1(ctx: Ctx, st: KiaiState) -> list[Action]:
    """KIA-3.4, KIA-9.6, KIA-10.1: the reactions a strike's kind allows."""
    fr = st.stack[-1]
    t = st.fighters[fr.target]
    a = st.fighters[fr.attacker]
    if (fr.skind == "melee" and not t.parry_used and not has(t, Condition.CONCENTRATING)
            and not has(t, Condition.INTIMIDATED, a.id) and in_reach(ctx, t.hex, a.hex, ctx.weapon(t.main).reach)):
        T = tables_of(ctx)
        techs = tuple([ab.id for ab in T.techs[t.id] if t.kiai >= 2 * ab.level])  # KIA-9.5
        return T.react_list(techs, not t.attacked and not t.countered)
    return DODGE_OR_NOT
