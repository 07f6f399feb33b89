"""One side's dice by hand over the HTTP API: the table is asked for that side's rolls, in whoever's decision.

Every seat is an agent and the cult's rolls are typed (``cult: scripted+dice``): the table stops only for dice,
each request names a cult combatant, and the cult's dice in the log are exactly the faces typed, in order (the
brute's attack roll when ada dodges included; no investigator's roll when a cultist decides).
"""

from __future__ import annotations

import random

from fastapi.testclient import TestClient

from tests.dice_entries import log_dice, typed_faces
from tests.server.quiet import settled


def test_a_sides_rolls_are_asked_for_in_every_decision_and_no_other_roll(client: TestClient) -> None:
    r = client.post("/api/sessions", json={"encounter": "investigator/skirmish", "seed": 4, "pc": "scripted",
                                           "npc": "scripted", "seats": {"cult": "scripted+dice"}})
    assert r.status_code == 201, r.text
    state = r.json()["state"]
    sid = state["id"]
    side = {c["id"]: c["side"] for c in state["combatants"]}
    opening = client.get(f"/api/sessions/{sid}/log").json()["next"]  # set-up rolls: before any decision
    rng = random.Random(4)
    typed_all: list[int] = []
    deciders: set[str] = set()
    while (state := settled(client, sid, state))["pending"] is not None:
        request = state["pending"]["dice"]
        assert request is not None, f"an all-agent table stopped without asking for dice: {state['pending']}"
        assert side.get(request["roller"]) == "cult", request["text"]
        deciders.add(side[state["pending"]["decision"]["actor"]])
        typed, faces = typed_faces(request, rng)
        typed_all += faces
        r = client.post(f"/api/sessions/{sid}/dice", json={"faces": typed})
        assert r.status_code == 200, r.text
        state = r.json()["state"]
    assert "investigators" in deciders, "no cult roll was asked for in an investigator's decision"
    events = client.get(f"/api/sessions/{sid}/log", params={"limit": 5000}).json()["events"]
    cult_dice = [face for ev in events if ev["seq"] >= opening and side.get(ev["actor"] or "") == "cult"
                 for face in log_dice(ev["data"])]
    assert cult_dice == typed_all, "the cult's dice in the log are not the faces typed, in order"
