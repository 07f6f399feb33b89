"""Movement on the graph (REI-2.15, 2.16, 6.4, 6.7, section 5): destinations, execution, knockback, drags."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trpg_arena.rules.reincarnator.conditions import (
    check_cover_sources,
    end_all_grapples,
    end_hidden,
    grapples_of,
    remove_cover,
    reset_aim,
    rs,
)
from trpg_arena.rules.reincarnator.data import static
from trpg_arena.rules.reincarnator.geometry import ReiBattlefield, Search, sign
from trpg_arena.rules.reincarnator.state import Cell, ReiState, cell_of_key

if TYPE_CHECKING:
    from trpg_arena.rules.core.combat import Combat
    from trpg_arena.rules.reincarnator.state import ReiCombat


def bf(combat: ReiCombat) -> ReiBattlefield:
    """The battlefield, typed (the system builds a `ReiBattlefield`, see `ReincarnatorSystem.build_battlefield`)."""
    b = combat.battlefield
    assert isinstance(b, ReiBattlefield)
    return b


_NO_DOORS: frozenset[Cell] = frozenset()
_DOORS: dict[tuple[tuple[str, str], ...], frozenset[Cell]] = {}


def closed_doors(state: ReiState) -> frozenset[Cell]:
    """Cells of closed doors (cached by the door states)."""
    if not state.doors:
        return _NO_DOORS
    key = tuple(state.doors.items())
    hit = _DOORS.get(key)
    if hit is None:
        if len(_DOORS) > 10000:
            _DOORS.clear()
        hit = _DOORS[key] = _closed_doors(state)
    return hit


def _closed_doors(state: ReiState) -> frozenset[Cell]:
    return frozenset(cell_of_key(k) for k, d in state.doors.items() if d == "closed")


def enemies(state: ReiState, a: str, b: str) -> bool:
    """Whether two combatants are on different sides."""
    return state.fighters[a].side != state.fighters[b].side


def blocked_for(combat: ReiCombat, cid: str, ignore: tuple[str, ...] = ()) -> frozenset[Cell]:
    """Cells `cid` may not pass: non-hidden active enemies and vehicles other than its own (section 5)."""
    state = rs(combat)
    me = state.fighters[cid]
    out = []
    for f in state.fighters.values():
        if f.cell is None or f.id == cid or f.id in ignore or f.status != "active" or f.in_vehicle is not None:
            continue
        if f.side != me.side and not f.hidden:
            out.append(f.cell)
    for v in state.vehicles.values():
        if v.id != me.in_vehicle:
            out.append(v.cell)
    return frozenset(out)


def occupied_for(combat: ReiCombat, cid: str, ignore: tuple[str, ...] = ()) -> set[Cell]:
    """Cells `cid` may not end on: every other body and vehicle, except hidden enemies (planned as absent)."""
    state = rs(combat)
    me = state.fighters[cid]
    out = set()
    for f in state.fighters.values():
        if f.cell is None or f.id == cid or f.id in ignore or f.status in ("fled", "reserve"):
            continue
        if f.status == "active" and f.hidden and f.side != me.side:
            continue
        out.add(f.cell)
    for v in state.vehicles.values():
        if v.id != me.in_vehicle:
            out.add(v.cell)
    return out


def mode_of(combat: ReiCombat, cid: str, climb: bool = False) -> str:
    """Cost table for this mover (REI-6.7 ignore_difficult_terrain, REI-2.15 climb_jump)."""
    memo = static(combat).memo
    key = ("mode", cid, climb)
    hit = memo.get(key)
    if hit is None:
        ign = static(combat).specs[cid].has("ignore_difficult_terrain")
        hit = memo[key] = ("climb" if climb else "walk") + ("_i" if ign else "")
    return hit


def search_from(combat: ReiCombat, cid: str, start: Cell, climb: bool = False, ignore: tuple[str, ...] = (),
                vehicle: bool = False) -> Search:
    """Cached search of every path for `cid` from `start`."""
    state = rs(combat)
    mode = "walk" if vehicle else mode_of(combat, cid, climb)
    alt = static(combat).enc.options.diagonal_rule == "alternating"
    return bf(combat).search(start, blocked_for(combat, cid, ignore), closed_doors(state), mode, alt)


def _memoised(kind: str, bits: Callable[[Combat, str, tuple[str, ...]], int], combat: ReiCombat, cid: str,
              ignore: tuple[str, ...]) -> int:
    """`bits(combat, cid, ignore)`, memoised in `Combat.scratch` while a legal set is being computed."""
    memo = combat.scratch
    if memo is None:
        return bits(combat, cid, ignore)
    key = (kind, cid, ignore)
    hit: int | None = memo.get(key)
    if hit is None:
        hit = memo[key] = bits(combat, cid, ignore)
    return hit


def blocked_mask(combat: ReiCombat, cid: str, ignore: tuple[str, ...] = ()) -> int:
    """`blocked_for` as a bitset."""
    return _memoised("blocked", _blocked_bits, combat, cid, ignore)


def _blocked_bits(combat: ReiCombat, cid: str, ignore: tuple[str, ...]) -> int:
    """The cells of `blocked_for`, or-ed straight into a bitset."""
    state = rs(combat)
    me = state.fighters[cid]
    bit = bf(combat).bit
    m = 0
    for f in state.fighters.values():
        if f.cell is None or f.id == cid or f.id in ignore or f.status != "active" or f.in_vehicle is not None:
            continue
        if f.side != me.side and not f.hidden:
            m |= bit[f.cell]
    for v in state.vehicles.values():
        if v.id != me.in_vehicle:
            m |= bit[v.cell]
    return m


def occupied_mask(combat: ReiCombat, cid: str, ignore: tuple[str, ...] = ()) -> int:
    """`occupied_for` as a bitset."""
    return _memoised("occupied", _occupied_bits, combat, cid, ignore)


def _occupied_bits(combat: ReiCombat, cid: str, ignore: tuple[str, ...]) -> int:
    """The cells of `occupied_for`, or-ed straight into a bitset."""
    state = rs(combat)
    me = state.fighters[cid]
    bit = bf(combat).bit
    m = 0
    for f in state.fighters.values():
        if f.cell is None or f.id == cid or f.id in ignore or f.status in ("fled", "reserve"):
            continue
        if f.status == "active" and f.hidden and f.side != me.side:
            continue
        m |= bit[f.cell]
    for v in state.vehicles.values():
        if v.id != me.in_vehicle:
            m |= bit[v.cell]
    return m


def doors_now(state: ReiState, memo: dict[Any, Any] | None = None) -> frozenset[Cell]:
    """`closed_doors`, memoised in `memo` (a legal-set computation's `Combat.scratch`) when given."""
    if memo is not None:
        hit: frozenset[Cell] | None = memo.get("doors")
        if hit is None:
            hit = memo["doors"] = closed_doors(state)
        return hit
    return closed_doors(state)


def reach_mask(combat: ReiCombat, cid: str, budget: int, lo: int = 0, climb: bool = False,
               ignore: tuple[str, ...] = (), start: Cell | None = None, vehicle: bool = False) -> int:
    """Bitset of cells whose path cost is in (lo, budget] and that `cid` may end on.

    While a legal set is built, the layered search and the cells not to end on are looked up once per mover, cost
    mode, ignore list and start: every movement verb of the mask reads its budget off the same layers.
    """
    if budget <= 0:
        return 0
    # a climbing search serves a single budget (climb_jump, REI-2.15), so it stops there
    limit = budget if climb else FULL_SEARCH
    memo = combat.scratch
    base: tuple[tuple[int, ...], int] | None
    if memo is None:
        base = _reach_base(combat, cid, climb, ignore, start, vehicle, limit)
    else:
        key = ("reach", cid, climb, ignore, start, vehicle, limit)
        base = memo.get(key)
        if base is None:
            base = memo[key] = _reach_base(combat, cid, climb, ignore, start, vehicle, limit)
    cum, keep = base
    if not keep:
        return 0
    top = len(cum) - 1
    m = cum[budget if budget < top else top]
    if lo > 0:
        m &= ~cum[lo if lo < top else top]
    return m & keep


FULL_SEARCH = 1000  # the `layers` limit of a search to every reachable cell


def _reach_base(combat: ReiCombat, cid: str, climb: bool, ignore: tuple[str, ...], start: Cell | None,
                vehicle: bool, limit: int) -> tuple[tuple[int, ...], int]:
    """(cumulative layers up to cost `limit`, cells the mover may end on) of `reach_mask` (none without a cell)."""
    state = rs(combat)
    origin = start if start is not None else state.fighters[cid].cell
    if origin is None:
        return (0,), 0
    field = bf(combat)
    mode = "walk" if vehicle else mode_of(combat, cid, climb)
    alt = static(combat).enc.options.diagonal_rule == "alternating"
    cum = field.layers(origin, blocked_mask(combat, cid, ignore), doors_now(state, combat.scratch), mode, alt, limit)
    return cum, ~(occupied_mask(combat, cid, ignore) | field.gap_mask | field.bit[origin])


def destinations(combat: ReiCombat, cid: str, budget: int, lo: int = 0, climb: bool = False,
                 ignore: tuple[str, ...] = (), start: Cell | None = None, vehicle: bool = False) -> list[Cell]:
    """Cells whose path cost is in (lo, budget], free to end on, row by row."""
    return bf(combat).cells_of(reach_mask(combat, cid, budget, lo, climb, ignore, start, vehicle))


def plan(combat: ReiCombat, cid: str, dest: Cell, climb: bool = False, ignore: tuple[str, ...] = (),
         start: Cell | None = None, vehicle: bool = False) -> tuple[list[Cell], int]:
    """Planned path and its cost (read back from the cached layered search)."""
    state = rs(combat)
    f = state.fighters[cid]
    origin = start if start is not None else f.cell
    assert origin is not None
    alt = static(combat).enc.options.diagonal_rule == "alternating"
    if alt:
        found = search_from(combat, cid, origin, climb, ignore, vehicle)
        return ReiBattlefield.path_of(found, dest), found[0][dest][0]
    field = bf(combat)
    mode = "walk" if vehicle else mode_of(combat, cid, climb)
    doors = closed_doors(state)
    cum = field.layers(origin, blocked_mask(combat, cid, ignore), doors, mode, False)
    path = field.trace(cum, origin, dest, mode, doors)
    table = field.costs[mode]
    return path, sum(table[c] or 1 for c in path[1:])


def step_cost(combat: ReiCombat, cid: str, path: list[Cell], climb: bool = False) -> list[int]:
    """Cost of entering each cell of a path after the first."""
    table = bf(combat).costs[mode_of(combat, cid, climb)]
    return [table[c] or 1 for c in path[1:]]


def walk(combat: ReiCombat, cid: str, path: list[Cell], verb: str, rule: str, keep_hidden: bool = False,
         drag: str | None = None) -> int:
    """Move `cid` along a planned path; returns cells entered.

    A hidden enemy in the way stops the walk in the previous cell and is revealed (section 5, REI-5.6);
    a dragged partner is placed in each cell the mover leaves (REI-7.6, 7.12).
    """
    state = rs(combat)
    f = state.fighters[cid]
    if not keep_hidden:
        end_hidden(combat, cid, "moved openly")  # REI-6.4
    occupants = {o.cell: o for o in state.fighters.values() if o.cell is not None and o.id != cid
                 and o.status == "active" and o.hidden and o.side != f.side}
    entered = 0
    taken = [path[0]]
    for c in path[1:]:
        o = occupants.get(c)
        if o is not None:
            end_hidden(combat, o.id, f"bumped by {cid}")
            combat.emit("movement_stopped", f"{cid} runs into hidden {o.id} and stops", actor=cid, rule="REI-5.6",
                        blocker=o.id)
            break
        prev = f.cell
        f.cell = c
        if drag is not None:
            state.fighters[drag].cell = prev
        taken.append(c)
        entered += 1
    if entered:
        f.moved = True
        cost = sum(step_cost(combat, cid, taken, verb == "climb_jump"))
        combat.emit("movement", f"{cid} {verb.replace('_', ' ')}s to {taken[-1][0]},{taken[-1][1]} ({cost} m)",
                    actor=cid, rule=rule, verb=verb, path=[list(c) for c in taken], cost=cost)
        remove_cover(combat, cid, "moved")
        reset_aim(combat, cid, "moved")
        if drag is not None:
            remove_cover(combat, drag, "dragged")
            reset_aim(combat, drag, "dragged")
        check_cover_sources(combat)
    return entered


def knockback(combat: ReiCombat, src: Cell, cid: str, dist: int, rule: str) -> None:
    """Push `cid` straight away from `src` up to `dist` cells (section 5, REI-4.14, 7.2)."""
    state = rs(combat)
    f = state.fighters[cid]
    if dist <= 0 or f.cell is None:
        return
    d = (sign(f.cell[0] - src[0]), sign(f.cell[1] - src[1]))
    if d == (0, 0):
        return
    field = bf(combat)
    doors = closed_doors(state)
    occ = {o.cell for o in state.fighters.values() if o.cell is not None and o.id != cid
           and o.status not in ("fled", "reserve")} | {v.cell for v in state.vehicles.values()}
    start = f.cell
    moved = 0
    for _ in range(dist):
        n = (f.cell[0] + d[0], f.cell[1] + d[1])
        if field.stops_knockback(n, doors) or n in occ:
            break
        f.cell = n
        moved += 1
    combat.emit("knockback", f"{cid} is knocked back {moved} m to {f.cell[0]},{f.cell[1]}", actor=cid, rule=rule,
                target=cid, distance=moved, start=list(start), end=list(f.cell))
    if moved:
        end_all_grapples(combat, cid, "knocked back")  # REI-7.6 forced movement
        remove_cover(combat, cid, "knocked back")
        reset_aim(combat, cid, "knocked back")
        end_hidden(combat, cid, "knocked back")
        check_cover_sources(combat)


def movement_locked(combat: ReiCombat, cid: str) -> bool:
    """Whether ordinary movement verbs are illegal (section 7 preconditions)."""
    f = rs(combat).fighters[cid]
    return f.aimed or f.prone or f.crouching or f.in_vehicle is not None or bool(grapples_of(rs(combat), cid))
