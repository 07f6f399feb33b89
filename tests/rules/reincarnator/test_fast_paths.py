"""Reincarnator's shortcuts against their plain definitions, in every state met in six games.

Item names come from a table per combatant (an option's item ids from a plan per option), a legal set's item and
body questions from one pass each, the costs its slots pay from one table per slots left, a walk's distances from rings
of the enemies' discs and its squares' lines of sight from masks kept per enemy; each must answer exactly as the walk
it replaces. A turn's legal set that takes the pieces the mover's last action left true equals one worked out anew, and
a charge's end cells kept by their pattern around the target name the offsets worked out cell by cell.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.rules.reincarnator.helpers import own_turn_states
from trpg_arena.agents import make_agent
from trpg_arena.rules import Combat
from trpg_arena.rules.reincarnator import masks, movement
from trpg_arena.rules.reincarnator.actions import item_ids, opts, uid
from trpg_arena.rules.reincarnator.legal import PIECES_KEPT
from trpg_arena.rules.reincarnator.state import Cell
from trpg_arena.rules.reincarnator.tactics import ReincarnatorTactics
from trpg_arena.rules.reincarnator.turns import pay_plan


def _walked_uid(c: Combat, cid: str, name: Any) -> Any:
    """`uid` as a walk over the state's items: the holder's own first, then what lies on the ground."""
    st, items = c.tables, c.state.items
    if not isinstance(name, str) or name in st.natural[cid]:
        return name
    for k, it in items.items():
        if it.holder == cid and st.name(k, cid) == name:
            return k
    for k, it in items.items():
        if it.loc == "ground" and st.name(k, cid) == name:
            return k
    return name


def _walked_masks(c: Combat, cid: str, ignore: tuple[str, ...]) -> tuple[int, int]:
    """The cells `cid` may not pass and may not end on, body by body as section 5 words them."""
    state = c.state
    me = state.fighters[cid]
    bit = c.tables.board.bit
    blocked = occupied = 0
    for f in state.fighters.values():
        if f.cell is None or f.id == cid or f.id in ignore or f.status in ("fled", "reserve"):
            continue
        enemy = f.status == "active" and f.side != me.side
        if enemy and not f.hidden and f.in_vehicle is None:
            blocked |= bit[f.cell]  # an active enemy on foot blocks its cell
        if not (enemy and f.hidden):
            occupied |= bit[f.cell]  # a hidden enemy is planned as absent
    for v in state.vehicles.values():
        if v.id != me.in_vehicle:
            blocked |= bit[v.cell]
            occupied |= bit[v.cell]
    return blocked, occupied


def _walked_toward(dests: list[Cell], enemies: list[Cell], keep: int) -> list[int]:
    """The indices `toward` draws from: least (|distance - keep|, distance) to the nearest enemy."""
    dist = [min(max(abs(x - ex), abs(y - ey)) for ex, ey in enemies) for x, y in dests]
    best = min((abs(d - keep), d) for d in dist)
    return [i for i, d in enumerate(dist) if (abs(d - keep), d) == best]


def _walked_sight(c: Combat, cid: str, moves: list[Any], enemies: list[Any]) -> list[tuple[Any, Any]] | None:
    """The (walk, enemy) pairs `sight_move` draws from, each walk's line to each enemy drawn on its own."""
    reach = ReincarnatorTactics.shot_range(c, cid)
    field = c.tables.board
    doors = movement.closed_doors(c)
    best: tuple[tuple[bool, int], list[tuple[Any, Any]]] | None = None
    for a in moves:
        dist = {f.id: max(abs(a.dest[0] - f.cell[0]), abs(a.dest[1] - f.cell[1])) for f in enemies}
        seen = [f for f in enemies if dist[f.id] <= reach and field.los(a.dest, f.cell, doors)]
        if not seen:
            continue
        target = min(seen, key=lambda f: dist[f.id])
        near = min(dist.values())
        key = (near >= 2, -abs(near - 6))
        if best is None or key > best[0]:
            best = (key, [(a, target)])
        elif key == best[0]:
            best[1].append((a, target))
    return None if best is None else best[1]


def test_shortcuts_answer_as_the_plain_walks() -> None:  # noqa: C901 - one walk per shortcut
    names = bodies = walks = options = sights = 0
    policy = ReincarnatorTactics("reincarnator", np.random.default_rng(0))
    for c, d in own_turn_states():
        state, st = c.state, c.tables
        for cid in state.fighters:
            asked = {st.name(k, cid) for k in st.items} | {"no such item"}
            for name in asked:
                assert uid(c, cid, name) == _walked_uid(c, cid, name), (cid, name)
                assert item_ids(c, cid, name) == (_walked_uid(c, cid, name),), (cid, name)
                names += 1
            for a in c.legal_actions():  # every option of the legal set, asked by every fighter
                assert item_ids(c, cid, a.option) == tuple(_walked_uid(c, cid, x) for x in opts(a)), (cid, a)
                options += 1
            f = state.fighters[cid]
            pays = masks.payable(c, f)
            for name, (parts, exact) in zip(masks.Payable._fields, masks._COSTS):
                assert getattr(pays, name) == (pay_plan(c, f.slots, parts, exact) is not None), (cid, name)
            c.scratch = {}  # as while a legal set is worked out: the one-pass answers
            try:
                assert masks.payable(c, f) == pays
                for loc in ("held", "reachable", "stowed"):
                    assert masks.carried(state, cid, loc, c.scratch) == masks.carried(state, cid, loc), (cid, loc)
                assert masks.held(state, cid, c.scratch) == masks.held(state, cid)
                ground = [(k, it.cell) for k, it in state.items.items() if it.loc == "ground" and it.cell is not None]
                assert masks.gear(state, cid, c.scratch)[1] == ground
                if state.fighters[cid].cell is not None:
                    for ignore in ((), tuple(state.fighters)[:1]):
                        want = _walked_masks(c, cid, ignore)
                        assert (movement.blocked_mask(c, cid, ignore), movement.occupied_mask(c, cid, ignore)) == want
                        bodies += 1
            finally:
                c.scratch = None
            if state.fighters[cid].cell is not None:  # and with no legal set under way (nothing memoised)
                assert (movement.blocked_mask(c, cid), movement.occupied_mask(c, cid)) == _walked_masks(c, cid, ())
        me = state.fighters[d.actor]
        enemies = [f for f in state.fighters.values() if f.side != me.side and f.status == "active"
                   and f.cell is not None]
        moves = [a for a in c.legal_actions() if a.verb == "move"]
        if moves and enemies:
            for keep in (1, 3, 6):
                chosen = policy.toward(c, moves, enemies, keep)
                top = _walked_toward([a.dest for a in moves], [f.cell for f in enemies if f.cell], keep)
                assert moves.index(chosen) in top
                walks += 1
            walked = _walked_sight(c, d.actor, moves, enemies)
            found = policy.sight_move(c, d.actor, moves, enemies)
            assert found == walked if walked is None else found in walked
            sights += walked is not None
    assert names > 5000 and bodies > 500 and walks > 100 and options > 5000 and sights > 20


def test_pieces_kept_within_a_turn_give_the_plain_legal_set() -> None:
    """A legal set that takes the pieces the mover's last action left true (`legal.PIECES_KEPT`: reach searches,
    bodies, doors, targets, gear) equals the one worked out from nothing, on a copy of the same state."""
    kept: dict[str, int] = {}
    for name, seeds in (("reincarnator/skirmish", range(12)), ("reincarnator/brawl", range(6)),
                        ("reincarnator/duel", range(12))):
        for seed in seeds:
            c = Combat(name, seed=seed)
            agents = {s: make_agent("scripted" if (seed + i) % 3 else "random", "reincarnator", seed=seed + i)
                      for i, s in enumerate(c.sides)}
            while not c.over:
                d = c.decision
                assert d is not None
                a = agents[c.side_of(d.actor)].act(c)
                c.act(a)
                if c.over or c.decision != d or d.step != "turn" or a.verb not in PIECES_KEPT:
                    continue
                plain = c.clone()  # no pieces handed on: the clone's `ahead` is empty
                plain._legal = None
                assert c.legal_actions() == plain.legal_actions(), (name, seed, d.actor, a)
                kept[a.verb] = kept.get(a.verb, 0) + 1
    assert sum(kept.values()) > 150 and len(kept) >= 10, kept


def test_charge_ends_by_pattern_are_the_offsets_of_the_cells() -> None:
    """`Board.charge_ends` (kept by the end cells' pattern around the target) names the same actions as
    `offset_actions` worked out cell by cell, for random targets, reaches and end cells, corners and edges included."""
    rng = np.random.default_rng(5)
    for name in ("reincarnator/skirmish", "reincarnator/brawl", "reincarnator/duel"):
        field = Combat(name, seed=0).tables.board
        grid = field.grid
        for _ in range(400):
            tc = grid.cells[int(rng.integers(len(grid.cells)))]
            reach = int(rng.integers(1, 4))
            near = grid.cells_of(grid.disc(tc, reach))
            m = grid.mask(c for c in near if rng.random() < 0.5)
            verb, target, option = ("charge", "acro_charge")[int(rng.integers(2))], "T", ("sword", "spear")[reach % 2]
            got = field.charge_ends(verb, target, option, tc, reach, m)
            assert got == field.offset_actions(verb, target, option, tc, m), (name, tc, reach)
            assert field.charge_ends(verb, target, option, tc, reach, m) is got  # kept
        wide = grid.stride  # a reach wider than a row of the pattern: worked out cell by cell
        assert field.charge_ends("charge", "T", "x", grid.cells[0], wide, grid.all_bits) == field.offset_actions(
            "charge", "T", "x", grid.cells[0], grid.all_bits)
