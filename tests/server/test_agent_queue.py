"""Agents on a busy server: every queued proposal is computed, with the whole time limit, and no agent holds the rest.

More sessions need an agent at once than the server computes proposals at once (`thinking.WORKERS`):
those that wait their turn are still computed, and their time limit counts from when their computing
starts (a limit counted from the queue dropped them, and the sessions said ``thinking`` for ever). The
`trained` agent keeps to the server's time limit as searches do: its largest look, on four seats at
once, neither stalls other sessions' agents nor holds a `POST .../proposal`.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2 as httpx

from tests.server.live import live_server
from trpg_arena.server.thinking import WORKERS

SEARCH = "mcts:simulations=100000:time_limit=600"  # searches until the server's time limit, never its own
# every parameter of `trained` at the top of what it allows: minutes a decision without a time limit
LARGEST = ("trained:candidates=64:samples=1000:horizon=1000:playouts=256:depth=100000:wide=64:foe=64:doubt=64:"
           "answer=1:reply=1:verify=1")
LIMIT_S = 1.0
BOUND_S = 60.0  # every proposal is due within a few limits; this only bounds a test that would hang


def _together(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls at the same time (as many pages would); their results in order."""
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _proposed(base: str, sid: str) -> tuple[dict[str, Any], float]:
    """The open decision once its proposal is ready, and when it was (`time.monotonic`)."""
    give_up = time.monotonic() + BOUND_S
    while True:
        pending = httpx.get(f"{base}/api/sessions/{sid}/pending", timeout=30).json()["pending"]
        if not pending["thinking"]:
            return pending, time.monotonic()
        assert time.monotonic() < give_up, f"session {sid} is still thinking after {BOUND_S} s"
        time.sleep(0.05)


def test_more_sessions_than_workers_all_get_a_proposal_searched_for_the_whole_limit(tmp_path: Path) -> None:
    with live_server(tmp_path / "s.db", agent_seconds=LIMIT_S) as base:
        made = [httpx.post(f"{base}/api/sessions", json={"encounter": "moonlit/duel", "seed": 300 + i, "pc": "human",
                                                          "npc": "human", "run": False}, timeout=60)
                for i in range(2 * WORKERS)]
        sids = [r.json()["state"]["id"] for r in made]
        # every session needs its search at the same moment: half of them wait for a worker
        seated = _together([lambda s=s: httpx.put(f"{base}/api/sessions/{s}/seats/pc",
                                                  json={"seat": f"review:{SEARCH}", "run": False}, timeout=60)
                            for s in sids])
        assert [r.status_code for r in seated] == [200] * len(sids), [r.text for r in seated]
        for sid in sids:
            httpx.put(f"{base}/api/sessions/{sid}/seats/npc", json={"seat": f"review:{SEARCH}", "run": False},
                      timeout=60)
        for sid in sids:
            pending, _ = _proposed(base, sid)
            searched = re.search(r"new in (\d+) ms", pending["proposal"]["reasons"][0])
            assert searched is not None, pending["proposal"]["reasons"]
            # the time limit counted from the search's start: one that waited its turn was not rushed
            assert int(searched.group(1)) >= 0.8 * LIMIT_S * 1000, pending["proposal"]["reasons"]
            confirmed = httpx.post(f"{base}/api/sessions/{sid}/confirm", json={"run": False}, timeout=60)
            assert confirmed.status_code == 200, confirmed.text


def test_the_largest_trained_look_keeps_to_the_limit_and_holds_no_other_session(tmp_path: Path) -> None:
    with live_server(tmp_path / "s.db", agent_seconds=LIMIT_S) as base:
        other = httpx.post(f"{base}/api/sessions", json={"encounter": "moonlit/duel", "seed": 3, "pc": "human",
                                                         "npc": "review:scripted", "run": False},
                           timeout=60).json()["state"]["id"]
        made = _together([lambda: httpx.post(f"{base}/api/sessions",
                                             json={"encounter": "moonlit/duel", "seed": 5, "pc": f"review:{LARGEST}",
                                                   "npc": "human", "run": False}, timeout=60)
                          for _ in range(WORKERS)])
        assert [r.status_code for r in made] == [201] * WORKERS, [r.text for r in made]
        started = time.monotonic()
        for r in made:
            pending, ready = _proposed(base, r.json()["state"]["id"])
            assert ready - started < 10 * LIMIT_S + 5, (ready - started, pending["proposal"])
        # the other session's agent is not stuck behind them
        acted = httpx.post(f"{base}/api/sessions/{other}/actions", json={"index": 0, "run": False}, timeout=60)
        assert acted.status_code == 200, acted.text
        pending, ready = _proposed(base, other)
        assert pending["proposal"] is not None and ready - started < 10 * LIMIT_S + 5
        # asked directly, the same look answers within the request's limit (plus the grace), not after minutes
        sid = made[0].json()["state"]["id"]
        asked = time.monotonic()
        r = httpx.post(f"{base}/api/sessions/{sid}/proposal", json={"agent": LARGEST}, timeout=120)
        assert r.status_code == 200, r.text
        assert time.monotonic() - asked < LIMIT_S + 5, time.monotonic() - asked
