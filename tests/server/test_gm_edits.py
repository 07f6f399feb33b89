"""GM edits over HTTP, every rule system: the fields the rules allow, an edit as a GM decision, 422 naming the field.

Each edit is stored like a decision (If-Match, Idempotency-Key and undo act on it as on any change) and a
server started again on the same file shows it; the statistics count it apart from damage.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from websockets.sync.client import connect

from tests.server.conftest import make_client
from tests.server.quiet import settled
from tests.server.test_serve_limits import cold_server
from trpg_arena.rules import load_encounter

SYSTEMS = ["moonlit/skirmish", "kiai/skirmish", "investigator/skirmish", "reincarnator/skirmish"]


def start(client: TestClient, encounter: str) -> dict:
    r = client.post("/api/sessions", json={"encounter": encounter, "pc": "human", "npc": "scripted", "seed": 3})
    assert r.status_code == 201, r.text
    return settled(client, r.json()["state"]["id"], r.json()["state"])  # a person decides now


def target(client: TestClient, state: dict) -> tuple[str, dict]:
    """A standing combatant who is not deciding, and its first whole-number field (as GET .../edits lists them)."""
    edits = client.get(f"/api/sessions/{state['id']}/edits").json()
    assert edits["revision"] == state["revision"]
    deciding = state["pending"]["decision"]["actor"]
    row = next(r for r in edits["combatants"] if r["id"] != deciding and r["can_remove"] and r["fields"])
    return row["id"], next(f for f in row["fields"] if f["kind"] == "int")


@pytest.mark.parametrize("encounter", SYSTEMS)
def test_an_edit_is_a_gm_decision_refused_values_name_the_field_undo_and_restart_keep_it(
        db: Path, encounter: str) -> None:
    with make_client(db) as client:
        state = start(client, encounter)
        sid = state["id"]
        cid, field = target(client, state)
        dealt = {c["id"]: (c["damage_dealt"], c["damage_taken"], c["healed"])
                 for c in client.get(f"/api/sessions/{sid}/statistics").json()["combatants"]}
        name, old = field["name"], field["value"]
        new = field["high"] if old != field["high"] else field["low"]
        for bad in ({field["name"]: field["high"] + 1}, {field["name"]: "lots"}, {"wings": 2}):
            r = client.post(f"/api/sessions/{sid}/edits", json={"combatant": cid, "changes": bad})
            where = f"changes.{next(iter(bad))}"
            assert r.status_code == 422 and r.json()["error"] == "invalid_edit" and r.json()["where"] == where, r.text
        r = client.post(f"/api/sessions/{sid}/edits", json={"combatant": "nobody", "changes": {name: 1}})
        assert r.status_code == 422 and r.json()["where"] == "combatant"
        assert client.get(f"/api/sessions/{sid}").json() == state  # nothing half-applied
        r = client.post(f"/api/sessions/{sid}/edits", json={"combatant": cid, "changes": {name: new}, "run": False},
                        headers={"if-match": f'"{state["revision"]}"'})
        assert r.status_code == 200, r.text
        body = r.json()
        line = f"GM: {cid} {field['label']} {old} -> {new}"
        assert [d["text"] for d in body["decisions"]] == [line] and body["decisions"][0]["source"] == "gm"
        assert body["events"][0]["kind"] == "gm_edit" and body["events"][0]["text"] == line
        edited = body["state"]
        assert edited["revision"] > state["revision"] and edited["decisions"] == state["decisions"] + 1
        now = {f["name"]: f["value"] for r in client.get(f"/api/sessions/{sid}/edits").json()["combatants"]
               if r["id"] == cid for f in r["fields"]}
        assert now[name] == new
        stale = client.post(f"/api/sessions/{sid}/edits", json={"combatant": cid, "changes": {name: old}},
                            headers={"if-match": f'"{state["revision"]}"'})
        assert stale.status_code == 409 and stale.json()["error"] == "stale_revision"
        stats = client.get(f"/api/sessions/{sid}/statistics").json()
        assert stats["edits"] == 1  # and the HP it changed is nobody's damage or healing:
        assert {c["id"]: (c["damage_dealt"], c["damage_taken"], c["healed"]) for c in stats["combatants"]} == dealt
        assert {"side": "GM", "source": "gm", "count": 1} in stats["sources"]
    with make_client(db) as client:  # a server started again on the file: the edit is there
        assert client.get(f"/api/sessions/{sid}").json()["revision"] == edited["revision"]
        again = {f["name"]: f["value"] for r in client.get(f"/api/sessions/{sid}/edits").json()["combatants"]
                 if r["id"] == cid for f in r["fields"]}
        assert again[name] == new
        undone = client.post(f"/api/sessions/{sid}/undo", json={})
        assert undone.status_code == 200 and undone.json()["state"]["decisions"] == state["decisions"]
        back = {f["name"]: f["value"] for r in client.get(f"/api/sessions/{sid}/edits").json()["combatants"]
                if r["id"] == cid for f in r["fields"]}
        assert back[name] == old


def test_taking_a_combatant_out_and_a_retried_edit_act_once(client: TestClient) -> None:
    state = start(client, "moonlit/skirmish")
    sid = state["id"]
    key = {"idempotency-key": "edit-ghoul-once"}
    answers = [client.post(f"/api/sessions/{sid}/edits", json={"combatant": "ghoul_2", "remove": True, "run": False},
                           headers=key) for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200] and answers[0].content == answers[1].content
    assert answers[1].headers["idempotent-replayed"] == "true"
    records = client.get(f"/api/sessions/{sid}/records").json()["records"]
    assert [r["text"] for r in records if r["source"] == "gm"] == ["GM: ghoul_2 is taken out (fled)"]
    assert records[-1]["source"] == "gm"
    ghoul = next(c for c in answers[0].json()["state"]["combatants"] if c["id"] == "ghoul_2")
    assert ghoul["status"] == "fled"
    deciding = state["pending"]["decision"]["actor"]
    r = client.post(f"/api/sessions/{sid}/edits", json={"combatant": deciding, "remove": True})
    assert r.status_code == 422 and "deciding now" in r.json()["message"] and r.json()["where"] == "combatant"
    empty = client.post(f"/api/sessions/{sid}/edits", json={"combatant": "ghoul_1"})
    assert empty.status_code == 422 and "give one of changes, remove: true, or add" in empty.json()["message"]


def test_an_edit_while_an_npc_is_thinking_answers_at_once_and_the_proposal_is_made_on_the_edited_state(
        tmp_path: Path) -> None:
    slow = "review:mcts:simulations=100000"  # searches until the server's agent time limit
    with cold_server(tmp_path / "s.db", "--agent-seconds", "3") as (base, _proc):
        made = httpx.post(f"{base}/api/sessions", json={"encounter": "moonlit/skirmish", "pc": slow, "npc": slow,
                                                  "ask_routine": True},
                          timeout=60)
        sid = made.json()["state"]["id"]
        url = f"{base}/api/sessions/{sid}"
        with connect(f"{base.replace('http', 'ws')}/api/sessions/{sid}/events") as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "hello"
            state = httpx.get(url, timeout=30).json()
            assert state["pending"]["thinking"] is True
            started = time.monotonic()
            edited = httpx.post(f"{url}/edits", json={"combatant": "ghoul_1", "changes": {"hp": 12}, "run": False,
                                                      "revision": state["revision"]}, timeout=30)
            assert edited.status_code == 200 and time.monotonic() - started < 2.0, edited.text
            after = edited.json()["state"]
            assert after["revision"] > state["revision"] and after["pending"]["thinking"] is True
            message = json.loads(ws.recv(timeout=30))
            while message["type"] != "proposal":
                message = json.loads(ws.recv(timeout=30))
            assert message["revision"] == after["revision"]  # the thought begun before the edit was dropped
        ready = httpx.get(url, timeout=30).json()
        assert ready["pending"]["proposal"] is not None and ready["revision"] == after["revision"]
        assert next(c for c in ready["combatants"] if c["id"] == "ghoul_1")["hp"] == 12


def test_a_combatant_is_added_like_another_or_from_an_uploaded_stat_block_and_refusals_name_the_field(
        client: TestClient) -> None:
    state = start(client, "investigator/skirmish")
    sid = state["id"]
    edits = client.get(f"/api/sessions/{sid}/edits").json()
    assert edits["place_key"] == "position"
    wall = client.post(f"/api/sessions/{sid}/edits", json={"combatant": "ghoul_2",
                                                           "add": {"like": "ghoul", "position": [6, 6]}})
    assert wall.status_code == 422 and wall.json()["where"] == "add" and "wall" in wall.json()["message"]
    taken = client.post(f"/api/sessions/{sid}/edits", json={"combatant": "ada", "add": {"like": "ghoul"}})
    assert taken.status_code == 422 and taken.json()["where"] == "add.id"
    added = client.post(f"/api/sessions/{sid}/edits", json={"combatant": "ghoul_2", "run": False,
                                                            "add": {"like": "ghoul", "position": [8, 2]}})
    assert added.status_code == 200, added.text
    assert added.json()["decisions"][0]["text"] == "GM: adds ghoul_2 (cult) like ghoul; it takes its turns from " \
                                                   "the next round"
    assert "ghoul_2" in {c["id"] for c in added.json()["state"]["combatants"]}
    # an uploaded stat block: a whole combatant entry, as an encounter file writes it
    block = next(c for c in load_encounter("investigator/skirmish").model_dump(mode="json")["combatants"]
                 if c["id"] == "knifeman")
    bad = client.post(f"/api/sessions/{sid}/edits", json={"combatant": "knifeman_2", "run": False,
                                                          "add": {**block, "position": [9, 2], "dex": -5}})
    assert bad.status_code == 422 and bad.json()["where"] == "add" and "dex" in bad.json()["message"]
    good = client.post(f"/api/sessions/{sid}/edits", json={"combatant": "knifeman_2", "run": False,
                                                           "add": {**block, "name": "Second knifeman",
                                                                   "position": [9, 2]}})
    assert good.status_code == 200, good.text
    joined = next(c for c in good.json()["state"]["combatants"] if c["id"] == "knifeman_2")
    assert joined["side"] == block["side"] and joined["name"] == "Second knifeman"


def test_can_remove_says_what_taking_out_would_do(client: TestClient) -> None:
    """`can_remove` is false for the combatant deciding (taking it out is refused then) and true for the others."""
    r = client.post("/api/sessions", json={"encounter": "moonlit/skirmish", "seed": 3, "pc": "human",
                                           "npc": "review:scripted"})
    state = r.json()["state"]
    deciding = state["pending"]["decision"]["actor"]
    rows = {row["id"]: row for row in client.get(f"/api/sessions/{state['id']}/edits").json()["combatants"]}
    assert rows[deciding]["can_remove"] is False
    refused = client.post(f"/api/sessions/{state['id']}/edits", json={"combatant": deciding, "remove": True})
    assert refused.status_code == 422 and "is deciding now" in refused.json()["message"], refused.text
    other = next(cid for cid, row in rows.items() if row["can_remove"])
    taken = client.post(f"/api/sessions/{state['id']}/edits", json={"combatant": other, "remove": True})
    assert taken.status_code == 200, taken.text


@pytest.mark.parametrize(("encounter", "field", "place"), [("kiai/skirmish", "hex", "5,5"),
                                                           ("kiai/skirmish", "position", "5,6"),
                                                           ("reincarnator/skirmish", "cell", "13,6")])
def test_a_new_combatants_square_may_be_written_as_the_fields_write_it(client: TestClient, encounter: str,
                                                                       field: str, place: str) -> None:
    """`"x,y"`, as `GET .../edits` shows a place, is taken for `add`'s place as `[x, y]` is."""
    state = start(client, encounter)
    original = next(v["id"] for v in client.get(f"/api/sessions/{state['id']}/edits").json()["combatants"]
                    if v["can_copy"])
    r = client.post(f"/api/sessions/{state['id']}/edits", json={"combatant": "newcomer",
                                                                 "add": {"like": original, field: place}})
    assert r.status_code == 200, r.text
