"""The statistics chart counts a side's HP of those in the fight: a puppet never summoned counts for nothing, one
who fled (or was taken out by the GM) no longer has its HP counted, so a side that is gone reaches 0."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_a_side_all_taken_out_reaches_zero_and_its_absent_puppets_never_count(client: TestClient) -> None:
    r = client.post("/api/sessions", json={"encounter": "moonlit/skirmish", "seed": 2, "pc": "human",
                                           "npc": "review:scripted", "run": False})
    state = r.json()["state"]
    sid = state["id"]
    side_b = [c for c in state["combatants"] if c["side"] == "B"]
    present = [c for c in side_b if c["status"] != "absent"]
    assert {c["id"] for c in side_b} - {c["id"] for c in present} == {"puppeteer.puppet",
                                                                        "puppeteer.dragon_tooth_soldier"}
    for c in present:  # the GM takes every one of side B out of the fight (it counts as having fled)
        edit = client.post(f"/api/sessions/{sid}/edits", json={"combatant": c["id"], "remove": True, "run": False})
        if edit.status_code == 422 and "deciding now" in edit.json()["message"]:
            client.post(f"/api/sessions/{sid}/confirm", json={"run": False})
            edit = client.post(f"/api/sessions/{sid}/edits", json={"combatant": c["id"], "remove": True,
                                                                   "run": False})
        assert edit.status_code == 200, edit.text
    stats = client.get(f"/api/sessions/{sid}/statistics").json()
    assert stats["over"] and stats["result"] == "A"
    first, last = stats["timeline"][0], stats["timeline"][-1]
    assert first["hp"]["B"] == sum(c["hp"] for c in present)  # the puppets not yet summoned are not there
    assert last["hp"]["B"] == 0 and last["share"]["B"] == 0.0
    assert last["share"]["A"] == 1.0
