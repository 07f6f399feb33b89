"""Every agent computation of a tool call stays within the server's agent budget (``--agent-seconds``).

A seat's agent may think far longer than the budget (``mcts:time_limit=45``). Before, only a run of agent
decisions was bounded: the proposal a review seat's answer shows, the one get_pending or get_state shows
and the next open decision after a run were computed with no deadline, so start_session, confirm and every
call waiting behind them took 45 s, and a server whose client was gone went on thinking.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.mcp.client import CLI, Caller, stdio_caller

BUDGET = "1"  # seconds of agent work per call
SLOW = "mcts:simulations=100000:time_limit=45"  # a legal spec that thinks 45 s a decision
WITHIN = 10.0  # seconds a call may take on a loaded machine: the budget, loading a rule system, the answer


async def timed(c: Caller, tool: str, **args: Any) -> tuple[dict[str, Any], float]:
    start = time.perf_counter()
    out = await c.call(tool, **args)
    return out, time.perf_counter() - start


def test_review_seats_with_a_long_search_answer_within_the_budget(tmp_path: Path) -> None:
    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db", "--agent-seconds", BUDGET) as c:
            out, took = await timed(c, "start_session", encounter="kiai/duel", seed=3, pc=f"review:{SLOW}",
                                    npc=f"review:{SLOW}")
            state = out["state"]
            assert took < WITHIN and state["pending"]["proposal"] is not None, (took, state["pending"])

            async def reader() -> float:  # a call on the same session, behind the change
                await asyncio.sleep(0.3)
                return (await timed(c, "get_pending", session=state["id"]))[1]

            (changed, took), waited = await asyncio.gather(
                timed(c, "confirm", session=state["id"], revision=state["revision"]), reader())
            assert took < WITHIN and waited < WITHIN, (took, waited)
            assert changed["state"]["pending"]["proposal"] is not None  # the next review decision's, cut short

    asyncio.run(go())


def test_agent_seats_hand_back_and_the_next_call_computes_the_proposal(tmp_path: Path) -> None:
    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db", "--agent-seconds", BUDGET) as c:
            out, took = await timed(c, "start_session", encounter="kiai/duel", seed=3, pc=SLOW, npc=SLOW)
            state = out["state"]
            pending = state["pending"]
            assert took < WITHIN and state["decisions"] >= 1, (took, state["decisions"])
            # the budget went on the decisions taken: the open one is shown as still being thought about
            assert pending["thinking"] and pending["proposal"] is None, pending
            result = await c.session.call_tool("get_state", {"session": state["id"]})
            assert "still thinking" not in getattr(result.content[0], "text", "")  # a fresh budget: computed

            shown, took = await timed(c, "get_pending", session=state["id"])
            assert took < WITHIN and shown["pending"]["proposal"] is not None and not shown["pending"]["thinking"]
            ran, took = await timed(c, "run_agents", session=state["id"], revision=shown["revision"])
            assert took < WITHIN and ran["decisions"], took
            assert ran["decisions"][0]["action"] == shown["pending"]["proposal"]["action"]  # the proposal shown

    asyncio.run(go())


def message(request_id: int | None, method: str, params: dict[str, Any]) -> bytes:
    doc: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if request_id is not None:
        doc["id"] = request_id
    return (json.dumps(doc) + "\n").encode()


def test_a_server_whose_client_is_gone_stops_within_the_budget(tmp_path: Path) -> None:
    """The host is killed mid-call (its end of stdin closes): the server exits once the call's budget is spent."""
    server = subprocess.Popen([CLI, "mcp", "--db", str(tmp_path / "sessions.db"), "--agent-seconds", "2"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              env={**os.environ})
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(message(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                                     "clientInfo": {"name": "test", "version": "0"}}))
        server.stdin.write(message(None, "notifications/initialized", {}))
        server.stdin.write(message(2, "tools/call", {"name": "list_rulesets", "arguments": {}}))
        server.stdin.flush()
        while json.loads(server.stdout.readline()).get("id") != 2:  # the server is up and answering
            pass
        server.stdin.write(message(3, "tools/call", {"name": "start_session", "arguments": {
            "encounter": "kiai/duel", "seed": 3, "pc": f"review:{SLOW}", "npc": f"review:{SLOW}"}}))
        server.stdin.flush()
        time.sleep(0.5)  # the call is thinking
        gone = time.perf_counter()
        server.stdin.close()
        server.wait(timeout=30)
        assert time.perf_counter() - gone < 12, "the server went on thinking for a client that is gone"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
