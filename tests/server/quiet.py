"""Waiting over HTTP for a session's agents to come to rest.

A request answers after a short wait even while an agent is still thinking, or a run it started is still
deciding (the state then says ``thinking``; the WebSocket tells when the proposal is ready). On a busy
machine that happens between any two decisions, so a test that needs the end of a run waits for it here.
"""

from __future__ import annotations

import time
from typing import Any


def settled(client: Any, sid: str, state: dict[str, Any], base: str = "", seconds: float = 120) -> dict[str, Any]:
    """The state of session `sid` once no agent is thinking (`state` if none is now).

    `client`: anything with ``get(url)`` (a test client, or the ``httpx`` module with `base` the server's URL).
    """
    give_up = time.monotonic() + seconds
    while state["pending"] is not None and state["pending"]["thinking"]:
        assert time.monotonic() < give_up, f"the agents of session {sid} are still thinking after {seconds} s"
        time.sleep(0.05)
        state = client.get(f"{base}/api/sessions/{sid}").json()
    return state
