"""Several processes on one session file: the terminal and the server, two servers.

Each decision is stored once, in order, with no gap: a copy that is behind is refused by the store,
catches up and says so instead of writing, and the server pushes what another process decided to
the pages watching the session within a second.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx
from websockets.sync.client import ClientConnection, connect

from tests.experiments.test_autopilot import Gm
from tests.server.live import live_server
from tests.server.quiet import settled
from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore


def rows_per_decision(db: Path, sid: str) -> list[tuple[int, int]]:
    """(decision number, live rows holding it), in order: one each, 0..n-1, when nothing went wrong."""
    with sqlite3.connect(db) as con:
        return list(con.execute("SELECT n, COUNT(*) FROM decisions WHERE session = ? AND live = 1 GROUP BY n "
                                "ORDER BY n", (sid,)))


@contextmanager
def watching(base: str, sid: str) -> Iterator[ClientConnection]:
    """A page's WebSocket on the session, past its hello."""
    with connect(base.replace("http://", "ws://") + f"/api/sessions/{sid}/events") as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "hello"
        yield ws


# a page hears of a decision stored by another process within a second on an idle machine; the limit
# leaves room for a loaded one (a test machine running many suites at once)
WITHIN = 15.0


def decisions_heard(ws: ClientConnection, count: int, within: float) -> list[int]:
    """The decision numbers the next `count` decision messages carry (failing if they take longer than `within`)."""
    heard: list[int] = []
    deadline = time.monotonic() + within
    while len(heard) < count:
        message = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if message["type"] == "decision":
            heard.append(message["record"]["n"])
    return heard


def start(http: httpx.Client) -> dict:
    r = http.post("/api/sessions", json={"encounter": "reincarnator/duel", "seed": 3, "pc": "review:scripted",
                                         "npc": "review:scripted", "run": False})
    assert r.status_code == 201, r.text
    return r.json()["state"]


def confirm(http: httpx.Client, sid: str, revision: int) -> httpx.Response:
    settled(http, sid, http.get(f"/api/sessions/{sid}").json())  # this server's proposal is ready to confirm
    return http.post(f"/api/sessions/{sid}/confirm", json={"revision": revision, "run": False})


def test_the_terminal_and_the_server_on_one_session(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with live_server(db) as base, httpx.Client(base_url=base, timeout=60) as http:
        state = start(http)
        sid = state["id"]
        for _ in range(2):
            state = confirm(http, sid, state["revision"]).json()["state"]
        at_two = state
        with watching(base, sid) as ws:
            gm = Gm("--resume", sid, db=db, out=tmp_path)
            try:
                for _ in range(3):  # the terminal confirms three decisions
                    assert gm.wait() == "confirm", gm.screen[-800:]
                    gm.send("")
                assert gm.wait() == "confirm"  # the third is stored: the next is asked for
                assert decisions_heard(ws, 3, within=WITHIN) == [2, 3, 4]  # pushed to the page
                now = settled(http, sid, http.get(f"/api/sessions/{sid}").json())
                assert now["decisions"] == 5 and now["revision"] > at_two["revision"]
                stale = confirm(http, sid, at_two["revision"])  # a page that still shows decision 2
                assert stale.status_code == 409 and stale.json()["state"] == now
                assert confirm(http, sid, now["revision"]).status_code == 200  # decision 5, from the page
                gm.send("")  # the terminal still shows decision 5: its confirm must not write a second one
                assert gm.wait() == "confirm"
                assert "changed elsewhere" in gm.screen and "nothing was done here" in gm.screen
                gm.send("")  # now it confirms decision 6
                assert gm.wait() == "confirm"
                assert decisions_heard(ws, 2, within=WITHIN) == [5, 6]
                gm.send("q")
                assert gm.wait() == "eof"
            finally:
                gm.child.close(force=True)
        assert http.get(f"/api/sessions/{sid}").json()["decisions"] == 7
    assert rows_per_decision(db, sid) == [(n, 1) for n in range(7)]
    assert len(Session.load(SessionStore(db), sid).records) == 7  # no gap: it loads


def test_two_servers_on_one_file_one_decision_each_time(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with live_server(db) as a, live_server(db) as b, httpx.Client(base_url=a, timeout=60) as one, \
            httpx.Client(base_url=b, timeout=60) as two:
        state = start(one)
        sid = state["id"]
        with watching(b, sid) as ws:  # a page on the second server
            for trial in range(4):  # both answer the same decision at once: one wins, the other is 409
                state = settled(one, sid, state)
                assert settled(two, sid, two.get(f"/api/sessions/{sid}").json()) == state  # each has its proposal
                barrier = threading.Barrier(2)
                answers: list[httpx.Response] = []

                def answer(base: str, rev: int = state["revision"], barrier: threading.Barrier = barrier,
                           answers: list[httpx.Response] = answers) -> None:
                    with httpx.Client(base_url=base, timeout=60) as own:
                        barrier.wait()
                        answers.append(confirm(own, sid, rev))

                threads = [threading.Thread(target=answer, args=(base,)) for base in (a, b)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                assert sorted(r.status_code for r in answers) == [200, 409], [r.text for r in answers]
                assert decisions_heard(ws, 1, within=WITHIN) == [trial]
                state = settled(one, sid, next(r for r in answers if r.status_code == 200).json()["state"])
                assert settled(two, sid, two.get(f"/api/sessions/{sid}").json()) == state
    assert rows_per_decision(db, sid) == [(n, 1) for n in range(4)]


def test_a_locked_database_is_one_line_at_the_terminal_and_the_decision_is_asked_again(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = SessionStore(db)
    s = Session("reincarnator/duel", seed=3, pc="review:scripted", npc="review:scripted", store=store)
    s.confirm()
    store.close()
    gm = Gm("--resume", str(s.id), db=db, out=tmp_path)
    try:
        assert gm.wait() == "confirm"
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another program holds the file for longer than a write waits
        gm.send("")
        assert gm.wait() == "confirm"  # the same decision, asked again
        other.execute("ROLLBACK")
        other.close()
        flat = " ".join(gm.screen.split())  # the terminal wraps the message between words at 80 columns
        assert flat.count("busy") == 1 and "is busy (another program is writing to it); nothing was changed" in flat
        assert "Traceback" not in gm.screen
        gm.send("")
        assert gm.wait() == "confirm" and "(confirmed)" in gm.screen
        gm.send("q")
        assert gm.wait() == "eof"
    finally:
        gm.child.close(force=True)
    assert rows_per_decision(db, str(s.id)) == [(0, 1), (1, 1)]
    assert len(Session.load(SessionStore(db), str(s.id)).records) == 2
