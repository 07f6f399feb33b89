"""Smaller promises of the HTTP API, each as a client meets it.

An empty token never opens a server; a combatant out of the fight is not taken out twice (one yet to
arrive may be); watchers hear that the dice asked for were given up; a seat key naming nobody is
malformed input; `POST .../proposal` honours If-Match; a long unknown id is not echoed whole; the
schema names the refusals every route may give.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse

from trpg_arena.server import ServerConfig, create_app

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


# --- an empty token ---------------------------------------------------------------------------------
def test_serve_refuses_an_empty_token_in_one_line(tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "serve", "--host", "0.0.0.0", "--port", "0", "--db", str(tmp_path / "x.db"),
                        "--token", ""], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "--token is empty" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    with pytest.raises(ValueError, match="empty"):
        ServerConfig.for_host("0.0.0.0", token=" ")


@pytest.mark.parametrize("token", ["s3cret", ""])
def test_an_empty_token_presented_never_passes(tmp_path: Path, token: str) -> None:
    # "": a token misconfigured as empty (built without `for_host`) lets nobody in, rather than everybody
    config = ServerConfig(db=tmp_path / "s.db", host="0.0.0.0", token=token, trusted_hosts=())
    with TestClient(create_app(config), base_url="http://192.0.2.7:8765") as client:
        for headers in ({"cookie": "trpg_arena_token="}, {"cookie": 'trpg_arena_token=""'},
                        {"authorization": "Bearer "}):
            r = client.get("/api/sessions", headers=headers)
            assert r.status_code == 401 and r.json()["error"] == "unauthorized", (headers, r.text)
        assert client.get("/api/sessions", params={"token": ""}).status_code == 401
        with pytest.raises(WebSocketDenialResponse), client.websocket_connect(
                "/api/sessions/x/events", headers={"cookie": "trpg_arena_token="}) as ws:
            ws.receive_json()


# --- taking out --------------------------------------------------------------------------------------
def _can_remove(client: TestClient, sid: str) -> dict[str, bool]:
    edits = client.get(f"/api/sessions/{sid}/edits").json()["combatants"]
    return {row["id"]: row["can_remove"] for row in edits}


def test_a_combatant_already_out_is_not_taken_out_again(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={"encounter": "moonlit/skirmish", "seed": 5, "run": False}
                      ).json()["state"]["id"]
    first = client.post(f"/api/sessions/{sid}/edits", json={"combatant": "ghoul_2", "remove": True, "run": False})
    assert first.status_code == 200, first.text
    assert _can_remove(client, sid)["ghoul_2"] is False
    again = client.post(f"/api/sessions/{sid}/edits", json={"combatant": "ghoul_2", "remove": True, "run": False})
    assert again.status_code == 422 and again.json()["error"] == "invalid_edit", again.text
    assert "already out of the fight" in again.json()["message"] and again.json()["where"] == "combatant"
    gm = [r for r in client.get(f"/api/sessions/{sid}/records").json()["records"] if r["source"] == "gm"]
    assert len(gm) == 1
    assert client.get(f"/api/sessions/{sid}").json()["revision"] == first.json()["state"]["revision"]


def test_a_summon_not_yet_called_can_be_taken_out_as_the_edits_say(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={"encounter": "moonlit/skirmish", "seed": 5, "run": False}
                      ).json()["state"]["id"]
    assert _can_remove(client, sid)["puppeteer.puppet"] is True  # absent: it has yet to join the fight
    r = client.post(f"/api/sessions/{sid}/edits", json={"combatant": "puppeteer.puppet", "remove": True,
                                                        "run": False})
    assert r.status_code == 200, r.text
    assert _can_remove(client, sid)["puppeteer.puppet"] is False


def test_a_reinforcement_taken_out_in_reserve_never_joins(client: TestClient) -> None:
    made = client.post("/api/sessions", json={"encounter": "reincarnator/skirmish", "seed": 5, "pc": "scripted",
                                              "npc": "scripted", "run": False}).json()
    sid = made["state"]["id"]
    added = client.post(f"/api/sessions/{sid}/edits",
                        json={"combatant": "brute_2", "add": {"like": "brute", "position": [1, 1]}, "run": False})
    assert added.status_code == 200, added.text
    assert _can_remove(client, sid)["brute_2"] is True  # in reserve until the next round
    out = client.post(f"/api/sessions/{sid}/edits", json={"combatant": "brute_2", "remove": True, "run": False})
    assert out.status_code == 200, out.text
    for _ in range(100):  # the agents play on to the end (a run may hand back before it: ask again)
        answer = client.post(f"/api/sessions/{sid}/run", json={"max_decisions": 100000}).json()
        assert "agent_error" not in answer, answer["agent_error"]
        state = answer["state"]
        if state["over"]:
            break
    records = client.get(f"/api/sessions/{sid}/records").json()["records"]
    assert state["over"] and all(r["actor"] != "brute_2" for r in records)


# --- dice given up ----------------------------------------------------------------------------------
def _until(ws: Any, kind: str) -> list[dict[str, Any]]:
    """The messages up to and including the first of type `kind` (which must come)."""
    messages = [ws.receive_json()]
    while messages[-1]["type"] != kind:
        messages.append(ws.receive_json())
    return messages


def test_watchers_hear_that_the_dice_asked_for_were_given_up(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={"encounter": "investigator/duel", "seed": 1, "table_dice": True,
                                             "run": False}).json()["state"]["id"]
    with client.websocket_connect(f"/api/sessions/{sid}/events") as ws:
        assert ws.receive_json()["type"] == "hello"
        asked = client.post(f"/api/sessions/{sid}/actions", json={"index": 0, "run": False}).json()["state"]
        assert asked["pending"]["dice"]
        assert _until(ws, "dice")[-1]["revision"] == asked["revision"]
        cancelled = client.delete(f"/api/sessions/{sid}/dice")
        assert cancelled.status_code == 200 and cancelled.json()["state"]["pending"]["dice"] is None
        client.put(f"/api/sessions/{sid}/autorun", json={"on": True, "run": False})  # a later event, surely sent
        heard = [m for m in _until(ws, "setup") if m["type"] == "dice_cancelled"]
        assert [m["revision"] for m in heard] == [cancelled.json()["state"]["revision"]]


# --- seat keys ---------------------------------------------------------------------------------------
def test_a_seat_key_naming_nobody_is_malformed(client: TestClient) -> None:
    r = client.post("/api/sessions", json={"encounter": "moonlit/duel", "seats": {"nobody": "human"}})
    assert r.status_code == 422 and "'nobody'" in r.json()["message"], r.text
    assert client.get("/api/sessions").json()["sessions"] == []
    sid = client.post("/api/sessions", json={"encounter": "moonlit/duel", "run": False}).json()["state"]["id"]
    r = client.put(f"/api/sessions/{sid}/seats/nobody", json={"seat": "human", "run": False})
    assert r.status_code == 422 and "'nobody'" in r.json()["message"], r.text


# --- polish ------------------------------------------------------------------------------------------
def test_a_proposal_honours_if_match(client: TestClient) -> None:
    made = client.post("/api/sessions", json={"encounter": "moonlit/duel", "run": False}).json()["state"]
    sid, revision = made["id"], made["revision"]
    url = f"/api/sessions/{sid}/proposal"
    fresh = client.post(url, json={"agent": "scripted"}, headers={"if-match": f'"{revision}"'})
    assert fresh.status_code == 200, fresh.text
    stale = client.post(url, json={"agent": "scripted"}, headers={"if-match": f'"{revision + 5}"'})
    assert stale.status_code == 409 and stale.json()["error"] == "stale_revision", stale.text
    assert stale.json()["state"]["revision"] == revision
    garbage = client.post(url, json={"agent": "scripted"}, headers={"if-match": "yesterday"})
    assert garbage.status_code == 422 and garbage.json()["error"] == "invalid_revision", garbage.text


def test_a_long_unknown_session_id_is_not_echoed_whole(client: TestClient) -> None:
    long = "a" * 5000
    with pytest.raises(WebSocketDenialResponse) as refused, client.websocket_connect(
            f"/api/sessions/{long}/events") as ws:
        ws.receive_json()
    assert refused.value.status_code == 404
    message = refused.value.json()["message"]
    assert "a" * 64 in message and len(message) < 200, len(message)


def test_the_schema_names_every_refusal_a_route_may_give(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    for path, operations in schema["paths"].items():
        if not path.startswith("/api/"):
            continue
        for method, operation in operations.items():
            assert {"401", "403", "413", "503"} <= set(operation["responses"]), (method, path)
    log = schema["paths"]["/api/sessions/{sid}/log"]["get"]["parameters"]
    limit = next(p for p in log if p["name"] == "limit")
    assert limit["description"] and limit["schema"]["maximum"] == 5000
