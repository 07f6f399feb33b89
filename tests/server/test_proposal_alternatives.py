"""An NPC proposal read over HTTP names the other legal actions, even where the agent scored only one, and the odds
of its attacks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi.testclient import TestClient


def confirmed(client: TestClient, body: dict[str, Any], decisions: int) -> Iterator[dict[str, Any]]:
    """Each pending decision of a new session, up to `decisions` of them, its proposal confirmed after it is read."""
    state = client.post("/api/sessions", json=body).json()["state"]
    for _ in range(decisions):
        if state["over"]:
            return
        yield state["pending"]
        r = client.post(f"/api/sessions/{state['id']}/confirm", json={},
                        headers={"if-match": f'"{state["revision"]}"'})
        assert r.status_code == 200, r.text
        state = r.json()["state"]


def test_a_reincarnator_proposal_with_two_legal_actions_lists_the_other_one(client: TestClient) -> None:
    seen = 0
    body = {"encounter": "reincarnator/duel", "seed": 1, "pc": "scripted", "npc": "review:scripted"}
    for pending in confirmed(client, body, 12):
        assert pending["seat"]["kind"] == "review", pending["seat"]
        legal = [a for g in pending["groups"] for a in g["actions"]]
        proposal = pending["proposal"]
        if len(legal) == 2:
            seen += 1
            assert len(proposal["alternatives"]) == 1, proposal
            other = proposal["alternatives"][0]
            assert other["action"] != proposal["action"] and other["reason"] and other["text"]
    assert seen, "no NPC decision with exactly two legal actions was reached"


def test_a_ppo_proposal_carries_the_odds_of_its_attacks(client: TestClient) -> None:
    """A learned policy's reasons give only its probability; the proposal carries the attacks' odds beside them."""
    with_odds = 0
    body = {"encounter": "moonlit/duel", "seed": 2, "pc": "scripted", "npc": "review:ppo"}
    for pending in confirmed(client, body, 40):
        proposal = pending["proposal"]
        assert "odds" in proposal and all("odds" in a for a in proposal["alternatives"]), proposal
        for item in (proposal, *proposal["alternatives"]):
            if item["odds"] is not None:
                with_odds += 1
                assert "to hit" in item["odds"], item
    assert with_odds, "no proposed attack carried its odds"
