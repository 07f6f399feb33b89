"""The tool list of docs/mcp.md, generated from the server itself: ``python -m trpg_arena.server.mcp_server.docs``.

Each tool's name, whether it changes a session (destructive: it may take back or take out what was
there), its parameters (required ones marked) and its description, as a Markdown table; a test checks
the page holds exactly this table, so the page lists every tool.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from trpg_arena.server.hub import SessionHub
from trpg_arena.server.mcp_server.app import build_server
from trpg_arena.server.mcp_server.table import Table
from trpg_arena.table.store import SessionStore


def tool_table() -> str:
    """The Markdown table of every tool the server lists (built over a throwaway store)."""
    with tempfile.TemporaryDirectory() as folder:
        store = SessionStore(Path(folder) / "sessions.db")
        try:
            tools = asyncio.run(build_server(Table(SessionHub(store))).list_tools())
        finally:
            store.close()
    lines = ["| tool | changes | parameters (* required) | what it does |", "|---|---|---|---|"]
    for tool in tools:
        schema = tool.input_schema
        required = set(schema.get("required", []))
        params = ", ".join(f"`{p}`{'*' if p in required else ''}" for p in schema.get("properties", {})) or "none"
        hints = tool.annotations
        changes = ("no" if hints and hints.read_only_hint
                   else "yes, destructive" if hints and hints.destructive_hint else "yes")
        text = " ".join((tool.description or "").split()).replace("|", "\\|")
        lines.append(f"| `{tool.name}` | {changes} | {params} | {text} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(tool_table(), end="")
