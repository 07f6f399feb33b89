"""Agents think off the session's lock: a slow proposal holds no request on its session, and is the same proposal.

`trpg-arena serve` in a subprocess with a review seat whose search runs to the agent time limit: the
state and other requests on that session answer at once (the state says ``thinking``), the proposal
is pushed on the WebSocket when ready and can be confirmed, and an autorun of such seats leaves the
session readable throughout. Computing on copies (`Session.think`/`take`) gives the same decisions as
computing in place.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import httpx2 as httpx
from websockets.sync.client import connect

from tests.server.test_serve_limits import cold_server
from trpg_arena.table.session import Session

SLOW = "review:mcts:simulations=100000"  # searches until the server's time limit (--agent-seconds)
LIMIT_S = 5.0


def _timed(method: str, url: str, **kwargs: object) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    r = httpx.request(method, url, timeout=30, **kwargs)  # type: ignore[arg-type]
    return r, time.monotonic() - started


def test_a_slow_review_seat_holds_no_request_on_its_session(tmp_path: Path) -> None:
    with cold_server(tmp_path / "s.db", "--agent-seconds", str(LIMIT_S)) as (base, _proc):
        httpx.post(f"{base}/api/sessions", json={"encounter": "moonlit/skirmish"}, timeout=60)  # loads the rules
        made, took = _timed("POST", f"{base}/api/sessions",
                            json={"encounter": "moonlit/skirmish", "pc": SLOW, "npc": SLOW,
                                  "ask_routine": True, "run": True})
        assert made.status_code == 201 and took < 2.0, (made.text, took)
        sid = made.json()["state"]["id"]
        url = f"{base}/api/sessions/{sid}"
        with connect(f"{base.replace('http', 'ws')}/api/sessions/{sid}/events") as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "hello"
            started = time.monotonic()
            state, took = _timed("GET", url)
            assert state.status_code == 200 and took < 2.0, took
            pending = state.json()["pending"]
            assert pending["thinking"] is True and pending["proposal"] is None, time.monotonic() - started
            # a change on the session answers at once too: confirming what is not proposed yet is refused
            refused, took = _timed("POST", f"{url}/confirm", json={})
            assert refused.status_code == 409 and took < 2.0, (refused.text, took)
            assert "still thinking" in refused.json()["message"]
            other, took = _timed("POST", f"{url}/proposal", json={"agent": "first"})
            assert other.status_code == 200 and took < 2.0, (other.text, took)
            message = json.loads(ws.recv(timeout=LIMIT_S + 20))
            while message["type"] != "proposal":
                message = json.loads(ws.recv(timeout=LIMIT_S + 20))
            assert time.monotonic() - started > 1.0  # it really was slow: the answers above did not wait for it
        state, took = _timed("GET", url)
        body = state.json()
        assert took < 2.0 and body["pending"]["thinking"] is False and body["pending"]["proposal"] is not None
        confirmed, took = _timed("POST", f"{url}/confirm", json={"revision": body["revision"]})
        assert confirmed.status_code == 200 and took < 2.0, (confirmed.text, took)
        assert [d["source"] for d in confirmed.json()["decisions"]] == ["confirmed"]

        # autorun: the seats play on by themselves, each decision a slow search, and the session stays readable
        on, took = _timed("PUT", f"{url}/autorun", json={"on": True, "run": True})
        assert on.status_code == 200 and took < 2.0, (on.text, took)
        decisions = on.json()["state"]["decisions"]
        waits = []
        until = time.monotonic() + 2 * LIMIT_S + 10
        while time.monotonic() < until:
            state, took = _timed("GET", url)
            waits.append(took)
            if state.json()["decisions"] > decisions:
                break
            time.sleep(0.3)
        assert state.json()["decisions"] > decisions, "autorun took no decision"
        assert max(waits) < 2.0, waits
        _timed("PUT", f"{url}/autorun", json={"on": False})


def test_proposals_computed_on_copies_are_the_proposals_computed_in_place() -> None:
    seats = {"pc": "mcts:simulations=24", "npc": "scripted"}
    here = Session("moonlit/skirmish", seed=5, **seats)  # type: ignore[arg-type]
    here.run(max_decisions=60)
    away = Session("moonlit/skirmish", seed=5, **seats)  # type: ignore[arg-type]
    away.think_here = False
    for _ in range(60):
        thought = away.think()
        if thought is None:
            break
        assert away.take(thought, thought.compute())
        assert away.run(max_decisions=1) == 1
    assert _untimed(away.records) == _untimed(here.records) and len(here.records) > 10


def _untimed(records: list[dict]) -> list[dict]:
    """Records without the proposals' reasons (a search says how many milliseconds it took)."""
    return [{**r, "proposal": {**r["proposal"], "reasons": None} if r["proposal"] else None} for r in records]


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def test_a_seat_changed_while_its_agent_thinks_cancels_the_search(tmp_path: Path) -> None:
    with cold_server(tmp_path / "s.db", "--agent-seconds", "20") as (base, proc):
        made = httpx.post(f"{base}/api/sessions", json={"encounter": "moonlit/skirmish", "pc": SLOW, "npc": SLOW,
                                                        "ask_routine": True},
                          timeout=60).json()
        url = f"{base}/api/sessions/{made['state']['id']}"
        assert httpx.get(url, timeout=30).json()["pending"]["thinking"] is True
        for key in ("npc", "pc"):  # whichever side decides first, its seat is now a quick agent
            changed, took = _timed("PUT", f"{url}/seats/{key}", json={"seat": "review:first"})
            assert changed.status_code == 200 and took < 2.0, (changed.text, took)
        pending = changed.json()["state"]["pending"]
        assert pending["thinking"] is False and pending["proposal"] is not None  # the new seat's, at once
        time.sleep(0.5)
        before = _cpu_s(proc.pid)
        time.sleep(2.0)
        assert _cpu_s(proc.pid) - before < 0.6  # the stale search stopped (it had 20 s to run)
