"""docs/mcp.md lists every tool the server offers, as the server itself describes them."""

from __future__ import annotations

from pathlib import Path

from tests.mcp.test_stdio import TOOLS
from trpg_arena.server.mcp_server.docs import tool_table

PAGE = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"


def test_the_page_holds_the_generated_tool_list() -> None:
    text = PAGE.read_text(encoding="utf-8")
    listed = text.split("<!-- tools:start -->\n")[1].split("<!-- tools:end -->")[0]
    table = tool_table()
    assert listed == table, "docs/mcp.md is behind the server: paste `python -m trpg_arena.server.mcp_server.docs`"
    assert {row.split("`")[1] for row in table.splitlines()[2:]} >= TOOLS
