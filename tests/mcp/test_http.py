"""`trpg-arena mcp --http`: the streamable HTTP transport, loopback by default, a token beyond it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx2 as httpx
import pytest

from tests.mcp.client import full_log, percentiles, play_session, replay_in_python
from tests.mcp.http import http_caller, mcp_http
from tests.mcp.test_stdio import TOOLS


def test_a_combat_played_over_streamable_http(tmp_path: Path) -> None:
    async def go(url: str) -> None:
        async with http_caller(url) as c:
            assert TOOLS <= {t.name for t in (await c.session.list_tools()).tools}
            sid, inputs, state = await play_session(c, "moonlit/duel", seed=11, side="A")
            python = replay_in_python("moonlit/duel", 11, "A", inputs)
            assert await full_log(c, sid) == [e.to_json() for e in python.combat.log]
            assert state["result"] == python.combat.result
            print("latency per tool call over HTTP (calls, p50 ms, p95 ms):", percentiles(c.times))

    with mcp_http(tmp_path / "sessions.db") as (url, first):
        assert url in first
        asyncio.run(go(url))


@pytest.mark.parametrize("given", [True, False])
def test_beyond_loopback_every_request_needs_the_token(tmp_path: Path, given: bool) -> None:
    env = {"TRPG_ARENA_TOKEN": "s3cret-token"} if given else {}
    with mcp_http(tmp_path / "sessions.db", "--host", "0.0.0.0", env=env) as (url, first):
        token = "s3cret-token" if given else first.split("token:")[1].split()[0]
        assert ("token:" in first) is not given  # generated and printed only when none was given
        hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "t", "version": "1"}}}
        headers = {"accept": "application/json, text/event-stream"}
        refused = httpx.post(url, json=hello, headers=headers, timeout=10)
        assert refused.status_code == 401 and refused.json()["error"]
        wrong = httpx.post(url, json=hello, headers={**headers, "authorization": "Bearer nope"}, timeout=10)
        assert wrong.status_code == 401

        async def go() -> None:
            async with http_caller(url, token) as c:
                assert TOOLS <= {t.name for t in (await c.session.list_tools()).tools}

        asyncio.run(go())
