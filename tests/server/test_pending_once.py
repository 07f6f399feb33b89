"""A request builds the open decision once and writes its JSON once, however many times its steps read it.

Answering "submit action 3" reads the open decision three times (to find the action the request names, to
check the decision is still open, to answer with the new state); building it (the legal actions, the seat,
the proposal) and writing it out (every legal action's GM sentence and odds) are the costly parts.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import make_client
from trpg_arena.table import choices, session

ENCOUNTER = "investigator/duel"  # no routine question: each submit opens exactly one new decision


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many `Pending`s were built and how many were written as JSON since the counter was last cleared."""
    counts: Counter[str] = Counter()

    real = session.Pending

    def counted_pending(*args: Any, **kwargs: Any) -> session.Pending:
        counts["built"] += 1
        return real(*args, **kwargs)

    def counted_json(combat: Any, pending: session.Pending) -> dict[str, Any]:
        counts["json"] += 1
        return choices.pending_json(combat, pending)

    monkeypatch.setattr(session, "Pending", counted_pending)
    monkeypatch.setattr(session, "pending_json", counted_json)
    return counts


def start(client: TestClient) -> str:
    r = client.post("/api/sessions", json={"encounter": ENCOUNTER, "seed": 3, "pc": "human", "npc": "human"})
    assert r.status_code == 201, r.text
    return r.json()["state"]["id"]


def requested(counts: Counter[str], client: TestClient, method: str, url: str, **body: Any) -> tuple[int, int]:
    """(Pendings built, Pendings written as JSON) while answering one request."""
    counts.clear()
    r = client.request(method, url, **({"json": body} if method == "POST" else {}))
    assert r.status_code in (200, 201), r.text
    return counts["built"], counts["json"]


def waits(counts: Counter[str], client: TestClient, sid: str) -> tuple[int, int]:
    """Submit a wait or the end of the turn (a shot may end the duel); what that request built and wrote."""
    groups = client.get(f"/api/sessions/{sid}").json()["pending"]["groups"]
    index = next(g["actions"][0]["index"] for g in groups if g["verb"] in ("wait", "end_turn"))
    return requested(counts, client, "POST", f"/api/sessions/{sid}/actions", index=index)


def test_each_request_builds_the_open_decision_once_and_writes_it_once(counted: Counter[str],
                                                                         client: TestClient) -> None:
    sid = start(client)
    url = f"/api/sessions/{sid}"
    assert requested(counted, client, "GET", url) == (0, 1)  # built when the session started; unchanged since
    assert requested(counted, client, "GET", url + "/pending") == (0, 1)
    for _ in range(6):  # the decision it answers is the one the last answer built: only the next one is new
        assert waits(counted, client, sid) == (1, 1)
    assert requested(counted, client, "GET", url) == (0, 1)


def test_a_request_that_finds_no_decision_built_builds_each_one_once(counted: Counter[str], db: Path) -> None:
    with make_client(db) as first:
        sid = start(first)
        groups = first.get(f"/api/sessions/{sid}").json()["pending"]["groups"]
    index = next(g["actions"][0]["index"] for g in groups if g["verb"] == "wait")
    with make_client(db) as fresh:  # a new server: the session is read from the file, no decision built yet
        # the decision it answers (built once, though read three times) and the one it opens
        assert requested(counted, fresh, "POST", f"/api/sessions/{sid}/actions", index=index) == (2, 1)
        assert waits(counted, fresh, sid) == (1, 1)
