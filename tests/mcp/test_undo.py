"""`undo` over MCP means what it means at the table and in the HTTP API: back to the last decision a person made."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.mcp.client import stdio_caller
from tests.server.conftest import make_client


def test_undo_reopens_the_persons_last_decision_and_takes_a_count_too(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"

    async def go() -> None:
        async with stdio_caller(db) as c:
            # the PC a person's, the NPC an agent's that plays on at once
            state = (await c.call("start_session", encounter="moonlit/duel", seed=4, pc="human", npc="scripted"))[
                "state"]
            assert state["pending"]["seat"]["kind"] == "human"
            for _ in range(10):  # the person acts until the agent answers (a turn may hold several decisions)
                before = state
                played = await c.call("submit_action", session=state["id"], revision=state["revision"],
                                      index=state["pending"]["legal_count"] - 1)  # not 'tries to escape'
                state = played["state"]
                sources = [d["source"] for d in played["decisions"]]
                if "agent" in sources:
                    break
            assert sources[0] == "human" and "agent" in sources[1:], sources

            # undo with no count: the agent's answers and the person's decision, as the HTTP API does
            undone = (await c.call("undo", session=state["id"], revision=played["state"]["revision"]))["state"]
            assert undone["decisions"] == before["decisions"]
            assert undone["pending"]["decision"] == before["pending"]["decision"]

            # a count takes back exactly that many (agents' included)
            played = await c.call("submit_action", session=undone["id"], revision=undone["revision"],
                                  index=undone["pending"]["legal_count"] - 1)
            one = (await c.call("undo", session=state["id"], revision=played["state"]["revision"],
                                decisions=1))["state"]
            assert one["decisions"] == played["state"]["decisions"] - 1

            # nothing taken yet: nothing to undo, said in one line
            fresh = (await c.call("start_session", encounter="moonlit/duel", run=False))["state"]
            nothing = await c.refused("undo", session=fresh["id"], revision=fresh["revision"])
            assert "nothing to undo" in nothing.text

            # the HTTP API's undo, on the same store, goes back to the same place
            with make_client(db) as http:
                r = http.post(f"/api/sessions/{state['id']}/undo", json={"revision": one["revision"]})
                assert r.status_code == 200, r.text
                assert r.json()["state"]["decisions"] == before["decisions"]

    asyncio.run(go())
