"""`trpg-arena mcp` over stdio, driven by the MCP SDK's client: whole combats of every rule system."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.conftest import SYSTEMS
from tests.mcp.client import full_log, percentiles, play_session, replay_in_python, stdio_caller
from trpg_arena.rules import load_encounter

TOOLS = {"list_rulesets", "validate_encounter", "start_session", "list_sessions", "get_state", "get_pending",
         "propose", "submit_action", "confirm", "override", "run_agents", "enter_dice", "cancel_dice", "undo",
         "get_log", "get_statistics"}


def test_every_system_played_to_the_end_over_stdio(tmp_path: Path) -> None:
    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db") as c:
            listed = await c.session.list_tools()
            assert TOOLS <= {t.name for t in listed.tools}
            assert all(t.input_schema.get("type") == "object" and t.description for t in listed.tools)
            for rid in SYSTEMS:
                encounter = f"{rid}/duel"
                side = load_encounter(encounter).sides()[0]
                sid, inputs, state = await play_session(c, encounter, seed=7, side=side)
                python = replay_in_python(encounter, 7, side, inputs)
                assert python.combat.over and python.combat.result == state["result"]
                assert await full_log(c, sid) == [e.to_json() for e in python.combat.log]
                stats = await c.call("get_statistics", session=sid)
                assert stats["over"] and stats["decisions"] == state["decisions"] == len(python.records)
            sessions = (await c.call("list_sessions"))["sessions"]
            assert sorted(s["status"] for s in sessions) == ["over"] * len(SYSTEMS)
            print("latency per tool call (calls, p50 ms, p95 ms):", percentiles(c.times))

    asyncio.run(go())


def test_propose_words_a_policys_attack_with_its_odds(tmp_path: Path) -> None:
    """An AI game master reads the proposal's text: a learned policy's attack comes with its odds in brackets."""
    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db") as c:
            state = (await c.call("start_session", encounter="moonlit/duel", seed=2, pc="review:scripted",
                                  npc="review:ppo"))["state"]
            sid = state["id"]
            for _ in range(40):
                result = await c.session.call_tool("propose", {"session": sid})
                text = getattr(result.content[0], "text", "")
                proposal = (result.structured_content or {})["proposal"]
                if proposal["odds"] is not None and "ppo" in text:
                    assert f"proposes #{proposal['index']}: {proposal['text']} [{proposal['odds']}] (" in text, text
                    return
                state = (await c.call("confirm", session=sid, revision=state["revision"]))["state"]
            raise AssertionError("the policy proposed no attack with odds")

    asyncio.run(go())
