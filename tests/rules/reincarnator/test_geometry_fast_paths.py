"""The battlefield's fast paths agree with the plain definitions they replace (section 5)."""

from __future__ import annotations

import pytest

from tests.rules.reincarnator.helpers import H, encounter
from trpg_arena.rules import Combat
from trpg_arena.rules.core.battlefield import bresenham
from trpg_arena.rules.reincarnator.geometry import ReiBattlefield, build_battlefield


def _plain_los(field: ReiBattlefield, a: tuple[int, int], b: tuple[int, int], doors: frozenset) -> bool:
    return not any(c in field.blocks_los or c in doors for c in bresenham(a, b)[1:-1])


@pytest.mark.parametrize("name", ["duel", "skirmish", "brawl"])
def test_line_of_sight_patterns_match_bresenham(name: str) -> None:
    """`los` (per-offset line bitsets) equals the cell-by-cell Bresenham test, with doors open and closed."""
    field = Combat(f"reincarnator/{name}", seed=0).battlefield
    assert isinstance(field, ReiBattlefield)
    door_sets = [frozenset(), frozenset(field.doors0), frozenset([(1, 1), (field.width - 2, field.height - 2)])]
    for doors in door_sets:
        for a in field.cells:
            for b in field.cells:
                assert field.los(a, b, doors) == _plain_los(field, a, b, doors), (a, b, doors)


def test_line_of_sight_patterns_on_a_walled_map() -> None:
    """Walls, sight-blocking objects and a closed door on a non-square map."""
    cells = [{"at": [x, 3], "terrain": "wall"} for x in range(2, 9)] + [
        {"at": [4, 6], "object": {"name": "pillar", "cover": 4, "blocks_los": True}},
        {"at": [9, 3], "door": "closed"}, {"at": [6, 8], "object": {"name": "crate", "cover": 3}}]
    enc = Combat(encounter(H("A", "P", (0, 0)), H("D", "N", (10, 8)), width=13, height=9, cells=cells), seed=0)
    field = build_battlefield(enc.encounter)  # type: ignore[arg-type]
    for doors in (frozenset(), frozenset(field.doors0)):
        for a in field.cells:
            for b in field.cells:
                assert field.los(a, b, doors) == _plain_los(field, a, b, doors), (a, b, doors)


def _walled() -> ReiBattlefield:
    cells = [{"at": [x, 3], "terrain": "wall"} for x in range(2, 9)] + [
        {"at": [4, 6], "object": {"name": "pillar", "cover": 4, "blocks_los": True}},
        {"at": [9, 3], "door": "closed"}, {"at": [6, 8], "object": {"name": "crate", "cover": 3}},
        {"area": [[9, 5], [11, 7]], "terrain": "difficult"}, {"at": [0, 8], "terrain": "climbable"},
        {"at": [1, 8], "terrain": "gap"}]
    enc = Combat(encounter(H("A", "P", (0, 0)), H("D", "N", (10, 8)), width=13, height=9, cells=cells), seed=0)
    return build_battlefield(enc.encounter)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["skirmish", "brawl", "walled"])
def test_layered_search_matches_dijkstra(name: str) -> None:
    """`layers` (bitset waves, with the open-ground shortcut) gives the costs of the cell-by-cell search."""
    if name == "walled":
        field = _walled()
    else:
        field = Combat(f"reincarnator/{name}", seed=0).battlefield  # type: ignore[assignment]
    free = [c for c in field.cells if c not in field.solid]
    blocked_sets = [frozenset(), frozenset(free[5::17]), frozenset(free[3::7])]
    for doors in (frozenset(), frozenset(field.doors0)):
        for mode in ("walk", "climb", "walk_i", "climb_i"):
            for blocked in blocked_sets:
                for start in free[::3]:
                    if start in blocked or start in doors:
                        continue
                    dist, _ = field.search(start, blocked, doors, mode)
                    want = [0] * (max(v[0] for v in dist.values()) + 1)
                    for c, v in dist.items():
                        want[v[0]] |= field.bit[c]
                    for k in range(1, len(want)):
                        want[k] |= want[k - 1]
                    for limit in (1000, 4, 12):
                        field.layer_cache.clear()
                        cum = field.layers(start, field.mask(blocked), doors, mode, limit=limit)
                        short = want[:limit + 1]
                        while len(short) > 1 and short[-1] == short[-2]:
                            short.pop()
                        assert list(cum) == short, (start, mode, blocked, doors, limit)


def test_bit_indices_row_by_row() -> None:
    """`bit_indices` lists the set bits lowest first, sparse or dense."""
    import random

    field = Combat("reincarnator/brawl", seed=0).battlefield
    assert isinstance(field, ReiBattlefield)
    rng = random.Random(7)
    for density in (0.02, 0.3, 0.7, 1.0):
        for _ in range(200):
            m = sum(1 << i for i in range(field.n_bits) if rng.random() < density)
            assert field.bit_indices(m) == [i for i in range(field.n_bits) if m >> i & 1]


@pytest.mark.parametrize("name", ["skirmish", "brawl"])
def test_observe_combatants_rows_equal_single_rows(name: str) -> None:
    """The batched `observe_combatants` gives `observe_combatant`'s rows at every decision of a random game."""
    from trpg_arena.agents import make_agent

    c = Combat(f"reincarnator/{name}", seed=3)
    agent = make_agent("random", "reincarnator", seed=3)
    ids = [v.id for v in c.combatants]
    for _ in range(400):
        if c.over:
            break
        assert c.system.observe_combatants(c, ids) == [c.system.observe_combatant(c, i) for i in ids]
        c.act(agent.act(c))


def test_dest_actions_row_by_row() -> None:
    """`dest_actions` gives ``Action(verb, dest=cell)`` for the mask's cells in row order, sparse or dense."""
    import random

    from trpg_arena.rules.core.values import Action

    field = Combat("reincarnator/skirmish", seed=0).battlefield
    assert isinstance(field, ReiBattlefield)
    rng = random.Random(11)
    for density in (0.02, 0.3, 0.8, 1.0):
        for _ in range(100):
            m = field.mask(c for c in field.cells if rng.random() < density)
            for verb in ("move", "acro_move"):
                got = field.dest_actions(verb, m)
                assert list(got) == [Action(verb, dest=c) for c in field.cells_of(m)]
                assert field.dest_actions(verb, m) is got
