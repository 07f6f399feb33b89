"""Whole combats of every rule system played through HTTP only: people, NPC proposals, dice typed in."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import SYSTEMS
from tests.server.table import play_through
from trpg_arena.table.session import Session
from trpg_arena.table.stats import session_stats
from trpg_arena.table.store import SessionStore


@pytest.mark.parametrize("rid", SYSTEMS)
def test_whole_combat_over_http(client: TestClient, db: Path, rid: str) -> None:
    encounter = f"{rid}/duel"
    sides = client.post("/api/encounters/validate", json={"encounter": encounter}).json()["sides"]
    # the first side is played by people rolling their own dice (kiai's duel has no PCs), the other reviewed
    r = client.post("/api/sessions", json={"encounter": encounter, "seed": 5, "seats": {sides[0]: "human+dice"},
                                           "pc": "review:scripted", "npc": "review:scripted"})
    assert r.status_code == 201, r.text
    sid = r.json()["state"]["id"]
    out = play_through(client, sid, seed=5)
    final = out["state"]
    assert final["over"] and final["result"] is not None and final["pending"] is None
    records = client.get(f"/api/sessions/{sid}/records").json()["records"]
    sources = {r["source"] for r in records}
    assert {"human", "confirmed"} <= sources
    assert out["submitted"] + out["confirmed"] + out["overridden"] <= len(records)
    assert sum(r["source"] == "override" for r in records) == out["overridden"]
    assert out["dice"] > 0 and any(r["faces"] for r in records)
    stats = client.get(f"/api/sessions/{sid}/statistics").json()
    assert stats["over"] and stats["decisions"] == len(records)
    assert sum(s["damage_taken"] for s in stats["sides"]) > 0
    # the page shows the numbers the terminal autopilot prints for the same stored session
    store = SessionStore(db)
    try:
        report = session_stats(Session.load(store, sid)).to_json()
    finally:
        store.close()
    assert [(c["id"], c["damage_dealt"], c["damage_taken"], c["healed"], c["hits"]) for c in stats["combatants"]] \
        == [(f["id"], f["dealt"], f["taken"], f["healed"], f["hits"]) for f in report["fighters"]]
    assert stats["by_source_and_target"] == report["by_source_and_target"] and stats["falls"] == report["falls"]
    listed = client.get("/api/sessions").json()["sessions"]
    assert [(s["id"], s["status"], s["decisions"]) for s in listed] == [(sid, "over", len(records))]
