"""The short lines MCP tools answer read as English: counts of one, a plain statistics line, an agent's reasons.

``1 sessions: ...``; get_statistics mid-fight answered raw JSON (``{"over": false, "decisions": 1}``); an mcts
proposal said "the scripted policy would moves toward B_front" (an action's words are a phrase of their own).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from mcp.types import TextContent

from tests.mcp.client import Caller, stdio_caller


async def text_of(c: Caller, tool: str, **args: object) -> str:
    result = await c.session.call_tool(tool, args)
    assert not result.is_error and isinstance(result.content[0], TextContent)
    return result.content[0].text


def test_short_lines_read_as_english(tmp_path: Path) -> None:
    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db") as c:
            assert await text_of(c, "list_sessions") == "0 sessions"
            sid = (await c.call("start_session", encounter="moonlit/duel", seed=1, pc="human",
                                npc="scripted"))["state"]["id"]
            assert re.fullmatch(rf"1 session: {sid} duel \(running\)", await text_of(c, "list_sessions"))
            line = await text_of(c, "get_statistics", session=sid)
            assert re.fullmatch(r"so far after 1 decision in 1 round: side A: 0 damage dealt, 0 taken, 0 foes taken "
                                r"out, 1 of 1 standing; side B: .*standing", line), line
            done = (await c.call("start_session", encounter="moonlit/duel", seed=1, pc="scripted",
                                 npc="scripted"))["state"]
            line = await text_of(c, "get_statistics", session=done["id"])
            assert line.startswith(f"final (draw) after {done['decisions']} decisions in ") and "\n" not in line, line

            reasons = []
            state = (await c.call("start_session", encounter="moonlit/duel", seed=0, pc="scripted", npc="scripted",
                                  run=False))["state"]
            for _ in range(4):
                reasons += (await c.call("propose", session=state["id"], agent="mcts:easy"))["proposal"]["reasons"]
                state = (await c.call("run_agents", session=state["id"], revision=state["revision"],
                                      max_decisions=1))["state"]
            anchors = [r for r in reasons if r.startswith("the scripted policy")]
            assert any(r.startswith("the scripted policy's choice: ") for r in anchors), reasons
            assert not any(" would " in r for r in anchors), anchors

    asyncio.run(go())
