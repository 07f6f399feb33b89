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


def test_a_ppo_proposal_carries_the_odds_of_its_attacks(client: TestClient) -> None:
    """A learned policy's reasons give only its probability; the proposal carries the attacks' odds beside them."""
    state = client.post("/api/sessions", json={"encounter": "moonlit/duel", "seed": 2, "pc": "scripted",
                                               "npc": "review:ppo"}).json()["state"]
    sid, with_odds = state["id"], 0
    for _ in range(40):
        if state["over"]:
            break
        proposal = state["pending"]["proposal"]
        assert "odds" in proposal and all("odds" in a for a in proposal["alternatives"]), proposal
        shown = [proposal, *proposal["alternatives"]]
        for item in shown:
            if item["odds"] is not None:
                with_odds += 1
                assert "to hit" in item["odds"], item
        r = client.post(f"/api/sessions/{sid}/confirm", json={}, headers={"if-match": f'"{state["revision"]}"'})
        assert r.status_code == 200, r.text
        state = r.json()["state"]
    assert with_odds, "no proposed attack carried its odds"
