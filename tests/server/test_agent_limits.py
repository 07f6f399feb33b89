"""Agent specs over HTTP: values outside what an agent declares are refused before anything is stored,
a seat that cannot play never turns a person's stored decision into an error, and agent work keeps
to the server's time limit."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import make_client
from tests.server.quiet import settled
from trpg_arena.rules import load_encounter
from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore

BAD_SPECS = ["mcts:simulations=-1", "mcts:simulations=100001", "mcts:c=nan", "mcts:c=0", "mcts:c=inf",
             "random:foo=1", "mcts:reuse=maybe", "mcts:playout=mcts:easy", "mcts:playout=policy",
             "mcts:depth=1.5", "mcts:temperature=-1"]


@pytest.mark.parametrize("spec", BAD_SPECS)
def test_a_bad_agent_spec_creates_no_session(client: TestClient, spec: str) -> None:
    r = client.post("/api/sessions", json={"encounter": "moonlit/skirmish", "npc": spec})
    assert r.status_code == 422 and r.json()["error"] == "unknown_agent", r.text
    assert client.get("/api/sessions").json()["sessions"] == []


def test_the_refusal_lists_every_parameter_with_its_bounds(client: TestClient) -> None:
    message = client.post("/api/sessions", json={"encounter": "kiai/duel", "npc": "mcts:simulations=-1"}).json()[
        "message"]
    assert "simulations must be 1..100000, got '-1'" in message
    for allowed in ("c=0.4 (float, > 0 and <= 100)", "reuse=True (bool)", "one of scripted, random, first"):
        assert allowed in message


def test_bad_specs_in_an_uploaded_encounters_controllers_store_nothing(client: TestClient) -> None:
    enc = load_encounter("moonlit/duel").model_dump(mode="json")
    enc["controllers"] = {enc["combatants"][1]["side"]: "mcts:c=nan"}
    r = client.post("/api/sessions", json={"encounter_data": enc})
    assert r.status_code == 422 and "c must be a finite number" in r.json()["message"], r.text
    assert client.get("/api/sessions").json()["sessions"] == []


@pytest.mark.parametrize("spec", BAD_SPECS)
def test_a_bad_seat_changes_nothing(client: TestClient, spec: str) -> None:
    made = client.post("/api/sessions", json={"encounter": "moonlit/skirmish", "npc": "review:scripted"}).json()
    sid = made["state"]["id"]
    before = settled(client, sid, made["state"])
    r = client.put(f"/api/sessions/{sid}/seats/npc", json={"seat": spec})
    assert r.status_code == 422, r.text
    assert client.get(f"/api/sessions/{sid}").json() == before


@pytest.mark.parametrize("spec", ["mcts:c=nan", "random:foo=1", "mcts:playout=mcts:easy"])
def test_a_bad_proposal_agent_is_a_422(client: TestClient, spec: str) -> None:
    sid = client.post("/api/sessions", json={"encounter": "moonlit/skirmish"}).json()["state"]["id"]
    r = client.post(f"/api/sessions/{sid}/proposal", json={"agent": spec})
    assert r.status_code == 422 and "parameter" in r.json()["message"], r.text


def test_a_stored_seat_that_cannot_play_never_fails_a_persons_action(db: Path) -> None:
    # a session stored before specs were checked: its NPC seat names a search with no playouts at all
    store = SessionStore(db)
    session = Session("moonlit/skirmish", seed=3, pc="human", npc="scripted", store=store)
    setup = session.setup_json()
    store.update_setup(session.id, {**setup, "npc": "mcts:simulations=-1"})
    store.close()
    with make_client(db) as client:
        sid = session.id
        state = client.get(f"/api/sessions/{sid}").json()
        while state["pending"] is not None and state["pending"]["seat"]["kind"] == "human":
            r = client.post(f"/api/sessions/{sid}/actions", json={"index": 0})
            assert r.status_code == 200, r.text
            state = r.json()["state"]
        assert state["pending"] is None and "simulations must be 1..100000" in state["agent_error"]
        stored = client.get(f"/api/sessions/{sid}/records").json()["records"]
        assert len(stored) == state["decisions"] > 0
        fixed = client.put(f"/api/sessions/{sid}/seats/npc", json={"seat": "scripted"})
        assert fixed.status_code == 200 and "agent_error" not in fixed.json()["state"]


def test_a_proposal_past_the_time_limit_answers_its_best_so_far(db: Path) -> None:
    with make_client(db, agent_seconds=1.0) as client:
        sid = client.post("/api/sessions", json={"encounter": "moonlit/skirmish"}).json()["state"]["id"]
        started = time.monotonic()
        r = client.post(f"/api/sessions/{sid}/proposal", json={"agent": "mcts:simulations=100000"})
        took = time.monotonic() - started
    assert r.status_code == 200, r.text
    assert took < 3.0, took
    first = r.json()["proposal"]["reasons"][0]
    assert "of 100000 playouts" not in first  # cut by the deadline, not finished


def test_no_agent_parameter_names_a_file_over_http(client: TestClient) -> None:
    for seat in ("trained:model=/etc/passwd", "review:trained:hard:model=x.npz", "policy:model.zip"):
        r = client.post("/api/sessions", json={"encounter": "kiai/duel", "npc": seat})
        assert r.status_code == 422 and "over HTTP" in r.json()["message"], r.text
    assert client.get("/api/sessions").json()["sessions"] == []
