"""An NPC proposal read over HTTP names the other legal actions, even where the agent scored only one."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_a_reincarnator_proposal_with_two_legal_actions_lists_the_other_one(client: TestClient) -> None:
    state = client.post("/api/sessions", json={"encounter": "reincarnator/duel", "seed": 1, "pc": "scripted",
                                               "npc": "review:scripted"}).json()["state"]
    sid, seen = state["id"], 0
    for _ in range(12):
        if state["over"]:
            break
        pending = state["pending"]
        assert pending["seat"]["kind"] == "review", pending["seat"]
        legal = [a for g in pending["groups"] for a in g["actions"]]
        proposal = pending["proposal"]
        if len(legal) == 2:
            seen += 1
            assert len(proposal["alternatives"]) == 1, proposal
            other = proposal["alternatives"][0]
            assert other["action"] != proposal["action"] and other["reason"] and other["text"]
        r = client.post(f"/api/sessions/{sid}/confirm", json={}, headers={"if-match": f'"{state["revision"]}"'})
        assert r.status_code == 200, r.text
        state = r.json()["state"]
    assert seen, "no NPC decision with exactly two legal actions was reached"
