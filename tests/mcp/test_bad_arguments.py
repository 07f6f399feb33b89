"""Bad arguments over MCP: tool errors with the located messages of the CLI and the HTTP API, nothing changed."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import yaml

from tests.mcp.client import CLI, Caller, stdio_caller
from trpg_arena.rules import load_encounter

BROKEN = {  # an encounter file's text, and the start of what `trpg-arena validate` says of it
    "broken.yaml": "ruleset: moonlit\ncombatants: [\n",
    "statless.yaml": "ruleset: moonlit\ncombatants:\n  - id: kei\n    side: A\n    hp: lots\n",
}


def validate_line(path: Path) -> str:
    """What ``trpg-arena validate`` prints of a bad file, after its 'invalid' mark."""
    out = subprocess.run([CLI, "validate", str(path)], capture_output=True, text=True, env={"COLUMNS": "500"},
                         check=False)
    assert out.returncode == 1
    return " ".join(out.stderr.split()).removeprefix("invalid ")


async def unchanged(c: Caller, sid: str, before: dict[str, object]) -> None:
    assert await c.call("get_state", session=sid) == before


def test_bad_arguments_are_tool_errors_and_change_nothing(tmp_path: Path) -> None:
    for name, text in BROKEN.items():
        (tmp_path / name).write_text(text)
    said = {name: validate_line(tmp_path / name) for name in BROKEN}

    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db") as c:
            for name, text in BROKEN.items():  # the located messages of `trpg-arena validate`, word for word
                e = await c.refused("validate_encounter", text=text, name=str(tmp_path / name))
                assert " ".join(e.text.split()) == said[name]
                e = await c.refused("start_session", encounter_text=text, name=str(tmp_path / name))
                assert " ".join(e.text.split()) == said[name]
            assert "no built-in encounter 'moonlit/nope'" in (await c.refused("start_session",
                                                                              encounter="moonlit/nope")).text
            assert "mcts" in (await c.refused("start_session", encounter="moonlit/duel", npc="nosuchagent")).text
            assert (await c.call("list_sessions"))["sessions"] == []

            out = await c.call("start_session", encounter="moonlit/duel", seed=7, seats={"A": "human+dice"},
                               ask_routine=True)
            sid, before = out["state"]["id"], await c.call("get_state", session=out["state"]["id"])
            rev = before["revision"]
            e = await c.refused("get_pending", session="nosuch")
            assert e.text.startswith("no session 'nosuch'") and sid in e.text
            assert (await c.refused("submit_action", session="nosuch", revision=0, index=0)).doc["error"] \
                == "unknown_session"
            stale = await c.refused("submit_action", session=sid, revision=rev + 1, index=0)
            assert stale.doc["error"] == "stale_revision" and f"revision {rev}" in stale.text
            assert stale.doc["state"]["revision"] == rev and stale.doc["state"]["pending"] == before["pending"]
            legal = before["pending"]["legal_count"]
            e = await c.refused("submit_action", session=sid, revision=rev, index=999)
            assert e.text == f"no legal action #999 (0-{legal - 1})"
            assert "give exactly one" in (await c.refused("submit_action", session=sid, revision=rev)).text
            e = await c.refused("submit_action", session=sid, revision=rev, action={"verb": "fly"})
            assert "'verb=fly' is not legal for kei now" in e.text
            assert "nothing to confirm" in (await c.refused("confirm", session=sid, revision=rev)).text
            assert "no dice are asked for" in (await c.refused("enter_dice", session=sid, revision=rev,
                                                                faces="3 4")).text
            await c.refused("submit_action", session=sid, revision=-1, index=0)  # outside the input schema
            await unchanged(c, sid, before)

            # a person's escape asks for 2D6: a 7 is no face of a D6
            escape = next(a["index"] for g in before["pending"]["groups"] for a in g["actions"]
                          if a["action"]["verb"] == "escape")
            asked = (await c.call("submit_action", session=sid, revision=rev, index=escape))["state"]
            assert asked["pending"]["dice"]["die"] == "2D6"
            waiting = await c.call("get_state", session=sid)
            e = await c.refused("enter_dice", session=sid, revision=asked["revision"], faces="7 3")
            assert "7" in e.text and "1-6" in e.text
            await unchanged(c, sid, waiting)
            done = await c.call("enter_dice", session=sid, revision=asked["revision"], faces="6 6")
            assert done["state"]["revision"] > asked["revision"]  # taken (or the next dice of the roll asked for)

    asyncio.run(go())


def test_a_controllers_agent_is_checked_when_an_encounter_is_validated(tmp_path: Path) -> None:
    """`validate_encounter` said ok to ``controllers: {B: mcts:simulations=0}``, which `start_session` refused."""
    enc = load_encounter("moonlit/duel").model_dump(mode="json")
    enc["controllers"] = {"B": "mcts:simulations=0"}
    text = yaml.safe_dump(enc)

    async def go() -> None:
        async with stdio_caller(tmp_path / "sessions.db") as c:
            for tool in ("validate_encounter", "start_session"):
                args = {"text": text} if tool == "validate_encounter" else {"encounter_text": text}
                e = await c.refused(tool, **args)
                assert e.doc["where"] == "controllers.B" and "simulations must be 1..100000" in e.text, e.doc
            assert (await c.call("list_sessions"))["sessions"] == []

    asyncio.run(go())
