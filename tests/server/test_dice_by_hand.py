"""Dice typed by hand over the HTTP API: every prompt names its roll and its roller, and the log shows the faces typed.

A whole combat of every rule system is played with the table's dice on and every seat an agent: each die
the engine needs is asked for, answered with random valid faces, and afterwards the log's dice are read
back in order and matched to the entries, roll by roll.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.dice_entries import log_dice, typed_faces
from tests.server.conftest import make_client
from tests.server.quiet import settled
from trpg_arena.rules import RULESETS
from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore

SYSTEMS = sorted(r for r in RULESETS if not r.startswith("_"))


@pytest.mark.parametrize("rid", SYSTEMS)
def test_a_whole_combat_by_hand_names_every_roll_and_logs_the_faces_typed(client: TestClient, rid: str) -> None:
    r = client.post("/api/sessions", json={"encounter": f"{rid}/skirmish", "seed": 11, "pc": "scripted",
                                           "npc": "scripted", "table_dice": True})
    assert r.status_code == 201, r.text
    sid = r.json()["state"]["id"]
    state = r.json()["state"]
    # what the rules roll while the combat is set up (investigator's opening tie-breaks) comes before any
    # decision can wait for dice: the program rolls it
    opening = client.get(f"/api/sessions/{sid}/log").json()["next"]
    rng = random.Random(rid)
    entries: list[tuple[dict[str, Any], list[int]]] = []
    while (state := settled(client, sid, state))["pending"] is not None:
        request = state["pending"]["dice"]
        assert request is not None, f"an all-agent table stopped without asking for dice: {state['pending']}"
        assert request["roller"] and request["purpose"], f"a roll asked for without naming it: {request['text']}"
        assert request["text"].startswith(f"{request['roller']} rolls {request['die']} for {request['purpose']}")
        typed, faces = typed_faces(request, rng)
        entries.append((request, faces))
        r = client.post(f"/api/sessions/{sid}/dice", json={"faces": typed})
        assert r.status_code == 200, r.text
        state = r.json()["state"]
    assert len(entries) > 10
    events = client.get(f"/api/sessions/{sid}/log", params={"limit": 5000}).json()["events"]
    shown = [(face, ev) for ev in events if ev["seq"] >= opening for face in log_dice(ev["data"])]
    typed_all = [(face, request) for request, faces in entries for face in faces]
    assert [f for f, _ in shown] == [f for f, _ in typed_all], "the log's dice are not the faces typed, in order"
    for (_, ev), (_, request) in zip(shown, typed_all):
        roller = request["roller"].removeprefix("side ")
        assert ev["actor"] == roller or roller in ev["text"], (request["text"], ev["text"])
    records = client.get(f"/api/sessions/{sid}/records").json()["records"]
    assert sum(len(rec["faces"]) for rec in records) == len(typed_all)


def test_switching_table_dice_off_while_a_roll_waits_keeps_the_faces_typed(client: TestClient, db: Path) -> None:
    r = client.post("/api/sessions", json={"encounter": "moonlit/duel", "seed": 3, "pc": "scripted",
                                           "npc": "scripted", "table_dice": True})
    sid = r.json()["state"]["id"]
    first = settled(client, sid, r.json()["state"])["pending"]["dice"]
    assert first["roller"] == "kei" and "action points" in first["purpose"]
    r = client.post(f"/api/sessions/{sid}/dice", json={"faces": "6 5"})
    second = settled(client, sid, r.json()["state"])["pending"]["dice"]
    assert r.json()["decisions"] == [] and second["roller"] != "kei", "the same decision asks for the next roll"
    r = client.put(f"/api/sessions/{sid}/table-dice", json={"on": False, "run": False})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["state"]["pending"] is None or body["state"]["pending"]["dice"] is None, "the prompt is gone"
    [decision] = body["decisions"]
    assert decision["faces"] == [[6, 6], [6, 5]] and not decision["by_hand"]
    kei_ap = next(e for e in body["events"] if e["kind"] == "ap_set" and e["actor"] == "kei")
    assert kei_ap["data"]["dice"] == [6, 5]
    other_ap = next(e for e in body["events"] if e["kind"] == "ap_set" and e["actor"] == second["roller"])
    assert len(other_ap["data"]["dice"]) == 2  # rolled by the program
    assert client.delete(f"/api/sessions/{sid}/dice").status_code == 409  # nothing waits any more
    log = client.get(f"/api/sessions/{sid}/log").json()["events"]
    store = SessionStore(db)  # a resumed session replays the same faces: the same log
    try:
        resumed = Session.load(store, sid)
        assert [e.to_json() for e in resumed.combat.log] == log
    finally:
        store.close()


def test_a_restarted_server_asks_a_routine_answers_dice_again(db: Path) -> None:
    """It put moonlit's 'try to escape, or stay?' to a person: the routine answer was waiting for its dice (held in
    memory only) when the server stopped, and the page asked the question the table answers itself."""
    with make_client(db) as client:
        r = client.post("/api/sessions", json={"encounter": "moonlit/duel", "seed": 4, "pc": "human",
                                               "npc": "scripted", "table_dice": True})
        sid = r.json()["state"]["id"]
        before = settled(client, sid, r.json()["state"])["pending"]
        assert before["dice"] is not None and before["dice"]["context"] == "kei: stays", before  # the AP to roll
    with make_client(db) as client:  # a new process: nothing in memory
        after = settled(client, sid, client.get(f"/api/sessions/{sid}").json())["pending"]
        assert after["dice"] is not None, after
        assert after["dice"] == before["dice"], after
