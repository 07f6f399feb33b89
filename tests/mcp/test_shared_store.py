"""One store for every surface: a session started over MCP is played in the HTTP server, and back."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.conftest import SYSTEMS
from tests.mcp.client import stdio_caller
from tests.server.conftest import make_client

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_a_session_started_over_mcp_is_played_from_the_http_server_and_back(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"

    async def go() -> None:
        async with stdio_caller(db) as c:
            started = (await c.call("start_session", encounter="moonlit/duel", seed=3, pc="review:scripted",
                                    ask_routine=True,
                                    npc="review:scripted"))["state"]
            sid, rev = started["id"], started["revision"]
            with make_client(db) as http:
                assert [s["id"] for s in http.get("/api/sessions").json()["sessions"]] == [sid]
                seen = http.get(f"/api/sessions/{sid}").json()
                assert seen["revision"] == rev and seen["pending"] == started["pending"]
                r = http.post(f"/api/sessions/{sid}/confirm", json={"revision": rev, "run": False})
                assert r.status_code == 200, r.text
                there = r.json()["state"]

                # the MCP client sees the decision taken in the browser's API, and its old revision is stale
                pending = await c.call("get_pending", session=sid)
                assert pending["revision"] == there["revision"] > rev and pending["pending"] == there["pending"]
                stale = await c.refused("confirm", session=sid, revision=rev)
                assert stale.doc["error"] == "stale_revision" and stale.doc["state"]["decisions"] == 1
                here = (await c.call("confirm", session=sid, revision=there["revision"], run=False))["state"]

                # and the HTTP server sees the one taken over MCP
                back = http.get(f"/api/sessions/{sid}").json()
                assert back["revision"] == here["revision"] and back["decisions"] == 2
                records = http.get(f"/api/sessions/{sid}/records").json()["records"]
                assert [r["source"] for r in records] == ["confirmed", "confirmed"]

            # resources: the rules references and the session's state; the NPC assistant prompt
            uris = {str(r.uri) for r in (await c.session.list_resources()).resources}
            assert {f"trpg-arena://rules/{rid}" for rid in SYSTEMS} <= uris
            rules = await c.session.read_resource("trpg-arena://rules/moonlit")
            assert getattr(rules.contents[0], "text", None) == (DOCS / "rules" / "moonlit.md").read_text()
            state = await c.session.read_resource(f"trpg-arena://sessions/{sid}")
            assert json.loads(getattr(state.contents[0], "text", "{}"))["revision"] == here["revision"]
            prompt = await c.session.get_prompt("npc_assistant", {"session": sid})
            text = getattr(prompt.messages[0].content, "text", "")
            assert sid in text and "propose" in text and "wait for the gm" in text.lower()

            # agent seats play on with run_agents, and the whole combat is read back as it was taken
            bots = (await c.call("start_session", encounter="moonlit/duel", seed=5, pc="scripted", npc="scripted",
                                 run=False))["state"]
            assert bots["decisions"] == 0
            ran = await c.call("run_agents", session=bots["id"], revision=bots["revision"])
            assert ran["state"]["over"] and len(ran["decisions"]) == ran["state"]["decisions"] > 0
            assert {d["source"] for d in ran["decisions"]} == {"agent"}

    asyncio.run(go())
