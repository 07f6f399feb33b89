"""A roll waiting over MCP: `cancel_dice` gives it up, `undo` takes back just the action waiting for it.

Before, MCP had no way to cancel a roll (the page has Cancel, the terminal `c`), and undo took back the
decision before the waiting action too, with its roll. Also here: the tools that take back or take out
what was there say so (`destructive_hint`), and the end of a fight reads "side investigators wins".
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.mcp.client import Caller, stdio_caller

Doc = dict[str, Any]


async def ada_waits_for_her_second_roll(c: Caller) -> tuple[Doc, Doc]:
    """An investigator duel: ada (dice by hand) shot and rolled; her next action waits for its dice.

    Returns the state when she chose it, and the state now.
    """
    state = (await c.call("start_session", encounter="investigator/duel", seed=3,
                          seats={"investigators": "human+dice"}, npc="review:scripted"))["state"]
    sid = state["id"]
    state = (await c.call("submit_action", session=sid, revision=state["revision"], index=0))["state"]
    while state["pending"]["dice"] is not None or state["pending"]["seat"]["kind"] != "human":
        if state["pending"]["dice"] is not None:
            state = (await c.call("enter_dice", session=sid, revision=state["revision"], faces="50"))["state"]
        else:
            state = (await c.call("confirm", session=sid, revision=state["revision"]))["state"]
    before = state
    aim = next(a["index"] for g in state["pending"]["groups"] for a in g["actions"] if g["verb"] == "prepare")
    state = (await c.call("submit_action", session=sid, revision=state["revision"], index=aim))["state"]
    assert state["pending"]["dice"] is not None and state["decisions"] == before["decisions"] == 1
    return before, state


def reopened(now: Doc, before: Doc) -> bool:
    """Whether `now` is the decision of `before` open again, nothing recorded taken back."""
    return (now["pending"]["dice"] is None and now["decisions"] == before["decisions"]
            and now["events"] == before["events"] and now["pending"]["decision"] == before["pending"]["decision"])


def test_undo_and_cancel_dice_give_up_only_the_waiting_action(tmp_path: Path) -> None:
    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db") as c:
            before, waiting = await ada_waits_for_her_second_roll(c)
            undone = await c.call("undo", session=waiting["id"], revision=waiting["revision"])
            assert reopened(undone["state"], before), (undone["state"]["decisions"], undone["state"]["pending"])

            before, waiting = await ada_waits_for_her_second_roll(c)
            cancelled = (await c.call("cancel_dice", session=waiting["id"], revision=waiting["revision"]))["state"]
            assert reopened(cancelled, before)
            e = await c.refused("cancel_dice", session=waiting["id"], revision=cancelled["revision"])
            assert e.doc["error"] == "not_now" and "no dice are asked for" in e.text
            stale = await c.refused("cancel_dice", session=waiting["id"], revision=waiting["revision"])
            assert stale.doc["error"] == "stale_revision"

            # edits are refused while a roll waits, and say how to go on: cancel_dice does
            before, waiting = await ada_waits_for_her_second_roll(c)
            e = await c.refused("edit_combatant", session=waiting["id"], revision=waiting["revision"],
                                combatant="cultist", remove=True)
            assert "cancel the roll" in e.text
            cancelled = (await c.call("cancel_dice", session=waiting["id"], revision=waiting["revision"]))["state"]
            result = await c.session.call_tool("edit_combatant", {"session": waiting["id"], "combatant": "cultist",
                                                                  "revision": cancelled["revision"], "remove": True})
            assert not result.is_error and (result.structured_content or {})["state"]["over"]
            line = getattr(result.content[0], "text", "")
            assert line.endswith("Now: over: side investigators wins (fled)"), line

    asyncio.run(go())


def test_tools_that_take_back_or_take_out_are_marked_destructive(tmp_path: Path) -> None:
    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db") as c:
            tools = {t.name: t for t in (await c.session.list_tools()).tools}
            destructive = {name for name, t in tools.items() if t.annotations and t.annotations.destructive_hint}
            assert destructive == {"undo", "cancel_dice", "edit_combatant"}
            for name, parameter in (("run_agents", "max_decisions"), ("get_log", "limit")):
                assert tools[name].input_schema["properties"][parameter].get("description"), (name, parameter)

    asyncio.run(go())
