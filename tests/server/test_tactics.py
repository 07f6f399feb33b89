"""NPC temperaments over the HTTP API: given at start or changed mid-fight, shown in the state, followed by the
NPC's proposals, refused with a located 422, and kept when the server restarts on the same database.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from tests.server.conftest import make_client
from trpg_arena.rules import RULESETS


def _create(client: TestClient, encounter: str, **body: Any) -> dict[str, Any]:
    r = client.post("/api/sessions", json={"encounter": encounter, "seed": 2, "npc": "review:scripted"} | body)
    assert r.status_code == 201, r.text
    return r.json()["state"]


def _advance(client: TestClient, sid: str, state: dict[str, Any], wanted: Any, limit: int = 400) -> dict[str, Any]:
    """PCs take their first legal action, NPC proposals are confirmed, until `wanted(state)`."""
    for _ in range(limit):
        pending = state["pending"]
        assert pending is not None, "the combat ended first"
        if wanted(state):
            return state
        if pending["seat"]["kind"] == "human":
            r = client.post(f"/api/sessions/{sid}/actions", json={"index": pending["groups"][0]["actions"][0]["index"]})
        else:
            r = client.post(f"/api/sessions/{sid}/confirm", json={})
        assert r.status_code == 200, r.text
        state = r.json()["state"]
    raise AssertionError("never reached")


@pytest.mark.parametrize(("encounter", "npc", "target"), [
    ("investigator/skirmish", "ghoul", "walsh"), ("kiai/skirmish", "gorza", "mio"),
    ("moonlit/skirmish", "ghoul_1", "sayo"), ("reincarnator/skirmish", "rifleman", "wen")])
def test_a_focus_given_over_the_api_shows_and_steers_the_proposal(client: TestClient, encounter: str, npc: str,
                                                                  target: str) -> None:
    state = _create(client, encounter, pc="scripted", tactics={npc: {"focus": "casters"}})
    assert state["tactics"][npc] == {"focus": "casters", "summary": "focus casters"}

    def npc_may_hit_target(s: dict[str, Any]) -> bool:
        p = s["pending"]
        return (p["decision"]["actor"] == npc and p["proposal"] is not None
                and any(a["action"]["target"] == target for g in p["groups"] for a in g["actions"]))

    state = client.put(f"/api/sessions/{state['id']}/seats/pc", json={"seat": "human", "run": False}).json()["state"]
    found = _advance(client, state["id"], state, npc_may_hit_target)
    proposal = found["pending"]["proposal"]
    pcs = {c["id"] for c in found["combatants"] if c["kind"] == "pc"}
    aimed = proposal["action"]["target"]
    assert aimed not in pcs or aimed == target, proposal  # an attack on a PC goes to the caster
    if proposal["action"]["target"] == target:
        assert "focus casters" in proposal["reasons"][0], proposal["reasons"]


def test_a_side_takes_one_temperament_and_a_combatant_its_own(client: TestClient) -> None:
    state = _create(client, "kiai/skirmish", run=False, tactics={"raiders": {"aggression": "reckless",
                                                                            "protect": "gorza"},
                                                                "shaman": {"aggression": "cautious"}})
    summaries = {cid: t["summary"] for cid, t in state["tactics"].items()}
    assert summaries == {"gorza": "reckless", "goblin_a": "reckless, protects gorza",
                         "goblin_b": "reckless, protects gorza", "shaman": "cautious"}


def test_tactics_change_mid_fight_and_survive_a_restart(client: TestClient, db: Any) -> None:
    state = _create(client, "kiai/skirmish", pc="scripted", run=True)
    sid = state["id"]
    r = client.put(f"/api/sessions/{sid}/tactics/goblin_a", json={"tactics": {"morale": "40%", "aggression": "bold"},
                                                                "run": False})
    assert r.status_code == 200, r.text
    assert r.json()["state"]["tactics"]["goblin_a"]["summary"] == "bold, flees below 40 % HP"
    with make_client(db) as again:
        assert again.get(f"/api/sessions/{sid}").json()["tactics"]["goblin_a"]["morale"] == 0.4
    r = client.put(f"/api/sessions/{sid}/tactics/goblin_a", json={"tactics": None, "run": False})
    assert "goblin_a" not in r.json()["state"]["tactics"]


@pytest.mark.parametrize(("body", "where"), [
    ({"gorza": {"focus": "nobody"}}, "tactics.gorza.focus: focus 'nobody' is neither"),
    ({"gorza": {"protect": "mio"}}, "tactics.gorza.protect: protect 'mio' is on side 'wanderers'"),
    ({"gorza": {"morale": 3}}, "tactics.gorza.morale: morale 3 is outside 0..1"),
    ({"gorza": {"aggression": "wild"}}, "tactics.gorza.aggression: Input should be 'reckless'"),
    ({"nobody": {"aggression": "bold"}}, "tactics.nobody: 'nobody' names no side or combatant"),
    ({"raiders": {"focus": "shaman"}}, "tactics.raiders.focus: focus 'shaman' is on gorza's own side 'raiders': "
                                       "name an enemy (for gorza)"),
])
def test_wrong_tactics_are_a_located_422_and_nothing_is_stored(client: TestClient, body: dict[str, Any],
                                                               where: str) -> None:
    before = len(client.get("/api/sessions").json()["sessions"])
    r = client.post("/api/sessions", json={"encounter": "kiai/skirmish", "tactics": body})
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "invalid_tactics" and where in r.json()["message"], r.json()
    assert len(client.get("/api/sessions").json()["sessions"]) == before


def test_an_encounter_upload_with_a_tactics_block_is_validated_with_its_place(client: TestClient) -> None:
    data = yaml.safe_load((RULESETS["kiai"].info.data_dir / "encounters" / "skirmish.yaml").read_text())
    gorza = next(c for c in data["combatants"] if c["id"] == "gorza")
    gorza["tactics"] = {"focus": "casters", "protect": "goblin_a"}
    r = client.post("/api/encounters/validate", json={"encounter_text": yaml.safe_dump(data), "filename": "raid.yaml"})
    assert r.status_code == 200, r.text
    gorza["tactics"] = {"focus": "the_mage"}
    r = client.post("/api/encounters/validate", json={"encounter_text": yaml.safe_dump(data),
                                                       "filename": "raid.yaml"})
    assert r.status_code == 422
    assert "tactics.focus" in r.text and "gorza" in r.text
