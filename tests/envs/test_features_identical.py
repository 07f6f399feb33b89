"""The fast feature encoder gives exactly the values of the plain, row-by-row definition.

`encode_rows` is written for speed (it runs at every env step); the learned models and the shipped
policies read its values, so a faster encoder must not move a single one. Compared byte for byte,
from both sides, on states of random play in every built-in encounter, the held-out ones and one
written here (its roster reversed and renamed).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import SYSTEMS
from tests.envs.reference_features import reference_encode_rows
from tests.envs.test_canonical import encounters
from trpg_arena.rules import Combat, load_encounter
from trpg_arena.rules.core.features import encode_rows


@pytest.mark.parametrize("rid", SYSTEMS)
def test_encode_rows_equals_the_reference_on_random_states(rid: str) -> None:
    states = 0
    for enc in encounters(rid):
        encounter = load_encounter(enc)
        for seed in range(2):
            combat = Combat(encounter, seed=seed, record=False)
            rng = np.random.default_rng(seed)
            while True:
                for side in combat.sides:
                    fast, ref = encode_rows(combat, side), reference_encode_rows(combat, side)
                    assert fast.vector.dtype == ref.vector.dtype == np.float32
                    assert fast.vector.tobytes() == ref.vector.tobytes(), (enc, seed, combat.decision_count, side)
                    assert fast.rows == ref.rows and fast.actor_node == ref.actor_node
                    states += 1
                if combat.over or combat.decision_count >= 60:
                    break
                legal = combat.legal_view()
                combat.act(legal[int(rng.integers(len(legal)))])
    assert states > 200
