"""Adding a combatant like another over HTTP: any the encounter describes, a reinforcement in reserve or arrived.

A moonlit summon has no entry to copy (it is made from its summoner's skill): ``like`` it is refused saying so, and
``GET .../edits`` says which combatants can be copied (``can_copy``), so the page offers no copy of a summon.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient


def _edit(client: TestClient, sid: str, body: dict[str, Any]) -> Any:
    return client.post(f"/api/sessions/{sid}/edits", json={**body, "run": False})


def _can_copy(client: TestClient, sid: str) -> dict[str, bool]:
    return {row["id"]: row["can_copy"] for row in client.get(f"/api/sessions/{sid}/edits").json()["combatants"]}


def test_a_reinforcement_in_reserve_or_arrived_can_be_copied(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={"encounter": "reincarnator/skirmish", "seed": 9, "pc": "human",
                                             "npc": "human", "run": False}).json()["state"]["id"]
    assert _edit(client, sid, {"combatant": "sk2", "add": {"like": "skulker", "position": [5, 5]}}).status_code == 200
    assert _can_copy(client, sid)["sk2"] is True
    r = _edit(client, sid, {"combatant": "sk3", "add": {"like": "sk2", "position": [6, 5]}})  # sk2 in reserve
    assert r.status_code == 200, r.text
    rows = {c["id"]: c for c in r.json()["state"]["combatants"]}
    assert rows["sk3"]["status"] == "reserve" and rows["sk3"]["place"] == "6,5"
    assert r.json()["events"][-1]["text"].startswith("GM: adds sk3 (raiders) like sk2")


def test_a_summon_cannot_be_copied_and_says_so(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={"encounter": "moonlit/brawl", "seed": 9, "pc": "human", "npc": "human",
                                             "run": False}).json()["state"]["id"]
    copyable = _can_copy(client, sid)
    assert copyable["ghoul_1"] is True and copyable["aoi.puppet"] is False
    r = _edit(client, sid, {"combatant": "p2", "add": {"like": "aoi.puppet", "zone": "A_rear"}})
    assert r.status_code == 422 and r.json()["where"] == "add.like", r.text
    assert "aoi.puppet is a summon" in r.json()["message"] and "ghoul_1" in r.json()["message"]
    assert _edit(client, sid, {"combatant": "ghoul_4", "add": {"like": "ghoul_1"}}).status_code == 200
    assert _can_copy(client, sid)["ghoul_4"] is True  # an arrival the GM added: described in the encounter now


def test_an_unknown_agent_lists_only_the_agents_a_request_may_seat(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={"encounter": "investigator/skirmish", "seed": 9, "run": False}
                      ).json()["state"]["id"]
    for answer in (client.put(f"/api/sessions/{sid}/seats/cult", json={"seat": "genius"}),
                   client.post("/api/sessions", json={"encounter": "investigator/skirmish", "npc": "review:genius"})):
        assert answer.status_code == 422 and answer.json()["error"] == "unknown_agent", answer.text
        known = answer.json()["message"].split("known: ", 1)[1]
        assert "scripted" in known and "policy" not in known, answer.text
