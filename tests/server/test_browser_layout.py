# ruff: noqa: F811  (the fixtures imported below are named again as the tests' parameters, as pytest wants)
"""The pages at a phone's width (412 px) and a small laptop's (1024 px) in a real Chromium: no page scrolls sideways
(a wide table scrolls in its own box), the saved sessions' buttons never cover each other. Screenshots at 1280 and
412 px go to runs/screenshots."""

from __future__ import annotations

from typing import Any

import httpx2 as httpx

from tests.server.test_browser import SHOTS, browser, server  # noqa: F401  (live server, Chromium)
from tests.server.test_browser_table_state import _take_out_side_b


def _finished_fight(server: str) -> str:
    r = httpx.post(f"{server}/api/sessions", json={"encounter": "moonlit/skirmish", "seed": 2, "pc": "human",
                                                   "npc": "review:scripted", "run": False}, timeout=60)
    state = _take_out_side_b(server, r.json()["state"])
    assert state["over"]
    return state["id"]


def _pages(server: str) -> dict[str, str]:
    """The page's views worth measuring: home, a live table of each system, an end screen, a replay."""
    views = {"home": "#/"}
    for system in ("moonlit", "kiai", "investigator", "reincarnator"):
        r = httpx.post(f"{server}/api/sessions", json={"encounter": f"{system}/skirmish", "seed": 1, "pc": "human",
                                                       "npc": "review:scripted", "run": False}, timeout=60)
        views[f"{system}-table"] = f"#/s/{r.json()['state']['id']}"
    over = _finished_fight(server)
    views["end"] = f"#/s/{over}"
    views["replay"] = f"#/r/{over}"
    return views


def _show(browser: Any, server: str, width: int, route: str) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 900})
    pg = context.new_page()
    pg.goto(f"{server}/{route}")
    pg.wait_for_selector("body[data-ready]")
    ready = {"#/": "#sessions tbody tr", "#/s": "#order li", "#/r": "#replay-stats .stats-table"}
    pg.wait_for_selector(next(sel for prefix, sel in sorted(ready.items(), reverse=True) if route.startswith(prefix)))
    if route.startswith("#/s/"):
        pg.wait_for_function("!document.body.classList.contains('busy')")
    pg.wait_for_timeout(300)  # the statistics of a finished fight come a moment after the table
    return pg


def test_no_page_scrolls_sideways_on_a_phone(browser: Any, server: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, route in _pages(server).items():
        for width in (1280, 412):
            pg = _show(browser, server, width, route)
            if name == "end":
                pg.wait_for_selector("#stats:not([hidden]) .stats-table")
            pg.screenshot(path=str(SHOTS / f"layout-{name}-{width}.png"), full_page=True)
            wide = pg.evaluate("document.documentElement.scrollWidth")
            header = pg.locator("header").bounding_box()
            pg.context.close()
            assert wide <= width, (name, width, wide)
            assert header["width"] >= width - 1, (name, width, header)  # the dark header spans the page


def test_the_saved_sessions_buttons_never_cover_each_other(browser: Any, server: str) -> None:
    _finished_fight(server)
    for width in (1280, 1024, 412):
        pg = _show(browser, server, width, "#/")
        boxes = [pg.locator(f"#sessions tbody tr >> nth=0 >> text={label}").bounding_box()
                 for label in ("Open", "Replay", "Delete")]
        card = pg.locator("#sessions").locator("xpath=ancestor::div[contains(@class, 'card')]").bounding_box()
        pg.context.close()
        for i, a in enumerate(boxes):
            assert card["x"] <= a["x"] and a["x"] + a["width"] <= card["x"] + card["width"], (width, a, card)
            for b in boxes[i + 1:]:
                apart = (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                         or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])
                assert apart, (width, a, b)
