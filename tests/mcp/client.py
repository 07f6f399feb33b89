"""Driving `trpg-arena mcp` the way hosts do: the SDK's own client over stdio or streamable HTTP.

`Caller` calls tools and times them; `play_session` plays a session to the end through the tools
(a person choosing with an agent's advice, NPC proposals confirmed or overridden, dice typed in, one
undo) and returns the inputs it gave, which `replay_in_python` plays again through the Python `Session`.
"""

from __future__ import annotations

import os
import sys
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import numpy as np
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.server.table import faces_for
from trpg_arena.table.session import Session

CLI = str(Path(sys.executable).with_name("trpg-arena"))
Doc = dict[str, Any]


class ToolFailed(AssertionError):
    """A tool answered with an error (``isError``): its text and structured part."""

    def __init__(self, text: str, doc: Doc | None) -> None:
        super().__init__(text)
        self.text = text
        self.doc = doc or {}


class Caller:
    """Tool calls over one client session, with each call's wall time kept per tool."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session
        self.times: dict[str, list[float]] = defaultdict(list)

    async def call(self, tool: str, **args: Any) -> Doc:
        """The structured result of a tool call; `ToolFailed` if it answered an error."""
        start = time.perf_counter()
        result = await self.session.call_tool(tool, args)
        self.times[tool].append(time.perf_counter() - start)
        text = getattr(result.content[0], "text", "") if result.content else ""
        assert text and "Traceback" not in text
        if result.is_error:
            raise ToolFailed(text, result.structured_content)
        assert result.structured_content is not None
        return result.structured_content

    async def refused(self, tool: str, **args: Any) -> ToolFailed:
        """The error a call must answer."""
        try:
            await self.call(tool, **args)
        except ToolFailed as e:
            return e
        raise AssertionError(f"{tool}({args}) was not refused")


@asynccontextmanager
async def stdio_caller(db: Path, *options: str) -> AsyncIterator[Caller]:
    """`trpg-arena mcp --db DB [OPTIONS]` as a subprocess, and an initialized client of it."""
    params = StdioServerParameters(command=CLI, args=["mcp", "--db", str(db), *options], env={**os.environ})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield Caller(session)


SEATS = {"pc": "review:scripted", "npc": "review:scripted"}


async def play_session(c: Caller, encounter: str, seed: int, side: str) -> tuple[str, list[tuple[str, Any]], Doc]:
    """Start `encounter` with `side` played by a person rolling dice by hand, the other reviewed, and
    play it to the end; returns the session id, the inputs given (in order) and the last state."""
    rid = encounter.split("/")[0]
    catalogue = await c.call("list_rulesets")
    assert encounter in next(r for r in catalogue["rulesets"] if r["id"] == rid)["encounters"]
    out = await c.call("start_session", encounter=encounter, seed=seed, seats={side: "human+dice"}, **SEATS)
    state = out["state"]
    sid = state["id"]
    rng = np.random.default_rng(seed)
    inputs: list[tuple[str, Any]] = []
    undone = False
    for _ in range(3000):
        if state["over"]:
            break
        p, rev = state["pending"], state["revision"]
        if p["dice"] is not None:
            faces = faces_for(p["dice"], rng)
            out = await c.call("enter_dice", session=sid, revision=rev, faces=faces)
            inputs.append(("dice", faces))
        elif not undone and inputs and inputs[-1][0] == "submit" and state["decisions"] >= 2:
            out = await c.call("undo", session=sid, revision=rev, decisions=1)
            inputs.append(("undo", 1))
            undone = True
        elif p["seat"]["kind"] == "human":
            advice = (await c.call("propose", session=sid))["proposal"]
            out = await c.call("submit_action", session=sid, revision=rev, index=advice["index"])
            inputs.append(("submit", advice["index"]))
        elif p["proposal"]["alternatives"] and rng.random() < 0.25:
            alt = p["proposal"]["alternatives"][0]["index"]
            out = await c.call("override", session=sid, revision=rev, index=alt)
            inputs.append(("override", alt))
        else:
            out = await c.call("confirm", session=sid, revision=rev)
            inputs.append(("confirm", None))
        state = out["state"]
        pending = await c.call("get_pending", session=sid)
        assert pending["revision"] == state["revision"] and pending["pending"] == state["pending"]
    assert state["over"], f"{encounter} did not end"
    assert undone and any(kind == "dice" for kind, _ in inputs), (encounter, undone, inputs)
    return sid, inputs, state


async def full_log(c: Caller, sid: str) -> list[Doc]:
    """Every event of a session, read through `get_log` page by page."""
    events: list[Doc] = []
    while True:
        page = await c.call("get_log", session=sid, since=len(events), limit=200)
        events += page["events"]
        if len(events) >= page["total"]:
            return events


def replay_in_python(encounter: str, seed: int, side: str, inputs: list[tuple[str, Any]]) -> Session:
    """The same inputs played through the Python `Session` (no store)."""
    s = Session(encounter, seed=seed, seats={side: "human+dice"}, **SEATS)
    for kind, value in inputs:
        if kind == "dice":
            s.enter_dice(value)
        elif kind == "undo":
            s.undo(value)
        elif kind == "submit":
            s.submit(value)
        elif kind == "override":
            s.override(value)
        else:
            s.confirm()
        s.run()
    return s


def percentiles(times: dict[str, list[float]]) -> dict[str, tuple[int, float, float]]:
    """Per tool: calls, p50 and p95 in milliseconds."""
    return {tool: (len(t), float(np.percentile(t, 50)) * 1000, float(np.percentile(t, 95)) * 1000)
            for tool, t in sorted(times.items())}
