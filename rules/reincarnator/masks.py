"""Shared pieces of the action mask: held items, hands, payability, targets (section 7)."""


from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from trpg_arena.rules.core.battlefield import chebyshev as cheb
from trpg_arena.rules.core.values import remember
from trpg_arena.rules.reincarnator.conditions import (
    grapples_of,
    hands_used,
    in_grapple,
    rating,
    shot_group,
)
from trpg_arena.rules.reincarnator.model import ItemSpec
from trpg_arena.rules.reincarnator.movement import board, doors_now
from trpg_arena.rules.reincarnator.state import Cell, Fighter, ReiState
from trpg_arena.rules.reincarnator.turns import _PLANS, pay_plan

if TYPE_CHECKING:
    from trpg_arena.rules.reincarnator.state import ReiCombat

SWIFT_RELOAD = ("magazine", "lever", "speedloader", "shell", "bow", "crossbow", "bolt_action")
HEAVY_RELOAD = ("musket", "launcher", "revolver")
OFFSETS_CACHE: dict[int, list[Cell]] = {}


def offsets(reach: int) -> list[Cell]:
    """Offsets within Chebyshev `reach` of a cell, excluding (0, 0), in a fixed order."""
    hit = OFFSETS_CACHE.get(reach)
    if hit is None:
        hit = [(dx, dy) for dy in range(-reach, reach + 1) for dx in range(-reach, reach + 1) if (dx, dy) != (0, 0)]
        OFFSETS_CACHE[reach] = hit
    return hit


def held(state: ReiState, cid: str, memo: dict[Any, Any] | None = None) -> list[str]:
    """Item ids held by `cid` (memoised in `memo`, a legal-set computation's `Combat.scratch`, when given)."""
    if memo is not None:
        return gear(state, cid, memo)[0].get("held") or []
    return [k for k, it in state.items.items() if it.holder == cid and it.loc == "held"]


def carried(state: ReiState, cid: str, loc: str, memo: dict[Any, Any] | None = None) -> list[str]:
    """Item ids carried by `cid` at a location (memoised in `memo` when given, as `held`)."""
    if memo is not None:
        return gear(state, cid, memo)[0].get(loc) or []
    return [k for k, it in state.items.items() if it.holder == cid and it.loc == loc]


def gear(state: ReiState, cid: str, memo: dict[Any, Any] | None
         ) -> tuple[dict[str, list[str]], list[tuple[str, Cell]]]:
    """(`cid`'s items by place, the items on the ground with their cells), each in item order.

    One pass over the items per legal-set computation (`memo`: its `Combat.scratch`), for every question of it
    about what `cid` holds, carries or could pick up; the lists are shared by the questions, which only read them.
    """
    key = ("gear", cid)
    hit = None if memo is None else memo.get(key)
    if hit is None:
        mine: dict[str, list[str]] = {}
        ground: list[tuple[str, Cell]] = []
        for k, it in state.items.items():
            loc = it.loc
            if it.holder == cid:
                at = mine.get(loc)
                if at is None:
                    mine[loc] = [k]
                else:
                    at.append(k)
            if loc == "ground" and it.cell is not None:
                ground.append((k, it.cell))
        hit = (mine, ground)
        if memo is not None:
            memo[key] = hit
    return hit


def free_hands(combat: ReiCombat, cid: str) -> int:
    """Hands not holding items or grapples (REI-7.14)."""
    memo = combat.scratch
    if memo is not None:
        key = ("hands", cid)
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = _free_hands(combat, cid)
        return hit
    return _free_hands(combat, cid)


def _free_hands(combat: ReiCombat, cid: str) -> int:
    state = combat.state
    st = combat.tables
    used = sum(st.items[k].hands for k in held(state, cid, combat.scratch)) + hands_used(combat, cid)
    return st.specs[cid].hands - used


def liftable(combat: ReiCombat, cid: str, item: ItemSpec) -> bool:
    """REI-4.8: size within thrower size - 3, or STR >= 2 per point over."""
    st = combat.tables
    s0 = st.specs[cid].size - 3
    return item.size <= s0 or rating(st, cid, "str") >= 2 * (item.size - s0)


def heavy(combat: ReiCombat, cid: str, item: ItemSpec) -> bool:
    """REI-4.6: heavy items are thrown with Strength only."""
    return item.heavy or item.size > combat.tables.specs[cid].size - 3


class Payable(NamedTuple):
    """Which costs of the mask the remaining slots pay (REI-2.10), by the fields' names.

    ``_x``: exactly these slots, no substitution (charges, crushes, grapple strikes).
    """

    trick: bool
    swift: bool
    move: bool
    acrobatic: bool
    standard: bool
    standard_swift: bool  # a fast throw (REI-4.10)
    move_swift: bool  # drive fast
    standard_move_x: bool
    standard_acrobatic_x: bool
    standard_move_swift_x: bool


_COSTS: tuple[tuple[tuple[str, ...], bool], ...] = (
    (("trick",), False), (("swift",), False), (("move",), False), (("acrobatic",), False), (("standard",), False),
    (("standard", "swift"), False), (("move", "swift"), False), (("standard", "move"), True),
    (("standard", "acrobatic"), True), (("standard", "move", "swift"), True))
# (trick, swift, move, acrobatic, standard slots left, tier substitution) -> what they pay
_PAYABLE: dict[tuple[int, ...], Payable] = {}


def payable(combat: ReiCombat, f: Fighter) -> Payable:
    """Every cost the mask asks about, at once: one table lookup per fighter and legal set.

    The answers depend on the slots left and the encounter's tier substitution only, so one `Payable` serves
    every fighter and state with the same slots; while a mask is built it is also kept in `Combat.scratch`.
    """
    memo = combat.scratch
    key = (_PAYS, f.id)
    if memo is not None:
        known: Payable | None = memo.get(key)
        if known is not None:
            return known
    s = f.slots
    slots = (s.get("trick", 0), s.get("swift", 0), s.get("move", 0), s.get("acrobatic", 0), s.get("standard", 0),
             combat.tables.enc.options.tier_substitution)
    hit = _PAYABLE.get(slots)
    if hit is None:
        hit = Payable(*(_can_pay(combat, f, parts, exact) for parts, exact in _COSTS))
        remember(_PAYABLE, slots, hit, 10_000)
    if memo is not None:
        memo[key] = hit
    return hit


_PAYS = object()  # the first element of the `Combat.scratch` keys of `payable`


def _can_pay(combat: ReiCombat, f: Fighter, parts: tuple[str, ...], exact: bool) -> bool:
    s = f.slots
    subst = combat.tables.enc.options.tier_substitution and not exact
    key = (s.get("trick", 0), s.get("swift", 0), s.get("move", 0), s.get("acrobatic", 0), s.get("standard", 0),
           parts, exact, subst)
    hit = _PLANS.get(key, False)
    if hit is False:
        return pay_plan(combat, s, parts, exact) is not None
    return hit is not None


def targetable(combat: ReiCombat, cid: str, tid: str, ranged: bool) -> bool:
    """A single-target attack may name `tid` (section 7, REI-3.10, REI-6.6)."""
    state = combat.state
    me = state.fighters[cid]
    if tid in state.vehicles:
        v = state.vehicles[tid]
        return not v.wrecked and v.side is not None and v.side != me.side
    t = state.fighters[tid]
    if t.status != "active" or t.side == me.side or t.cell is None:
        return False
    if t.hidden and not combat.tables.enc.options.hidden_targetable:
        return False
    if t.in_vehicle is not None and not ranged:
        return False
    return True


def movement_ok(combat: ReiCombat, f: Fighter) -> bool:
    """Ordinary movement verbs allowed (section 7)."""
    return not (f.aimed or f.prone or f.crouching or f.in_vehicle is not None or in_grapple(combat.state, f.id))


def pinner_of(state: ReiState, cid: str) -> str | None:
    """The combatant `cid` pins, if it only pins (REI-7.12)."""
    gs = grapples_of(state, cid)
    if len(gs) == 1 and gs[0].holder == cid and gs[0].state == "pin":
        return gs[0].held
    return None



def can_aim(combat: ReiCombat, cid: str, hold_items: list[str]) -> bool:
    """REI-5.2: a loaded ranged weapon or a throwable item in hand."""
    state = combat.state
    st = combat.tables
    for k in hold_items:
        w = st.items[k]
        if w.is_ranged and state.items[k].loaded >= 1:
            return True
        if w.kind in ("thrown", "object"):
            return True
    return False


def aim_target_ok(combat: ReiCombat, cid: str, t: str) -> bool:
    """REI-5.2: an active, non-hidden enemy in sight and visibility."""
    state = combat.state
    tf = state.fighters[t]
    me = state.fighters[cid]
    if tf.status != "active" or tf.side == me.side or tf.hidden or tf.cell is None or me.cell is None:
        return False
    vis = board(combat).visibility
    if vis is not None and cheb(me.cell, tf.cell) > vis:
        return False
    return board(combat).los(me.cell, tf.cell, doors_now(combat))


def grapple_weapons(combat: ReiCombat, cid: str, soft: str | None) -> list[str]:
    """REI-7.9: natural weapons, held melee weapons of size <= size - 3, the grapple's soft weapon."""
    state = combat.state
    st = combat.tables
    out = list(st.natural[cid])
    for k in held(state, cid, combat.scratch):
        w = st.items[k]
        if w.kind == "melee" and (w.size <= st.specs[cid].size - 3 or k == soft):
            out.append(k)
    return out


def melee_weapons(combat: ReiCombat, cid: str) -> list[str]:
    """Natural weapons and held melee weapons."""
    st = combat.tables
    return list(st.natural[cid]) + [k for k in held(combat.state, cid, combat.scratch) if st.items[k].kind == "melee"]


def into_variants(state: ReiState, target: str, shooter: str) -> tuple[tuple[str, ...], ...]:
    """REI-7.17: into-grapple options when the target is in a grapple with others than the shooter (`shot_group`)."""
    if not in_grapple(state, target) or len(shot_group(state, target, shooter)) < 2:
        return ((),)
    return (("careful",), ("random",))


def opt(*parts: str) -> str | tuple[str, ...]:
    """An option: a bare id or a tuple with flags (`interned.act` gives a tuple its type per verb)."""
    return parts[0] if len(parts) == 1 else tuple(parts)
