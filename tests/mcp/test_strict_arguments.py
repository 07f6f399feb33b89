"""Tool arguments over MCP are checked as the HTTP API checks request bodies, and refused in one located line.

Before, the SDK dropped arguments it did not know (``run_agents(max_decision=1)`` ran a whole fight),
coerced ``"1"`` and ``true`` into revisions, parsed JSON-looking text (an encounter's JSON text was
refused, a session named ``null`` got no name) and answered with pydantic's multi-line report and no
structured part; kinds were class names (``SessionError``) beside snake_case ones.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml
from mcp.shared.exceptions import MCPError

from tests.mcp.client import Caller, ToolFailed, stdio_caller

DUEL = Path(__file__).resolve().parents[2] / "rules" / "moonlit" / "encounters" / "duel.yaml"
DUEL_JSON = json.dumps(yaml.safe_load(DUEL.read_text(encoding="utf-8")))  # an encounter file's JSON text


async def refused(c: Caller, tool: str, **args: object) -> ToolFailed:
    """The refusal a call must answer: one line, no pydantic report, a structured part naming its kind."""
    e = await c.refused(tool, **args)
    assert "\n" not in e.text and "pydantic" not in e.text and "Error executing tool" not in e.text, e.text
    assert e.doc["message"] == e.text and e.doc["error"].islower() and " " not in e.doc["error"], e.doc
    return e


def test_unknown_arguments_and_wrong_types_are_refused(tmp_path: Path) -> None:
    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db") as c:
            state = (await c.call("start_session", encounter="moonlit/skirmish", seed=1, pc="scripted",
                                  npc="scripted", run=False))["state"]
            sid, rev = state["id"], state["revision"]
            cases = [  # tool, arguments, where, the start of the message after "where: "
                ("run_agents", {"session": sid, "revision": rev, "max_decision": 1}, "max_decision",
                 "no such argument (run_agents takes session, revision, max_decisions)"),
                ("start_session", {"encounter": "moonlit/duel", "npc_seat": "human", "seeds": 5}, "npc_seat",
                 "no such argument"),
                ("confirm", {"session": sid, "revison": rev}, "revision", "is missing"),
                ("confirm", {"session": sid, "revision": str(rev)}, "revision", "a whole number is needed"),
                ("confirm", {"session": sid, "revision": True}, "revision", "a whole number is needed"),
                ("confirm", {"session": sid, "revision": rev, "run": "yes"}, "run", "true or false is needed"),
                ("get_state", {"session": 123}, "session", "text is needed"),
                ("run_agents", {"session": sid, "revision": rev, "max_decisions": 0}, "max_decisions",
                 "must be at least 1"),
                ("start_session", {"encounter": "moonlit/duel", "seats": {"A": 5}}, "seats.A", "text is needed"),
            ]
            for tool, args, where, said in cases:
                e = await refused(c, tool, **args)
                assert e.doc["error"] == "invalid_arguments" and e.doc["where"] == where, (tool, args, e.doc)
                assert e.text.startswith(f"{where}: {said}"), (tool, args, e.text)
            assert (await c.call("get_state", session=sid))["decisions"] == 0  # nothing ran
            assert len((await c.call("list_sessions"))["sessions"]) == 1  # nothing started

            listed = {t.name: t for t in (await c.session.list_tools()).tools}
            assert all(t.input_schema.get("additionalProperties") is False for t in listed.values())

    asyncio.run(go())


def test_text_arguments_arrive_as_sent(tmp_path: Path) -> None:
    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db") as c:
            out = await c.call("start_session", encounter_text=DUEL_JSON, name="null", seed=2)
            assert out["state"]["name"] == "null" and out["state"]["encounter"] == "duel"
            assert (await c.call("start_session", encounter="moonlit/duel", name="42"))["state"]["name"] == "42"
            assert (await c.call("validate_encounter", text=DUEL_JSON, name="duel.json"))["ok"]
            e = await refused(c, "propose", session=out["state"]["id"], agent="123")
            assert e.doc["error"] == "unknown_agent" and "123" in e.text  # read as an agent's name, not a number
            e = await refused(c, "start_session", encounter_text='{"ruleset": "moonlit"}')
            assert e.doc["error"] == "invalid_encounter"

    asyncio.run(go())


def test_refusal_kinds_are_the_http_apis_snake_case_ones(tmp_path: Path) -> None:
    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db") as c:
            state = (await c.call("start_session", encounter="moonlit/duel", seed=7, seats={"A": "human+dice"},
                                  ask_routine=True))["state"]
            sid, rev = state["id"], state["revision"]
            kinds = {
                "not_now": await refused(c, "confirm", session=sid, revision=rev),
                "illegal_action": await refused(c, "submit_action", session=sid, revision=rev,
                                                action={"verb": "fly"}),
                "invalid_arguments": await refused(c, "submit_action", session=sid, revision=rev),
                "unknown_session": await refused(c, "get_pending", session="nosuch"),
                "invalid_tactics": await refused(c, "start_session", encounter="moonlit/duel",
                                                 tactics={"nobody": {"aggression": "bold"}}),
            }
            for kind, e in kinds.items():
                assert e.doc["error"] == kind, (kind, e.doc)
            escape = next(a["index"] for g in state["pending"]["groups"] for a in g["actions"]
                          if a["action"]["verb"] == "escape")
            asked = (await c.call("submit_action", session=sid, revision=rev, index=escape))["state"]
            e = await refused(c, "enter_dice", session=sid, revision=asked["revision"], faces="7 3")
            assert e.doc["error"] == "invalid_dice"

    asyncio.run(go())


def test_an_unknown_sessions_resource_says_why(tmp_path: Path) -> None:
    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db") as c:
            sid = (await c.call("start_session", encounter="moonlit/duel"))["state"]["id"]
            with pytest.raises(MCPError) as e:
                await c.session.read_resource("trpg-arena://sessions/nosuch")
            assert str(e.value).startswith("no session 'nosuch'") and sid in str(e.value), str(e.value)

    asyncio.run(go())


def test_an_action_and_an_edit_are_checked_and_worded_as_the_api_does(tmp_path: Path) -> None:
    """A misspelt, mistyped or extra field of an action was an ``illegal_action``; an edit's wrong type was
    pydantic's ``changes.hp.bool: Input should be a valid boolean (and 3 more)``."""
    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db") as c:
            state = (await c.call("start_session", encounter="moonlit/duel", seed=1, run=False))["state"]
            sid, rev = state["id"], state["revision"]
            cases = [  # tool, arguments, the refusal (where: message)
                ("submit_action", {"action": {"verbx": "shoot"}}, "action.verb: is missing (and 1 more)"),
                ("submit_action", {"action": {"verb": 5}}, "action.verb: text is needed"),
                ("override", {"action": {"verb": "dodge", "extra": 1}}, "action.extra: is not a field of this request"),
                ("edit_combatant", {"combatant": "kei", "changes": {"hp": 1.5}},
                 "changes.hp: a whole number is needed"),
            ]
            for tool, args, said in cases:
                e = await refused(c, tool, session=sid, revision=rev, **args)
                assert e.doc["error"] == "invalid_arguments" and e.text == said, (args, e.doc)
                assert e.doc["where"] == said.split(":")[0]
            assert (await c.call("get_state", session=sid))["revision"] == rev  # nothing changed
            dodge = next(a["action"] for g in state["pending"]["groups"] for a in g["actions"])
            out = await c.call("submit_action", session=sid, revision=rev, action=dodge, run=False)
            assert out["decisions"][0]["action"]["verb"] == dodge["verb"]  # the JSON form get_pending lists is taken

    asyncio.run(go())
