"""The WebSocket stream: every event of a session, numbered, in order, to every page watching it."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.server.quiet import settled


def _drain(ws: Any, until: str) -> list[dict[str, Any]]:
    """Messages up to and including the first of type `until`."""
    out = []
    while not out or out[-1]["type"] != until:
        out.append(ws.receive_json())
    return out


def test_every_watcher_gets_every_event_in_order(client: TestClient) -> None:
    made = client.post("/api/sessions", json={"encounter": "kiai/skirmish", "seed": 3, "pc": "scripted",
                                              "npc": "review:scripted", "run": False}).json()
    sid = made["state"]["id"]
    with client.websocket_connect(f"/api/sessions/{sid}/events") as a, \
            client.websocket_connect(f"/api/sessions/{sid}/events") as b:
        hello_a, hello_b = a.receive_json(), b.receive_json()
        assert hello_a["type"] == hello_b["type"] == "hello" and hello_a["seq"] == hello_b["seq"] == 0
        assert hello_a["state"]["decisions"] == 0
        taken = 0
        for _ in range(6):  # confirm some proposals one by one, then let the rest run
            r = client.post(f"/api/sessions/{sid}/confirm", json={"run": False})
            assert r.status_code == 200, r.text
            taken += len(r.json()["decisions"])
        client.put(f"/api/sessions/{sid}/autorun", json={"on": True})
        ran = client.post(f"/api/sessions/{sid}/run", json={"max_decisions": 100000}).json()["state"]
        final = settled(client, sid, ran)
        assert final["over"]
        log = client.get(f"/api/sessions/{sid}/log", params={"limit": 5000}).json()["events"]
        client.post(f"/api/sessions/{sid}/undo", json={"decisions": 2})
        seen_a, seen_b = _drain(a, "undo"), _drain(b, "undo")
    assert seen_a == seen_b
    assert [m["seq"] for m in seen_a] == list(range(1, len(seen_a) + 1))
    # a proposal that was still being computed when a request answered is announced when it is ready
    # (on a busy machine); everything else is the decisions, the setup change and the undo
    assert len([m for m in seen_a if m["type"] != "proposal"]) == final["decisions"] + 2
    decisions = [m for m in seen_a if m["type"] == "decision"]
    assert [m["record"]["n"] for m in decisions] == list(range(final["decisions"]))
    assert all("agents" not in m["record"] for m in decisions)
    pushed = [e for m in decisions for e in m["events"]]
    assert pushed == [e for e in log if e["seq"] >= hello_a["state"]["events"]]  # the whole log, in order
    kinds = [m["type"] for m in seen_a]
    assert [k for k in kinds if k != "proposal"].index("setup") == 6 and kinds[-1] == "undo"
    assert seen_a[-1]["decisions"] == final["decisions"] - 2


def test_watchers_see_only_their_session_and_hear_of_a_deletion(client: TestClient) -> None:
    one = client.post("/api/sessions", json={"encounter": "moonlit/duel", "npc": "review:scripted",
                                             "ask_routine": True,
                                             "pc": "review:scripted"}).json()["state"]["id"]
    other = client.post("/api/sessions", json={"encounter": "moonlit/duel", "npc": "review:scripted",
                                               "ask_routine": True,
                                               "pc": "review:scripted"}).json()["state"]["id"]
    with client.websocket_connect(f"/api/sessions/{one}/events") as ws:
        assert ws.receive_json()["type"] == "hello"
        client.post(f"/api/sessions/{other}/confirm", json={})
        client.post(f"/api/sessions/{one}/confirm", json={})
        message = ws.receive_json()
        assert message["session"] == one and message["type"] == "decision" and message["seq"] == 1
        assert client.delete(f"/api/sessions/{one}").status_code == 204
        assert ws.receive_json()["type"] == "deleted"


def test_a_socket_for_an_unknown_session_is_closed(client: TestClient) -> None:
    import pytest
    from starlette.testclient import WebSocketDenialResponse

    with pytest.raises(WebSocketDenialResponse) as info, client.websocket_connect("/api/sessions/nosuch/events") as ws:
        ws.receive_json()
    assert info.value.status_code == 404 and info.value.json()["error"] == "unknown_session"
