"""Bounded memory: finished and idle sessions leave the server's memory and come back from the store unchanged.

Over HTTP, on a server told to keep few sessions loaded: sessions played to the end are unloaded
after their last request, the least recently used ones go beyond the limit, idle ones go after the
idle time; a watched session and one waiting for dice typed at the table stay. Every unloaded
session answers exactly as before when it is asked for again, and plays on. Encounters are capped
(combatants per side and in all), so one request cannot make a session of thousands.
"""

from __future__ import annotations

import time
from pathlib import Path

import yaml
from fastapi.testclient import TestClient

from tests.server.conftest import make_client
from tests.server.quiet import settled
from trpg_arena.rules import RULESETS
from trpg_arena.rules.core.encounter import MAX_COMBATANTS, MAX_PER_SIDE
from trpg_arena.server.hub import SessionHub


def _hub(client: TestClient) -> SessionHub:
    return client.app.state.hub  # type: ignore[attr-defined]


def _loaded(client: TestClient) -> set[str]:
    hub = _hub(client)
    return {sid for sid, e in hub._entries.items() if e.session is not None}


def test_finished_and_least_recently_used_sessions_leave_memory_and_come_back(db: Path) -> None:
    with make_client(db) as client:
        _hub(client).residency.max_loaded = 3
        finished = []
        for seed in range(4):  # played to the end in the request that creates them
            r = client.post("/api/sessions", json={"encounter": "moonlit/duel", "seed": seed, "pc": "scripted",
                                                   "npc": "scripted"})
            assert r.status_code == 201
            state = settled(client, r.json()["state"]["id"], r.json()["state"])
            assert state["over"]
            finished.append(state)
        running = []
        for seed in range(5):
            r = client.post("/api/sessions", json={"encounter": "kiai/duel", "seed": seed, "pc": "human",
                                                   "npc": "human"})
            assert not r.json()["state"]["over"]
            running.append(r.json()["state"])
        loaded = _loaded(client)
        assert len(loaded) <= 3 and not loaded & {s["id"] for s in finished}
        assert loaded <= {s["id"] for s in running[-3:]}  # the least recently used went first
        for state in finished + running:  # each comes back from the store exactly as it was
            assert client.get(f"/api/sessions/{state['id']}").json() == state
        assert len(_loaded(client)) <= 3
        first = running[0]["id"]
        r = client.post(f"/api/sessions/{first}/actions", json={"index": 0, "revision": running[0]["revision"]})
        assert r.status_code == 200, r.text
        assert r.json()["state"]["decisions"] > running[0]["decisions"]


def test_idle_sessions_leave_but_watched_ones_and_dice_being_typed_stay(db: Path) -> None:
    with make_client(db) as client:
        hub = _hub(client)
        ids = []
        for pc in ("human", "human", "human+dice"):
            r = client.post("/api/sessions", json={"encounter": "investigator/duel", "pc": pc, "npc": "scripted"})
            ids.append(r.json()["state"]["id"])
        idle, watched, rolling = ids
        r = client.post(f"/api/sessions/{rolling}/actions", json={"action": {"verb": "shoot", "target": "cultist"}})
        assert r.json()["state"]["pending"]["dice"] is not None
        with client.websocket_connect(f"/api/sessions/{watched}/events") as ws:
            assert ws.receive_json()["type"] == "hello"
            hub.residency.idle_s = 0.0
            time.sleep(0.01)
            hub.residency.trim()
            assert _loaded(client) == {watched, rolling}
        asked = client.get(f"/api/sessions/{rolling}").json()["pending"]["dice"]
        assert asked is not None and asked["die"] == "1D100"
        assert client.get(f"/api/sessions/{idle}").json()["id"] == idle


def test_encounters_are_capped_per_side_and_in_all(client: TestClient) -> None:
    duel = yaml.safe_load((RULESETS["kiai"].info.data_dir / "encounters" / "duel.yaml").read_text(encoding="utf-8"))
    one = duel["combatants"][-1]
    horde = {**duel, "combatants": [*duel["combatants"], *({**one, "id": f"extra{i}"} for i in range(MAX_PER_SIDE))]}
    r = client.post("/api/encounters/validate", json={"encounter_data": horde})
    assert r.status_code == 422 and f"a side has at most {MAX_PER_SIDE}" in r.json()["message"], r.text
    assert r.json()["where"] == "combatants"
    crowd = {**duel, "combatants": [{**one, "id": f"c{i}", "side": f"S{i % 4}"} for i in range(MAX_COMBATANTS + 1)]}
    r = client.post("/api/sessions", json={"encounter_data": crowd})
    assert r.status_code == 422 and f"at most {MAX_COMBATANTS}" in r.json()["message"], r.text
    assert client.get("/api/sessions").json()["sessions"] == []
