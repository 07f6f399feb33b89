"""Combats in several threads of one process (a server) play exactly as they do one after the other."""

from __future__ import annotations

import sys
import threading
import uuid

import numpy as np
import pytest

from tests.conftest import SKIRMISHES
from trpg_arena.rules import Combat, load_encounter


def play(encounter: dict, seed: int, start: threading.Barrier | None = None) -> list[str]:
    """One masked random game from a fresh load of `encounter`; its log as JSON lines."""
    if start is not None:
        start.wait()
    c = Combat(load_encounter(encounter), seed=seed)
    rng = np.random.default_rng(seed)
    while not c.over:
        legal = c.legal_actions()
        c.clone()  # search clones the live combat: it must not disturb it
        c.act(legal[int(rng.integers(len(legal)))])
    return [e.json_line() for e in c.log]


@pytest.mark.parametrize("name", SKIRMISHES)
def test_two_combats_in_two_threads_give_the_sequential_logs(name: str) -> None:
    data = load_encounter(name).model_dump(mode="json")
    # a content never compiled before, so both threads also race to compile the encounter's tables
    data["description"] = f"thread test {uuid.uuid4()}"
    seeds = (3, 4)
    barrier = threading.Barrier(len(seeds))
    out: dict[int, list[str]] = {}
    errors: list[BaseException] = []

    def run(seed: int) -> None:
        try:
            out[seed] = play(data, seed, barrier)
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often: interleave rule calls, not whole games
    try:
        threads = [threading.Thread(target=run, args=(s,)) for s in seeds]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors
    for seed in seeds:
        assert out[seed] == play(data, seed), f"seed {seed} differs when run beside another combat"
