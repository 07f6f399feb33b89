"""Masks do not recompute paths that have not changed (section 5, the issue's speed requirement).

A layered path search is keyed by its inputs (start cell, the cells blocked to the mover, closed doors,
cost mode): asking for the legal set again, building the env's mask, or acting without moving anybody
or changing those inputs must not run a new search.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import trpg_arena.envs  # noqa: F401 - registers the envs
from trpg_arena.rules import Combat
from trpg_arena.rules.core.grid import Grid
from trpg_arena.rules.reincarnator.movement import blocked_mask, closed_doors
from trpg_arena.rules.reincarnator.system import ReincarnatorSystem

ENV_ID = f"trpg_arena/Reincarnator-v{ReincarnatorSystem.info.env_version}"  # the current version of the env

# verbs that move nobody and leave blockers and doors as they are
STILL = {"drop_item", "draw", "sheathe", "reload", "cycle_bolt", "retrieve", "retrieve_stowed", "consume"}


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, ...]]:
    """Every fresh layered search of the kernel grid (a `Grid._layers` run), by its start cell."""
    seen: list[tuple[object, ...]] = []
    layers = Grid._layers

    def counted(self: Grid, start: tuple[int, int], *args: object) -> list[int]:
        seen.append((start, *args))
        return layers(self, start, *args)  # type: ignore[arg-type]  # the arguments are passed through as they came

    monkeypatch.setattr(Grid, "_layers", counted)
    return seen


def test_mask_and_repeated_legal_sets_run_no_new_search(searches: list[tuple[object, ...]]) -> None:
    """`legal_actions` twice, then the env's mask and `action_masks()`: one search at most, all from the first."""
    env = gymnasium.make(ENV_ID, encounter="reincarnator/skirmish", opponent="random")
    rng = np.random.default_rng(1)
    _, info = env.reset(seed=1)
    checked = 0
    for _ in range(120):
        legal = np.flatnonzero(info["action_mask"])
        _, _, done, _, info = env.step(int(legal[rng.integers(len(legal))]))
        if done:
            break
        c = env.unwrapped.combat  # type: ignore[attr-defined]
        before = len(searches)
        c.legal_actions()
        c.legal_actions()
        env.unwrapped.action_masks()  # type: ignore[attr-defined]
        assert len(searches) == before
        checked += 1
    assert checked > 20


def test_acting_without_moving_reuses_the_movers_search(searches: list[tuple[object, ...]]) -> None:
    """After a verb that moves nobody, the actor's next movement verbs read the search already made."""
    found = 0
    for seed in range(40):
        c = Combat("reincarnator/skirmish", seed=seed, record=False)
        rng = np.random.default_rng(seed)
        while not c.over and found < 6:
            legal = c.legal_actions()
            d = c.decision
            assert d is not None
            still = [a for a in legal if a.verb in STILL]
            if d.step == "turn" and still and any(a.verb == "move" for a in legal):
                state = c.state
                me = state.fighters[d.actor]
                key = (me.cell, blocked_mask(c, d.actor), closed_doors(c))
                before = len(searches)
                c.act(still[0])
                if c.decision is not None and c.decision.actor == d.actor:
                    assert (me.cell, blocked_mask(c, d.actor), closed_doors(c)) == key
                    assert any(a.verb == "move" for a in c.legal_actions())
                    assert len(searches) == before, f"{still[0].describe()} made a new path search"
                    found += 1
                continue
            c.act(legal[int(rng.integers(len(legal)))])
        if found >= 6:
            break
    assert found >= 6
