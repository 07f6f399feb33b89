"""A client that plays a whole session through the API the way a table does: people choose, NPC proposals
are confirmed or overridden, and dice rolled at the table are typed in."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.server.quiet import settled


def faces_for(dice: dict[str, Any], rng: np.random.Generator) -> str:
    """Faces a person might read off the dice asked for."""
    if dice["what"] == "tens":
        return " ".join(str(10 * int(rng.integers(0, 10))) for _ in range(dice["count"]))
    return " ".join(str(int(rng.integers(1, dice["sides"] + 1))) for _ in range(dice["count"]))


def play_through(client: Any, sid: str, seed: int = 0, max_requests: int = 5000) -> dict[str, Any]:
    """Play session `sid` to the end over HTTP; returns counts of what was done and the final state."""
    rng = np.random.default_rng(seed)
    done = {"submitted": 0, "confirmed": 0, "overridden": 0, "dice": 0, "requests": 0}
    state = client.get(f"/api/sessions/{sid}").json()
    while not (state := settled(client, sid, state))["over"]:
        done["requests"] += 1
        assert done["requests"] < max_requests, "the combat does not end"
        p = state["pending"]
        if p["dice"] is not None:
            r = client.post(f"/api/sessions/{sid}/dice", json={"faces": faces_for(p["dice"], rng)})
            done["dice"] += 1
        elif p["seat"]["kind"] == "human":
            advice = client.post(f"/api/sessions/{sid}/proposal", json={}).json()["proposal"]
            r = client.post(f"/api/sessions/{sid}/actions", json={"index": advice["index"]})
            done["submitted"] += 1
        elif p["seat"]["kind"] == "review" and p["proposal"]["alternatives"] and rng.random() < 0.25:
            alt = p["proposal"]["alternatives"][0]
            r = client.post(f"/api/sessions/{sid}/override", json={"action": alt["action"]})
            done["overridden"] += 1
        elif p["seat"]["kind"] == "review":
            r = client.post(f"/api/sessions/{sid}/confirm", json={})
            done["confirmed"] += 1
        else:
            r = client.post(f"/api/sessions/{sid}/run", json={})
        assert r.status_code == 200, r.text
        state = r.json()["state"]
    return {**done, "state": state}
