"""The WebSocket's messages as docs/server.md lists them: each with the session's revision after it, but `deleted`
(the session is gone: no revision), after which the socket closes."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect


def test_every_message_but_deleted_carries_the_revision(client: TestClient) -> None:
    state = client.post("/api/sessions", json={"encounter": "moonlit/duel", "pc": "review:scripted",
                                               "npc": "review:scripted", "run": False}).json()["state"]
    sid = state["id"]
    with client.websocket_connect(f"/api/sessions/{sid}/events") as ws:
        assert ws.receive_json()["type"] == "hello"
        revision = client.post(f"/api/sessions/{sid}/confirm", json={"run": False}).json()["state"]["revision"]
        client.post(f"/api/sessions/{sid}/undo", json={"decisions": 1})
        assert client.delete(f"/api/sessions/{sid}").status_code in (200, 204)
        seen = []
        while not seen or seen[-1]["type"] != "deleted":
            seen.append(ws.receive_json())
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()
    decision = next(m for m in seen if m["type"] == "decision")
    assert decision["revision"] == revision
    assert all(isinstance(m.get("revision"), int) for m in seen[:-1]), seen
    assert seen[-1] == {"seq": seen[-1]["seq"], "session": sid, "type": "deleted"}
