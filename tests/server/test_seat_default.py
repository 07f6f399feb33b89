"""A side's or combatant's own seat can be taken back over HTTP (``DELETE .../seats/{key}``): it falls back on its
default again, stored like any seat change (a server started again on the file sees it, undo leaves it so)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from tests.server.conftest import make_client


def _session(client: TestClient) -> dict:
    r = client.post("/api/sessions", json={"encounter": "moonlit/skirmish", "seed": 2, "pc": "human",
                                           "npc": "review:scripted", "run": False})
    assert r.status_code == 201, r.text
    return r.json()["state"]


def test_a_side_seated_by_hand_goes_back_to_its_default_and_stays_there(client: TestClient, db: Path) -> None:
    state = _session(client)
    sid = state["id"]
    assert state["pending"]["decision"]["side"] == "B" and state["pending"]["seat"]["text"] == "review:scripted"
    own = client.put(f"/api/sessions/{sid}/seats/B", json={"seat": "review:random", "run": False}).json()["state"]
    assert own["seats"] == {"B": "review:random"} and own["pending"]["seat"]["text"] == "review:random"

    r = client.request("DELETE", f"/api/sessions/{sid}/seats/B", json={"run": False},
                       headers={"if-match": f'"{own["revision"]}"'})
    assert r.status_code == 200, r.text
    cleared = r.json()["state"]
    assert cleared["seats"] == {} and cleared["revision"] > own["revision"]
    assert cleared["pending"]["seat"]["text"] == "review:scripted"  # the npc default answers B again
    again = client.request("DELETE", f"/api/sessions/{sid}/seats/B", json={"run": False})  # nothing of its own left
    assert again.status_code == 200 and again.json()["state"]["revision"] == cleared["revision"]

    confirmed = client.post(f"/api/sessions/{sid}/confirm", json={"run": False})
    assert confirmed.status_code == 200 and confirmed.json()["decisions"][0]["source"] == "confirmed"
    undone = client.post(f"/api/sessions/{sid}/undo", json={"decisions": 1})
    assert undone.status_code == 200 and undone.json()["state"]["seats"] == {}  # undo brings no seat back
    with make_client(db) as fresh:  # stored: a server started again on the file sees the default
        assert fresh.get(f"/api/sessions/{sid}").json()["seats"] == {}


def test_a_stale_or_impossible_seat_removal_changes_nothing(client: TestClient) -> None:
    state = _session(client)
    sid = state["id"]
    client.put(f"/api/sessions/{sid}/seats/B", json={"seat": "human", "run": False})
    stale = client.request("DELETE", f"/api/sessions/{sid}/seats/B", json={"revision": state["revision"]})
    assert stale.status_code == 409 and stale.json()["error"] == "stale_revision"
    default = client.delete(f"/api/sessions/{sid}/seats/npc")
    assert default.status_code == 409 and "give it another seat instead" in default.json()["message"]
    assert client.get(f"/api/sessions/{sid}").json()["seats"] == {"B": "human"}
    bare = client.delete(f"/api/sessions/{sid}/seats/B")  # no body, as most clients send a DELETE
    assert bare.status_code == 200 and bare.json()["state"]["seats"] == {}
