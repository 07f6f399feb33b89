"""State copies (the kernel's clone and rollback base) equal the state and share nothing that can change."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from tests.conftest import SKIRMISHES
from trpg_arena.rules import Combat
from trpg_arena.rules.core.copier import state_copier

VALUES = (int, float, str, bool, bytes, type(None), tuple, frozenset)


def mutable_ids(obj: Any, out: set[int]) -> set[int]:
    """The ids of every list, dict, set and non-frozen dataclass reachable from `obj`."""
    if isinstance(obj, VALUES):
        return out
    if dataclasses.is_dataclass(obj) and obj.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        return out
    out.add(id(obj))
    if isinstance(obj, dict):
        for v in obj.values():
            mutable_ids(v, out)
    elif isinstance(obj, (list, set)):
        for v in obj:
            mutable_ids(v, out)
    elif dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            mutable_ids(getattr(obj, f.name), out)
    return out


@pytest.mark.parametrize("name", SKIRMISHES)
def test_state_copies_equal_and_share_nothing_mutable(name: str) -> None:
    c = Combat(name, seed=2)
    copy = state_copier(type(c.state))
    rng = np.random.default_rng(2)
    while not c.over:
        twin = copy(c.state)
        assert twin == c.state and type(twin) is type(c.state)
        assert c.system.dump_state(twin) == c.system.dump_state(c.state)
        assert not mutable_ids(twin, set()) & mutable_ids(c.state, set())
        legal = c.legal_actions()
        c.act(legal[int(rng.integers(len(legal)))])


def test_a_type_the_copier_cannot_read_is_deep_copied() -> None:
    @dataclasses.dataclass
    class Odd:
        anything: Any = None
        either: list[int] | dict[str, int] = dataclasses.field(default_factory=list)

    odd = Odd({"a": [1]}, {"b": 2})
    twin = state_copier(Odd)(odd)
    assert twin == odd and twin.anything is not odd.anything and twin.either is not odd.either
