"""The codec's fast paths (identity lookups, batched combatant features) agree with the plain definitions."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import SYSTEMS
from trpg_arena.agents import make_agent
from trpg_arena.agents.codec import Codec
from trpg_arena.rules import Action, Combat


def _codec(combat: Combat) -> Codec:
    bf = combat.battlefield
    return Codec.of(combat.system, combat.encounter, bf.width or len(bf.graph), bf.height or 1)


def _decisions(rid: str, games: int = 3) -> list[Combat]:
    """Clones of the combat at every decision of a few random skirmishes."""
    out = []
    for seed in range(games):
        c = Combat(f"{rid}/skirmish", seed=seed)
        agents = [make_agent("random", rid, seed=seed + i) for i in range(len(c.sides))]
        by_side = dict(zip(c.sides, agents))
        side = {v.id: v.side for v in c.combatants}
        while not c.over and len(out) < 400 * (seed + 1):
            out.append(c.clone())
            actor = c.decision.actor  # type: ignore[union-attr]
            if actor not in side:
                side = {v.id: v.side for v in c.combatants}
            c.act(by_side[side[actor]].act(c))
    return out


@pytest.mark.parametrize("rid", SYSTEMS)
def test_mask_is_exactly_the_encoded_legal_set(rid: str) -> None:
    for c in _decisions(rid):
        codec = _codec(c)
        expected = np.zeros(codec.n_actions, dtype=np.int8)
        expected[[codec.index[a] for a in c.legal_actions()]] = 1
        assert (codec.mask(c) == expected).all()
        # equal actions that are other objects than the ones the table learned give the same indices
        copies = [Action(*a) for a in c.legal_actions()]
        assert list(codec.indices(copies)) == [codec.index[a] for a in copies]


def test_identity_table_stops_learning_fresh_objects() -> None:
    c = Combat("moonlit/skirmish", seed=0)
    codec = _codec(c)
    legal = c.legal_actions()
    for _ in range((2 * codec.n_actions + 1000) // len(legal) + 2):
        fresh = [Action(*a) for a in legal]  # new objects every time, as a rule system without tables makes
        assert list(codec.indices(fresh)) == [codec.index[a] for a in legal]
    assert not codec._learning and not codec._kept
    assert set(codec._by_id.values()) == set(range(codec.n_actions))


@pytest.mark.parametrize("rid", SYSTEMS)
def test_batched_combatant_features_equal_the_single_ones(rid: str) -> None:
    for c in _decisions(rid, games=2)[::7]:
        ids = [v.id for v in c.combatants]
        rows = c.system.observe_combatants(c, ids)
        assert [list(r) for r in rows] == [list(c.system.observe_combatant(c, cid)) for cid in ids]
        assert all(len(r) == c.system.combatant_features for r in rows)
