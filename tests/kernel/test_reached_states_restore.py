"""Every state that play reaches restores: the snapshot checks refuse contradictions, never a real state.

A session is resumed by restoring its checkpoints, so a check stricter than the rules (a value the rules
allow, refused as out of range) makes a real session impossible to resume: its decisions would be lost.
Random and scripted play over every built-in encounter visit the states the checks must accept.
"""

from __future__ import annotations

import random

import pytest

from tests.conftest import ENCOUNTERS
from trpg_arena.agents.spec import make_agent
from trpg_arena.rules import Combat

GAMES = 1  # per encounter and line-up (every decision of each game is restored)
MAX_DECISIONS = 400


@pytest.mark.parametrize("encounter", ENCOUNTERS)
def test_every_state_reached_in_play_restores(encounter: str) -> None:
    rid = encounter.split("/")[0]
    for game in range(GAMES):
        for lineup in ("random", "scripted"):
            c = Combat(encounter, seed=1000 + game)
            agent = make_agent(lineup, rid, seed=game) if lineup == "scripted" else None
            rng = random.Random(game)
            for n in range(MAX_DECISIONS):
                if c.over:
                    break
                restored = Combat.restore(c.snapshot())  # raises SnapshotError on a refused state
                assert restored.legal_actions() == c.legal_actions(), f"{encounter} {lineup} decision {n}"
                legal = c.legal_actions()
                c.act(agent.act(c) if agent is not None else legal[rng.randrange(len(legal))])
