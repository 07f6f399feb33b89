"""An MCP refusal of a seat or an agent names the argument it was sent in, as `where` and in its message.

``npc: trained:model=/etc/passwd`` was refused at "field 'seat'" with `where` null, and an unknown agent
named no field at all.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import yaml

from tests.mcp.client import stdio_caller

DUEL = Path(__file__).resolve().parents[2] / "rules" / "moonlit" / "encounters" / "duel.yaml"


def test_a_refused_seat_or_agent_names_the_argument_sent(tmp_path: Path) -> None:
    duel = yaml.safe_load(DUEL.read_text(encoding="utf-8"))
    side = duel["combatants"][-1]["side"]
    uploaded = yaml.safe_dump({**duel, "controllers": {side: "review:trained:model=/etc/passwd"}})

    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db") as c:
            cases = [  # arguments of start_session, the kind, the field
                ({"npc": "trained:model=/etc/passwd"}, "seat_not_allowed", "npc"),
                ({"pc": "review:nosuch"}, "unknown_agent", "pc"),
                ({"seats": {side: "mcts:nosuchpreset"}}, "unknown_agent", f"seats.{side}"),
                ({"seats": {side: "policy:/etc/passwd"}}, "seat_not_allowed", f"seats.{side}"),
            ]
            for args, kind, where in cases:
                e = await c.refused("start_session", encounter="moonlit/duel", **args)
                assert (e.doc["error"], e.doc.get("where")) == (kind, where), (args, e.doc)
                if kind == "seat_not_allowed":
                    assert f"field '{where}'" in e.text and "field 'seat'" not in e.text, e.text
            e = await c.refused("start_session", encounter_text=uploaded)
            assert (e.doc["error"], e.doc.get("where")) == ("seat_not_allowed", f"controllers.{side}"), e.doc
            sid = (await c.call("start_session", encounter="moonlit/duel", run=False))["state"]["id"]
            for agent, kind in (("nosuch", "unknown_agent"), ("mcts:value=/etc/passwd", "seat_not_allowed")):
                e = await c.refused("propose", session=sid, agent=agent)
                assert (e.doc["error"], e.doc.get("where")) == (kind, "agent"), e.doc

    asyncio.run(go())
