"""pytest-benchmark measurements (run with ``pytest tests/benchmarks --benchmark-enable``).

In the normal test run benchmarks are disabled and each body runs once as a smoke test; speed is
never asserted here. ``trpg-arena bench`` gives the same numbers as a table and JSON.
"""

from __future__ import annotations

import pytest

from tests.conftest import SKIRMISHES
from trpg_arena.agents import RandomAgent
from trpg_arena.rules import Combat
from trpg_arena.rules.core.features import encode
from trpg_arena.table.session import play


@pytest.mark.parametrize("name", SKIRMISHES)
def test_random_game_engine(benchmark, name: str) -> None:
    def game() -> int:
        c = Combat(name, seed=1)
        play(c, [RandomAgent(seed=1), RandomAgent(seed=2)] + [RandomAgent(seed=3)] * (len(c.sides) - 2))
        return len(c.log)

    assert benchmark(game) > 0


@pytest.mark.parametrize("name", SKIRMISHES)
def test_legal_actions_and_clone(benchmark, name: str) -> None:
    c = Combat(name, seed=2)

    def step() -> int:
        k = c.clone()
        return len(k.system.legal_actions(k))

    assert benchmark(step) > 0


@pytest.mark.parametrize("name", SKIRMISHES)
def test_encoding_a_position(benchmark, name: str) -> None:
    """The learned agents encode every position they score (well under a millisecond a skirmish position)."""
    c = Combat(name, seed=5)
    c.act(RandomAgent(seed=5).act(c))
    assert c.decision is not None
    side = c.decision.side
    assert benchmark(lambda: encode(c, side)).size > 0
