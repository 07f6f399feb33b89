"""Sessions live in the store: a restarted server resumes every one exactly, and sessions started in the
terminal (the same SQLite file) are listed and continued over HTTP."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SYSTEMS
from tests.server.conftest import make_client
from tests.server.table import play_through
from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore


def test_a_restart_resumes_every_session(db: Path) -> None:
    before: dict[str, dict] = {}
    with make_client(db) as client:
        for i, rid in enumerate(SYSTEMS):
            r = client.post("/api/sessions", json={"encounter": f"{rid}/duel", "seed": i, "pc": "review:scripted",
                                                   "npc": "review:scripted", "name": f"evening {i}"})
            sid = r.json()["state"]["id"]
            for _ in range(3 + i):
                if client.get(f"/api/sessions/{sid}").json()["over"]:
                    break
                assert client.post(f"/api/sessions/{sid}/confirm", json={}).status_code == 200
            before[sid] = client.get(f"/api/sessions/{sid}").json()
        listed = client.get("/api/sessions").json()["sessions"]
    with make_client(db) as client:  # a new process would see exactly this: the same file, nothing in memory
        assert client.get("/api/sessions").json()["sessions"] == listed
        for sid, state in before.items():
            assert client.get(f"/api/sessions/{sid}").json() == state
        sid = next(iter(before))
        assert play_through(client, sid)["state"]["over"]


def test_a_session_started_in_the_terminal_continues_over_http(db: Path) -> None:
    store = SessionStore(db)
    session = Session("reincarnator/duel", seed=4, pc="human", npc="scripted", store=store, name="from the terminal")
    session.run()
    pending = session.pending()
    assert pending is not None
    session.submit(0)
    session.run()
    expected = session.pending()
    store.close()
    with make_client(db) as client:
        rows = client.get("/api/sessions").json()["sessions"]
        assert [(r["id"], r["name"]) for r in rows] == [(session.id, "from the terminal")]
        state = client.get(f"/api/sessions/{session.id}").json()
        assert state["decisions"] == len(session.records)
        if expected is None:
            assert state["over"]
        else:
            assert state["pending"]["decision"] == expected.decision.to_json()
        assert play_through(client, session.id)["state"]["over"]
