"""Adding a combatant like another over HTTP: any the encounter describes, a reinforcement in reserve or arrived.

A moonlit summon has no entry to copy (it is made from its summoner's skill): ``like`` it is refused saying so, and
``GET .../edits`` says which combatants can be copied (``can_copy``), so the page offers no copy of a summon.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

import trpg_arena.rules

SKIRMISH = Path(trpg_arena.rules.__file__).parent / "reincarnator" / "encounters" / "skirmish.yaml"
# a raider held back until round 2: in reserve from the start (the GM's own additions in the surprise round join
# at once, so a reinforcement in reserve comes from the file)
SK9 = ("reinforcements:\n  - round: 2\n    combatants:\n      - {id: sk9, side: raiders, attributes: {str: 3, dex: 4, "
       "int: 2, com: 3, sta: 2}, size: 5, skills: {martial: 2, athletics: 2}, base_defense: 3, dodge_defense: 1, "
       "base_initiative: 7, speed_m: 12, position: [15, 11]}\n")


def with_reserve() -> str:
    """reincarnator/skirmish as a file whose raider `sk9` waits in reserve until round 2."""
    text = SKIRMISH.read_text(encoding="utf-8")
    assert "reinforcements: []\n" in text
    return text.replace("reinforcements: []\n", SK9)


def _edit(client: TestClient, sid: str, body: dict[str, Any]) -> Any:
    return client.post(f"/api/sessions/{sid}/edits", json={**body, "run": False})


def _can_copy(client: TestClient, sid: str) -> dict[str, bool]:
    return {row["id"]: row["can_copy"] for row in client.get(f"/api/sessions/{sid}/edits").json()["combatants"]}


def test_a_reinforcement_in_reserve_or_arrived_can_be_copied(client: TestClient) -> None:
    sid = client.post("/api/sessions", json={"encounter_text": with_reserve(), "seed": 9, "pc": "human",
                                             "npc": "human", "run": False}).json()["state"]["id"]
    assert _can_copy(client, sid)["sk9"] is True
    r = _edit(client, sid, {"combatant": "sk3", "add": {"like": "sk9", "position": [6, 5]}})  # sk9 in reserve
    assert r.status_code == 200, r.text
    rows = {c["id"]: c for c in r.json()["state"]["combatants"]}
    assert rows["sk9"]["status"] == "reserve" and rows["sk3"]["place"] == "6,5"
    assert r.json()["events"][-1]["text"].startswith("GM: adds sk3 (raiders) like sk9")
    assert _edit(client, sid, {"combatant": "sk4", "add": {"like": "sk3", "position": [7, 5]}}).status_code == 200


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
