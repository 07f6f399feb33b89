"""Smoke tests: the built-in encounters load and play (INV-1.2 / INV-12.2)."""

from __future__ import annotations

import pytest

from trpg_arena.agents import RandomAgent
from trpg_arena.rules import Combat


@pytest.mark.parametrize("name", ["investigator/duel", "investigator/skirmish", "investigator/brawl"])
def test_builtin_encounters_play_to_the_end(name: str) -> None:
    c = Combat(name, seed=3)
    agent = RandomAgent(seed=3)
    while not c.over:
        c.act(agent.act(c))
    assert c.result is not None
