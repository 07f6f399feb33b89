"""A refused seat names the field it was sent in: an unknown agent carried no `where` at all.

A seat changed over ``PUT .../seats/{key}`` is sent as `seat`; a new session's as `pc`, `npc` or `seats.<key>`,
a proposal's agent as `agent`. (MCP names the same: tests/mcp/test_seat_fields.py.)
"""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_a_seat_changed_to_an_unknown_agent_names_the_field(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={"encounter": "moonlit/duel", "run": False}).json()["state"]["id"]
    for seat, kind in (("review:nosuch", "unknown_agent"), ("mcts:nosuchpreset", "unknown_agent"),
                       ("mcts::hard", "unknown_agent"), ("trained:model=/etc/passwd", "seat_not_allowed")):
        r = client.put(f"/api/sessions/{sid}/seats/npc", json={"seat": seat, "run": False})
        assert r.status_code == 422 and r.json()["error"] == kind, r.text
        assert r.json()["where"] == "seat", (seat, r.json())



def test_a_session_or_proposal_refused_for_its_agent_names_the_field_sent(client: TestClient) -> None:
    for body, where in (({"npc": "trained:model=/etc/passwd"}, "npc"), ({"pc": "review:nosuch"}, "pc"),
                        ({"seats": {"ghoul": "mcts:value=/etc/passwd"}}, "seats.ghoul")):
        r = client.post("/api/sessions", json={"encounter": "moonlit/duel", "run": False, **body})
        assert r.status_code == 422 and r.json()["where"] == where, (body, r.text)
    sid = client.post("/api/sessions", json={"encounter": "moonlit/duel", "run": False}).json()["state"]["id"]
    r = client.post(f"/api/sessions/{sid}/proposal", json={"agent": "mcts:value=/etc/passwd"})
    assert r.status_code == 422 and r.json()["where"] == "agent", r.text
