"""The legal set at each decision point (spec section 7): phase offers, turn actions, reactions, defenses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.battlefield import chebyshev
from trpg_arena.rules.core.ranking import add_to_groups
from trpg_arena.rules.core.values import Action
from trpg_arena.rules.investigator.catalogue import Catalogue, catalogue_of
from trpg_arena.rules.investigator.compiled import DIR_OF, DIRS, UNARMED, Setup, WeaponT
from trpg_arena.rules.investigator.moves import MoveTables, move_dests, moves_of, occupancy
from trpg_arena.rules.investigator.rolls import EXTREME, HARD, REGULAR, Expr
from trpg_arena.rules.investigator.state import Fighter, Frame, InvState, Item

if TYPE_CHECKING:
    from trpg_arena.rules.investigator.state import InvCombat

Cell = tuple[int, int]


# --- small predicates shared with the rule modules ---------------------------------------------------
def fighter(setup: Setup, st: InvState, cid: str) -> Fighter:
    """The state of a combatant by id."""
    return st.fighters[setup.idx[cid]]


def std_available(setup: Setup, f: Fighter) -> bool:
    """A standard slot is available (INV-3.1): fewer than S used and no lockout (INV-4.9)."""
    return f.standard_used < setup.profiles[setup.idx[f.id]].actions and not f.full_mov_lockout


def full_round_available(f: Fighter) -> bool:
    """Move slot and every standard slot unused and available (INV-3.4)."""
    return not f.move_used and f.standard_used == 0 and not f.full_mov_lockout


def wielded_item(f: Fighter) -> Item | None:
    """The wielded weapon instance, or None when unarmed."""
    if f.wielded == "unarmed":
        return None
    return f.weapon(f.wielded)


def wielded_t(setup: Setup, f: Fighter) -> WeaponT:
    """The template of the wielded weapon (``unarmed`` when none)."""
    it = wielded_item(f)
    return UNARMED if it is None else setup.weapons[it.template]


def melee_weapon(setup: Setup, f: Fighter) -> WeaponT:
    """The weapon used in melee (INV-8.1): the wielded one if it is a melee weapon, else unarmed."""
    w = wielded_t(setup, f)
    return w if w.kind == "melee" else UNARMED


def shot_band(setup: Setup, w: WeaponT, d: int) -> tuple[int, Expr] | None:
    """(required level, damage) of a shot at distance `d`, or None when out of range (INV-6.2)."""
    if w.bands:
        for mx, lvl, dmg in w.bands:
            if d <= mx:
                return lvl, dmg or w.damage
        return None
    b = w.base_range
    if d <= b:
        return REGULAR, w.damage
    if not setup.opt.range_bands:
        return None
    if d <= 2 * b:
        return HARD, w.damage
    if d <= 4 * b:
        return EXTREME, w.damage
    return None


def ranged_ready(setup: Setup, f: Fighter) -> bool:
    """Wields a loaded, unjammed firearm or a thrown stack with count >= 1."""
    it = wielded_item(f)
    if it is None:
        return False
    w = setup.weapons[it.template]
    return (w.kind == "firearm" and it.loaded >= 1 and not it.jammed) or (w.kind == "thrown" and it.count >= 1)


def melee_maneuvers(setup: Setup, a: Fighter, t: Fighter) -> tuple[str, ...]:
    """Legal melee maneuvers of `a` on `t` (INV-7.2, INV-7.3: illegal at Build difference >= 3)."""
    if setup.prof(t.id).build - setup.prof(a.id).build >= 3:
        return ()
    out = []
    if not t.prone:
        out.append("knock_down")
    if t.wielded != "unarmed":
        out.append("disarm")
    out.append("push")
    return tuple(out)


def hostile(setup: Setup, a: str, b: str) -> bool:
    """Different sides."""
    return setup.side_of[a] != setup.side_of[b]


# --- the legal sets ------------------------------------------------------------------------------------
class TurnActions(list[Action]):
    """A turn's legal set that carries its actions grouped by verb (`groups`, as `grouped_by_verb` gives them).

    The scripted policy groups a turn's set by verb for its priority list; the set is built one verb at a time,
    so noting the groups while building it costs a dict entry per verb instead of a walk over every action
    (most of them moves). The groups are the set's, shared: read them, never change them. Compared, copied with
    ``list()`` and pickled, it is a plain list (a pickled copy leaves the groups behind).
    """

    __slots__ = ("groups",)

    groups: dict[str, list[Action]]

    def __reduce__(self) -> tuple[Any, ...]:
        return list, (list(self),)


class Legal:
    """Computes legal sets for one decision of one combat."""

    __slots__ = ("combat", "st", "s", "cat", "g", "_occ", "_forms", "_scanned")

    def __init__(self, combat: InvCombat, setup: Setup | None = None) -> None:
        self.combat = combat
        self.st: InvState = combat.state
        self.s = s = setup if setup is not None else combat.tables
        cat = s.catalogue
        self.cat: Catalogue = cat if cat is not None else catalogue_of(s)
        g = s.moves
        self.g: MoveTables = g if g is not None else moves_of(s)
        self._occ: dict[Cell, Fighter] | None = None
        self._forms: list[tuple[int, Cell]] | None = None
        self._scanned: tuple[Fighter, int, int, list[tuple[Fighter, Cell]], list[Fighter]] | None = None

    @property
    def occ(self) -> dict[Cell, Fighter]:
        """Square -> the combatant standing there (built on first use)."""
        occ = self._occ
        if occ is None:
            occ = self._occ = occupancy(self.st)
        return occ

    def scan(self, f: Fighter) -> tuple[Fighter, int, int, list[tuple[Fighter, Cell]], list[Fighter]]:
        """One pass over the combatants for a decision of `f` (cached).

        Returns (f, bits of the occupied squares, bits of the squares of hostiles able to act, present hostiles
        with their squares, present combatants within one square of `f` (itself included)), the lists in roster
        order.
        """
        hit = self._scanned
        if hit is not None and hit[0] is f:
            return hit
        assert f.pos is not None
        bit = self.g.bit
        side_of = self.s.side_of
        side = side_of[f.id]
        px, py = f.pos
        occupied = hostile = 0
        foes: list[tuple[Fighter, Cell]] = []
        near: list[Fighter] = []
        for t in self.st.fighters:
            p = t.pos
            if p is None or t.dead or t.fled:
                continue
            b = bit[p]
            occupied |= b
            if side_of[t.id] != side:
                foes.append((t, p))
                if not (t.unconscious or t.dying):
                    hostile |= b
            if -1 <= p[0] - px <= 1 and -1 <= p[1] - py <= 1:
                near.append(t)
        hit = self._scanned = (f, occupied, hostile, foes, near)
        return hit

    def steps_allowed(self, f: Fighter) -> bool:
        """Embedded or standalone one-step moves are possible now (INV-4.4)."""
        return not f.prone and f.steps_this_turn < self.s.opt.max_steps_per_turn

    def step_options(self, f: Fighter) -> list[tuple[int, Cell]]:
        """(STEP_FORMS index, square the action happens from) of the plain form and every legal embedded step.

        The plain form comes first, then every ``before`` step, then every ``after`` step; cached per call.
        """
        if self._forms is not None:
            return self._forms
        assert f.pos is not None
        pos = f.pos
        if not self.steps_allowed(f):
            self._forms = [(0, pos)]
            return self._forms
        g = self.g
        # the list depends on the square and which of its one-step squares are occupied only: shared, read only
        near = self.scan(f)[1] & g.step_ring[pos]
        by_near = g.forms.get(pos)
        if by_near is None:
            by_near = g.forms[pos] = {}
        out = by_near.get(near)
        if out is None:
            out = [(0, pos)]
            free = [(i, c) for c, b, i in g.steps[pos] if not near & b]
            out += free
            out += [(i + 8, pos) for i, _ in free]
            by_near[near] = out
        self._forms = out
        return out

    # cast ----------------------------------------------------------------------------------------
    def casts(self, f: Fighter) -> list[Action]:
        """Legal `cast` actions (INV-5.1, 5.4, 5.6)."""
        s = self.s
        prof = s.prof(f.id)
        if not prof.spells:
            return []
        std = std_available(s, f)
        full = full_round_available(f)
        if not std:
            return []
        out: list[Action] = []
        forms = None
        forms_of = self.cat.forms
        for sid in prof.spells:
            sp = s.spells[sid]
            if f.mp < sp.mp_cost or any(f.materials.get(m, 0) < n for m, n in sp.materials):
                continue
            if sp.rounds > 1 and not full:
                continue
            if forms is None:
                forms = self.step_options(f)
            side = s.side_of[f.id]
            rng = sp.range
            walls = s.wall_between
            pos = forms[0][1]
            for t in self.st.fighters:
                if t.pos is None or t.dead or t.fled:
                    continue
                if sp.target_rule == "enemy" and s.side_of[t.id] == side:
                    continue
                if sp.target_rule == "ally" and s.side_of[t.id] != side:
                    continue
                if sp.target_rule == "self" and t.id != f.id:
                    continue
                acts = forms_of[("cast", t.id, sid)]
                tpos = t.pos
                pos_ok = None  # the verdict from the actor's own square (the plain and every "after" form)
                for i, src in forms if sp.rounds == 1 else forms[:1]:
                    if t is f:  # the caster targets the square it casts from: distance 0, no line
                        ok = rng >= 0
                    elif src is pos and pos_ok is not None:
                        ok = pos_ok
                    else:  # within range (Chebyshev distance, INV-1.4) and no wall on the line
                        dx, dy = src[0] - tpos[0], src[1] - tpos[1]
                        ok = ((dx if dx >= 0 else -dx) <= rng and (dy if dy >= 0 else -dy) <= rng
                              and (src == tpos or not walls(src, tpos)))
                        if src is pos:
                            pos_ok = ok
                    if not ok:
                        continue
                    out.append(acts[i])
        return out

    # shoot ---------------------------------------------------------------------------------------
    def shots(self, f: Fighter) -> list[Action]:
        """Legal `shoot` actions (INV-6.1, 6.2, 6.4, 6.6, 6.8, 7.1)."""
        s = self.s
        it = wielded_item(f)
        if it is None or it.loaded < 1 or it.jammed or not std_available(s, f):
            return []
        w = s.weapons[it.template]
        if w.kind != "firearm":
            return []
        forms = self.step_options(f)
        forms_of = self.cat.forms
        multi = min(w.shots, it.loaded) if s.opt.multiple_shots else 1
        out: list[Action] = []
        reach = s.max_range(w)
        walls = s.wall_between
        pos = forms[0][1]
        for t, tp in self.scan(f)[3]:
            tx, ty = tp
            plain = [forms_of[("shoot", t.id, "", n)] for n in range(1, multi + 1)]
            one = plain[0] if multi == 1 else None
            disarm = forms_of.get(("shoot", t.id, "disarm", 1)) if t.wielded != "unarmed" else None
            dx, dy = pos[0] - tx, pos[1] - ty
            dx, dy = dx if dx >= 0 else -dx, dy if dy >= 0 else -dy
            d_pos = dx if dx > dy else dy  # Chebyshev distance from the own square (INV-1.4)
            good_pos = d_pos <= reach and not walls(pos, tp)
            for i, src in forms:
                if src is pos:  # the plain form and the "after" forms shoot from the square itself
                    if not good_pos:
                        continue
                    d = d_pos
                else:  # a "before" form: each step square appears once
                    dx, dy = src[0] - tx, src[1] - ty
                    dx, dy = dx if dx >= 0 else -dx, dy if dy >= 0 else -dy
                    d = dx if dx > dy else dy
                    if d > reach or walls(src, tp):
                        continue
                if one is not None:
                    out.append(one[i])
                else:
                    for acts in plain:
                        out.append(acts[i])
                if disarm is not None and d == 1:
                    out.append(disarm[i])
        return out

    # melee ---------------------------------------------------------------------------------------
    def melees(self, f: Fighter) -> list[Action]:
        """Legal `melee` actions (INV-8.1, 8.2, 7.x)."""
        s = self.s
        if not std_available(s, f):
            return []
        assert f.pos is not None
        foes = self.scan(f)[3]
        if not foes:
            return []
        forms = None
        forms_of = self.cat.forms
        out: list[Action] = []
        px, py = f.pos
        for t, (tx, ty) in foes:
            if not (-2 <= px - tx <= 2 and -2 <= py - ty <= 2):
                continue  # no square within a step of `f` touches `t`
            if forms is None:
                forms = self.step_options(f)
            mans: list[list[Action]] | None = None
            plain = forms_of[("melee", t.id, "")]
            for i, src in forms:
                if not (-1 <= src[0] - tx <= 1 and -1 <= src[1] - ty <= 1) or src == t.pos:
                    continue
                out.append(plain[i])
                if mans is None:
                    mans = [forms_of[("melee", t.id, m)] for m in melee_maneuvers(s, f, t)]
                for acts in mans:
                    out.append(acts[i])
        return out

    def turn(self, f: Fighter) -> TurnActions:
        """Every legal action of `f` during its own turn, ``end_turn`` first, with its groups by verb.

        Each verb's actions are listed together, in one piece below, so the groups are noted piece by piece
        as the set is built (see `TurnActions`).
        """
        s, st, by = self.s, self.st, self.cat.by
        end = by[("end_turn",)]
        out = TurnActions((end,))
        groups = out.groups = {end.verb: [end]}
        first = st.turn_actions == 0
        if f.channel_spell and first and full_round_available(f):
            cont = by[("continue_cast",)]
            out.append(cont)
            groups[cont.verb] = [cont]
        # prepare slot
        if not f.prepare_used:
            opts = s.prepare_options.get(f.id)
            if opts is None:  # (requirement, action) of "aim" and the combatant's techniques (INV-4.1), once
                opts = s.prepare_options[f.id] = tuple(
                    (s.techniques[tid].requires, by[("prepare", tid)]) for tid in ("aim",) + s.prof(f.id).techniques)
            prep = []
            for requires, act in opts:
                if requires == "ranged_ready" and not ranged_ready(s, f):
                    continue
                if requires == "melee_weapon" and melee_weapon(s, f) is UNARMED:
                    continue
                prep.append(act)
            if prep:
                out += prep
                groups[prep[0].verb] = prep
            switch = [by[("switch_weapon", wid)] for wid in ("unarmed", *(w.id for w in f.weapons))
                      if wid != f.wielded]
            if switch:
                out += switch
                groups[switch[0].verb] = switch
        # move slot
        assert f.pos is not None
        if not f.move_used:
            if f.prone:
                stand = by[("stand_up",)]
                out.append(stand)
                groups[stand.verb] = [stand]
            else:
                _, occupied, hostile, _, _ = self.scan(f)
                if f.steps_this_turn < s.opt.max_steps_per_turn:  # one-step moves (INV-4.4) to free squares
                    g = self.g
                    key = (f.pos, occupied & g.step_ring[f.pos])
                    moves = g.step_moves.get(key)
                    if moves is None:
                        steps = self.cat.steps
                        moves = g.step_moves[key] = [steps[c] for c, b, _ in g.steps[f.pos] if not key[1] & b]
                    if moves:
                        out += moves
                        groups[moves[0].verb] = moves  # the shared list: groups are read only
                dests = move_dests(s, f, occupied, hostile, self.cat.moves)
                if dests:
                    out += dests
                    groups[dests[0].verb] = dests
        if not std_available(s, f):
            return out
        for part in (self.casts(f), self.shots(f), self.melees(f)):
            if part:
                out += part
                groups[part[0].verb] = part
        n = len(out)
        self._other_standard(f, out)
        if len(out) > n:  # throws, reloads, items, first aid, flight, pursuit: verbs of their own, rarely many
            add_to_groups(groups, out[n:])
        return out

    def _other_standard(self, f: Fighter, out: list[Action]) -> None:
        s, st, by = self.s, self.st, self.cat.by
        assert f.pos is not None
        side = s.side_of[f.id]
        it = wielded_item(f)
        w = None if it is None else s.weapons[it.template]
        _, _, _, foes, near = self.scan(f)
        # throw (INV-8.8)
        if it is not None and w is not None and w.kind == "thrown" and it.count >= 1:
            here = f.pos
            out.extend(by[("throw", t.id)] for t, tp in foes
                       if chebyshev(here, tp) <= 10 and not s.wall_between(here, tp))
        # reload (INV-8.10)
        if it is not None and w is not None and w.kind == "firearm" and (
                it.jammed or (it.loaded < w.capacity and f.ammo.get(w.ammo_type, 0) >= 1)):
            out.append(by[("reload",)])
        # pass an item (INV-8.11)
        allies = [t for t in near if t is not f and s.side_of[t.id] == side and t.able]
        if allies:
            items = [*(wi.id for wi in f.weapons), *(f"ammo:{a}" for a, n in sorted(f.ammo.items()) if n >= 1),
                     *(f"material:{m}" for m, n in sorted(f.materials.items()) if n >= 1)]
            out.extend(by[("pass_item", t.id, i)] for t in allies for i in items)
        # pick up (INV-8.11)
        if st.ground:
            px, py = f.pos
            for g in st.ground:
                dx, dy = g.pos[0] - px, g.pos[1] - py
                if -1 <= dx <= 1 and -1 <= dy <= 1:
                    d = "here" if dx == 0 and dy == 0 else DIR_OF[(dx, dy)]
                    out.append(by[("pick_up", g.item.id, d)])
        # first aid (INV-8.12)
        out.extend(by[("first_aid", t.id)] for t in near
                   if t.untreated_wound and (t.hp < s.prof(t.id).max_hp or t.dying or t.unconscious))
        # flee (INV-12.3)
        if not f.prone and f.pos in s.exits:
            out.append(by[("flee",)])
        # pursue (INV-9.2)
        if s.opt.pursuit_mode == "turn_action":
            for t in near:
                if t is f or s.side_of[t.id] == side:
                    continue
                out.append(by[("pursue", t.id, "")])
                for m in melee_maneuvers(s, f, t):
                    out.append(by[("pursue", t.id, m)])

    def offer(self, f: Fighter, phase: str) -> list[Action]:
        """The legal set of a phase offer (INV-4.3), without ``wait``; empty means no offer."""
        if phase == "cast":
            out = self.casts(f)
            if f.channel_spell and full_round_available(f):
                out.insert(0, self.cat.by[("continue_cast",)])
            return out
        return self.shots(f)

    def reaction(self, r: Fighter, fr: Frame) -> list[Action]:
        """A reaction window's legal set (INV-10.4, INV-9.1).

        Memoised on the setup by what it depends on, so an unchanged situation hands back the same list
        object (callers only read legal lists).
        """
        s = self.s
        m = fighter(s, self.st, fr.actor)
        ev = fr.event
        opportunity = ev in ("leave", "enter", "action") and not r.opportunity_used
        pursuit = ev in ("leave", "step") and s.opt.pursuit_mode == "reaction" and std_available(s, r)
        # the maneuvers depend on the Build difference, the mover's prone flag and whether it is armed
        key = (r.id, m.id, opportunity, pursuit and (m.prone, m.wielded == "unarmed"))
        memo = s.legal_lists
        out = memo.get(key)
        if out is not None:
            return out
        by = self.cat.by
        out = []
        if opportunity:
            out.append(by[("opportunity_attack", m.id)])
        if pursuit:
            out.append(by[("pursuit_attack", m.id, "")])
            for man in melee_maneuvers(s, r, m):
                out.append(by[("pursuit_attack", m.id, man)])
        out.append(by[("decline",)])
        memo[key] = out
        return out

    def defense(self, fr: Frame) -> list[Action]:
        """A defense decision's legal set (INV-8.3, 8.4, 6.3): one shared list per kind of attack."""
        verb = fr.verb if fr.verb in ("shot", "throw") else "melee"
        memo = self.s.legal_lists
        out = memo.get(verb)
        if out is not None:
            return out
        by = self.cat.by
        if verb == "shot":
            out = [by[("dive_for_cover",)], by[("no_defense",)]]
        else:
            out = [by[("dodge",)]]
            if verb != "throw" and self.s.opt.fight_back:
                out.append(by[("fight_back",)])
            out.append(by[("no_defense",)])
        memo[verb] = out
        return out


def step_target(pos: Cell, d: str) -> Cell:
    """The square one step from `pos` in compass direction `d`."""
    dx, dy = DIRS[d]
    return (pos[0] + dx, pos[1] + dy)
