"""A session started over MCP is resumed in the terminal autopilot, and its decision is read back over MCP."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.experiments.test_autopilot import Gm
from tests.mcp.client import stdio_caller


def test_the_terminal_resumes_a_session_started_over_mcp(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"

    async def go() -> None:
        async with stdio_caller(db) as c:
            state = (await c.call("start_session", encounter="moonlit/duel", seed=2, pc="review:scripted",
                                  ask_routine=True,
                                  npc="review:scripted"))["state"]
            sid = state["id"]
            state = (await c.call("confirm", session=sid, revision=state["revision"], run=False))["state"]
            gm = Gm("--resume", sid, db=db, out=tmp_path / "out")
            try:
                assert gm.wait() == "confirm"
                assert f"resumed session {sid}" in gm.screen
                gm.answer_simply()  # the GM confirms the next proposal at the terminal
                gm.wait()  # the next prompt: the decision is stored
                pending = await c.call("get_pending", session=sid)
                assert pending["revision"] > state["revision"]
                assert (await c.call("get_state", session=sid))["decisions"] == 2
            finally:
                gm.child.terminate(force=True)

    asyncio.run(go())
