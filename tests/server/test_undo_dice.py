"""The HTTP API's undo while dice are asked for takes back only the action waiting for them (as cancelling the roll)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.server.quiet import settled


def test_undo_while_a_roll_waits_reopens_that_decision_only(client: TestClient) -> None:
    r = client.post("/api/sessions", json={"encounter": "investigator/duel", "seed": 3,
                                           "seats": {"investigators": "human+dice"}, "npc": "review:scripted"})
    assert r.status_code == 201, r.text
    state: dict[str, Any] = r.json()["state"]
    sid = state["id"]

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        answer = client.post(f"/api/sessions/{sid}/{path}", json={"revision": state["revision"], **body})
        assert answer.status_code == 200, answer.text
        return settled(client, sid, answer.json()["state"])

    state = post("actions", {"index": 0})  # ada shoots: her roll is asked for, and typed
    state = post("dice", {"faces": "50"})
    while state["pending"]["dice"] is not None or state["pending"]["seat"]["kind"] != "human":
        state = post("dice", {"faces": "50"}) if state["pending"]["dice"] is not None else post("confirm", {})
    before = state
    aim = next(a["index"] for g in state["pending"]["groups"] for a in g["actions"] if g["verb"] == "prepare")
    state = post("actions", {"index": aim})
    assert state["pending"]["dice"] is not None and state["decisions"] == before["decisions"] == 1

    state = post("undo", {})
    assert state["pending"]["dice"] is None
    assert state["decisions"] == 1 and state["pending"]["decision"] == before["pending"]["decision"]
    assert state["events"] == before["events"]  # the shot before it, and its roll, stand
