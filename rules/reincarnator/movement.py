"""Movement rules (REI-2.15, 2.16, 6.4, 6.7, section 5): blockers, reach, paths, walking, knockback, drags.

The search itself is the kernel grid's; `Board.moves` holds the cost modes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.reincarnator.board import Board
from trpg_arena.rules.reincarnator.conditions import (
    check_cover_sources,
    end_all_grapples,
    end_hidden,
    remove_cover,
    reset_aim,
)
from trpg_arena.rules.reincarnator.state import Cell
from trpg_arena.rules.reincarnator.verbs import Verb

if TYPE_CHECKING:
    from trpg_arena.rules.reincarnator.state import ReiCombat


def board(combat: ReiCombat) -> Board:
    """The encounter's board (terrain, cost modes, sight) on the kernel grid, compiled once per encounter."""
    return combat.tables.board


def closed_doors(combat: ReiCombat) -> int:
    """The cells of closed doors now, as a mask (cached by the door states)."""
    state = combat.state
    return combat.tables.board.closed(state.doors) if state.doors else 0


def sign(v: int) -> int:
    """-1, 0 or 1."""
    return (v > 0) - (v < 0)


def mode_of(combat: ReiCombat, cid: str, climb: bool = False) -> str:
    """Cost mode for this mover (REI-6.7 ignore_difficult_terrain, REI-2.15 climb_jump): a key of `Board.moves`."""
    memo = combat.tables.memo
    key = ("mode", cid, climb)
    hit = memo.get(key)
    if hit is None:
        ign = combat.tables.specs[cid].has("ignore_difficult_terrain")
        hit = memo[key] = ("climb" if climb else "walk") + ("_i" if ign else "")
    return hit


def blocked_mask(combat: ReiCombat, cid: str, ignore: tuple[str, ...] = ()) -> int:
    """Cells `cid` may not pass: non-hidden active enemies and vehicles other than its own (section 5), as a mask."""
    return _bodies(combat, cid, ignore)[0]


def occupied_mask(combat: ReiCombat, cid: str, ignore: tuple[str, ...] = ()) -> int:
    """The cells `cid` may not end on (every other body and vehicle, except hidden enemies), as a mask."""
    return _bodies(combat, cid, ignore)[1]


def _bodies(combat: ReiCombat, cid: str, ignore: tuple[str, ...]) -> tuple[int, int]:
    """(`blocked_mask`, `occupied_mask`) in one pass over the fighters, memoised in `Combat.scratch` when set.

    A legal set asks for both for every mover and ignore list (a reach search and where it may end).
    """
    memo = combat.scratch
    key = ("bodies", cid, ignore)
    hit: tuple[int, int] | None = None if memo is None else memo.get(key)
    if hit is None:
        state = combat.state
        me = state.fighters[cid]
        side = me.side
        bit = combat.tables.board.bit
        blocked = occupied = 0
        for f in state.fighters.values():
            c = f.cell
            if c is None or f.id == cid or f.id in ignore:
                continue
            status = f.status
            if status == "active":
                if f.side != side:
                    if f.hidden:
                        continue  # neither blocks nor takes the cell: planned as absent
                    if f.in_vehicle is None:
                        blocked |= bit[c]
                occupied |= bit[c]
            elif status != "fled" and status != "reserve":
                occupied |= bit[c]
        for v in state.vehicles.values():
            if v.id != me.in_vehicle:
                b = bit[v.cell]
                blocked |= b
                occupied |= b
        hit = (blocked, occupied)
        if memo is not None:
            memo[key] = hit
    return hit


def doors_now(combat: ReiCombat) -> int:
    """`closed_doors`, memoised in `Combat.scratch` while a legal set is being computed."""
    memo = combat.scratch
    if memo is not None:
        hit: int | None = memo.get("doors")
        if hit is None:
            hit = memo["doors"] = closed_doors(combat)
        return hit
    return closed_doors(combat)


def reach_mask(combat: ReiCombat, cid: str, budget: int, lo: int = 0, climb: bool = False,
               ignore: tuple[str, ...] = (), start: Cell | None = None, vehicle: bool = False) -> int:
    """Bitset of cells whose path cost is in (lo, budget] and that `cid` may end on.

    While a legal set is built, the layered search and the cells not to end on are looked up once per mover, cost
    mode, ignore list and start: every movement verb of the mask reads its budget off the same layers.
    """
    if budget <= 0:
        return 0
    # a climbing search serves a single budget (climb_jump, REI-2.15), so it stops there
    limit = budget if climb else None
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


def _reach_base(combat: ReiCombat, cid: str, climb: bool, ignore: tuple[str, ...], start: Cell | None,
                vehicle: bool, limit: int | None) -> tuple[tuple[int, ...], int]:
    """(cumulative layers up to cost `limit`, cells the mover may end on) of `reach_mask` (none without a cell)."""
    state = combat.state
    origin = start if start is not None else state.fighters[cid].cell
    if origin is None:
        return (0,), 0
    field = combat.tables.board
    doors = doors_now(combat)
    moves = field.moves["walk" if vehicle else mode_of(combat, cid, climb)]
    found = field.grid.reach(origin, limit, blocked_mask(combat, cid, ignore) | doors, moves, doors)
    return found.within, ~(occupied_mask(combat, cid, ignore) | field.gap_mask | field.bit[origin])


def plan(combat: ReiCombat, cid: str, dest: Cell, climb: bool = False, ignore: tuple[str, ...] = (),
         start: Cell | None = None, vehicle: bool = False) -> tuple[list[Cell], int]:
    """Planned path and its cost (section 5: read back from the grid's search, neighbours in `DIRS` order)."""
    origin = start if start is not None else combat.state.fighters[cid].cell
    assert origin is not None
    field = board(combat)
    doors = closed_doors(combat)
    moves = field.moves["walk" if vehicle else mode_of(combat, cid, climb)]
    found = field.grid.path(origin, dest, None, blocked_mask(combat, cid, ignore) | doors, moves, doors)
    assert found is not None, f"no path from {origin} to {dest}"
    return found


def step_cost(combat: ReiCombat, cid: str, path: list[Cell], climb: bool = False) -> list[int]:
    """Cost of entering each cell of a path after the first."""
    field = board(combat)
    cost, index = field.moves[mode_of(combat, cid, climb)].cost, field.grid.index
    return [cost[index[c]] or 1 for c in path[1:]]


def path_cost(combat: ReiCombat, path: list[Cell], mode: str) -> int:
    """Metres a path costs in a cost mode of `Board.moves` (section 5, with the `alternating` diagonal rule)."""
    moves = board(combat).moves[mode]
    index = board(combat).grid.index
    total = diagonals = 0
    for a, b in zip(path, path[1:]):
        total += moves.cost[index[b]] or 1
        if a[0] != b[0] and a[1] != b[1]:
            diagonals += 1
            if moves.alternating and diagonals % 2 == 0:
                total += 1  # every second diagonal of one movement costs 1 more
    return total


def stop_short(combat: ReiCombat, cid: str, path: list[Cell],
               drag: str | None = None) -> tuple[list[Cell], str | None]:
    """The part of a path `cid` really moves along, and the hidden enemy that stops it (or None).

    Paths are planned with hidden enemies as absent: entering one's cell stops the mover in the previous cell
    (section 5, REI-5.6). One cell holds one body, so where the mover would stop on a cell it may only pass (an
    ally's, a body's, a gap), or a partner it drags would land on one (the cell before the mover's, REI-7.6, 7.12),
    the mover falls back to the last cell of the path where both fit (its start at worst).
    """
    state = combat.state
    side = state.fighters[cid].side
    hidden = {o.cell: o.id for o in state.fighters.values() if o.cell is not None and o.id != cid
              and o.status == "active" and o.hidden and o.side != side}
    stop = next((i for i, c in enumerate(path) if i and c in hidden), None) if hidden else None
    if stop is None and drag is None:
        return path, None  # a legal destination is a cell the mover may end on
    blocker, taken = (None, path[:]) if stop is None else (hidden[path[stop]], path[:stop])
    field = combat.tables.board
    no_end = occupied_mask(combat, cid, () if drag is None else (drag,)) | field.gap_mask
    bit = field.bit
    while len(taken) > 1 and (no_end & bit[taken[-1]] or (drag is not None and no_end & bit[taken[-2]])):
        taken.pop()
    return taken, blocker


def bump(combat: ReiCombat, cid: str, blocker: str) -> None:
    """The hidden enemy `cid` ran into loses `hidden`, and the mover stops (section 5, REI-5.6)."""
    end_hidden(combat, blocker, f"bumped by {cid}")
    combat.emit("movement_stopped", f"{cid} runs into hidden {blocker} and stops", actor=cid, rule="REI-5.6",
                blocker=blocker)


def walk(combat: ReiCombat, cid: str, path: list[Cell], verb: str, rule: str, keep_hidden: bool = False,
         drag: str | None = None) -> int:
    """Move `cid` along a planned path; returns cells entered.

    A hidden enemy in the way stops the walk short (`stop_short`) and is revealed;
    a dragged partner is placed in each cell the mover leaves (REI-7.6, 7.12).
    """
    state = combat.state
    f = state.fighters[cid]
    if not keep_hidden:
        end_hidden(combat, cid, "moved openly")  # REI-6.4
    taken, blocker = stop_short(combat, cid, path, drag)
    if blocker is not None:
        bump(combat, cid, blocker)
    for c in taken[1:]:
        prev = f.cell
        f.cell = c
        if drag is not None:
            state.fighters[drag].cell = prev
    entered = len(taken) - 1
    if entered:
        f.moved = True
        cost = sum(step_cost(combat, cid, taken, verb == Verb.CLIMB_JUMP))
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
    state = combat.state
    f = state.fighters[cid]
    if dist <= 0 or f.cell is None:
        return
    d = (sign(f.cell[0] - src[0]), sign(f.cell[1] - src[1]))
    if d == (0, 0):
        return
    field = board(combat)
    doors = closed_doors(combat)
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
        reset_aim(combat, cid, "knocked back")  # hidden stays: only voluntary movement ends it (REI-6.4, 6.6)
        check_cover_sources(combat)
