"""A session started over MCP is opened from the browser page's list, played there, and the MCP client sees it.

`trpg-arena mcp --db F` (driven by the SDK's stdio client) and `trpg-arena serve --db F` share one
store; the page is Debian's Chromium driven by Playwright (its async API, beside the async MCP client).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.mcp.client import stdio_caller
from tests.server.live import served
from tests.server.test_browser import CHROMIUM, CHROMIUM_ARGS, _ensure_chromium


def test_a_session_started_over_mcp_is_played_in_the_page_and_the_mcp_client_sees_it(tmp_path: Path) -> None:
    _ensure_chromium()
    from playwright.async_api import async_playwright

    db = tmp_path / "sessions.db"

    async def go() -> None:
        async with stdio_caller(db) as c:
            started = (await c.call("start_session", encounter="moonlit/duel", seed=3, pc="review:scripted",
                                    ask_routine=True,
                                    npc="review:scripted", name="started by a model"))["state"]
            sid, rev = started["id"], started["revision"]
            assert started["decisions"] == 0 and started["pending"]["proposal"]
            seen = (await c.call("get_log", session=sid))["total"]

            with served(db) as (base, _proc):
                async with async_playwright() as p:
                    browser = await p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                    page = await browser.new_page(viewport={"width": 1400, "height": 900})
                    errors: list[str] = []
                    page.on("pageerror", lambda e: errors.append(str(e)))
                    await page.goto(base + "/")
                    await page.wait_for_selector("body[data-ready]")

                    # the page's list shows the session started over MCP; the GM opens it and confirms there
                    row = page.locator(f'#sessions tr[data-session="{sid}"]')
                    await row.wait_for()
                    assert "started by a model" in await row.inner_text()
                    await row.get_by_text("Open").click()
                    await page.wait_for_selector("#confirm")
                    await page.click("#confirm")
                    await page.wait_for_function(
                        r"/\b1 decisions? /.test(document.getElementById('status').textContent)")
                    await browser.close()
                    assert not errors, errors

            # the MCP client sees the decision taken in the page: the revision moved, the events were logged
            state = await c.call("get_state", session=sid)
            assert state["revision"] > rev and state["decisions"] == 1
            log = await c.call("get_log", session=sid, since=seen)
            assert log["events"] and log["total"] > seen
            stale = await c.refused("confirm", session=sid, revision=rev)
            assert stale.doc["error"] == "stale_revision"

    asyncio.run(go())
