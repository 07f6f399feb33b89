# ruff: noqa: F811  (the fixtures imported below are named again as the tests' parameters, as pytest wants)
"""Moonlit's zones in a real Chromium: the zone an NPC proposes to go to shows its gold outline, and a crowd in one
zone (the built-in brawl's twelve) stays inside it, every token clickable, the names under them never overlapping."""

from __future__ import annotations

from typing import Any

import httpx2 as httpx

from tests.server.test_browser import SHOTS, _wait_idle, browser, page, server  # noqa: F401  (live server, Chromium)

GOLD = "rgb(242, 183, 5)"  # --gold


def test_the_zone_a_proposal_moves_to_has_the_gold_outline(page: Any, server: str) -> None:
    r = httpx.post(f"{server}/api/sessions", json={"encounter": "moonlit/skirmish", "seed": 1, "pc": "scripted",
                                                   "npc": "review:scripted"}, timeout=60)
    state = r.json()["state"]
    sid = state["id"]
    for _ in range(100):  # confirm the NPCs' proposals until one moves to a zone
        p = state["pending"]
        proposed = p and p["proposal"] and next(a for g in p["groups"] for a in g["actions"]
                                                if a["index"] == p["proposal"]["index"])
        if proposed and proposed["dest"] is not None:
            break
        state = httpx.post(f"{server}/api/sessions/{sid}/confirm", json={}, timeout=60).json()["state"]
    else:
        raise AssertionError("no proposal moved to a zone in 100 decisions")
    page.goto(f"{server}/#/s/{sid}")
    zone = page.locator(f'#board [data-place="{proposed["dest"]}"]')
    zone.wait_for()
    _wait_idle(page)
    assert "proposed-place" in (zone.get_attribute("class") or "")
    assert zone.evaluate("z => getComputedStyle(z).stroke") == GOLD  # not the zone's own grey outline


def test_a_crowd_in_one_zone_stays_inside_it_and_every_name_has_room(page: Any, server: str) -> None:
    r = httpx.post(f"{server}/api/sessions", json={"encounter": "moonlit/brawl", "seed": 9, "pc": "human",
                                                   "npc": "review:scripted", "run": False}, timeout=60)
    state = r.json()["state"]
    sid = state["id"]
    crowd = [c["id"] for c in state["combatants"] if c["place"] is not None]
    assert len(crowd) >= 12
    for cid in crowd:  # the GM gathers all of them in A_front
        if next(c for c in state["combatants"] if c["id"] == cid)["place"] != "A_front":
            moved = httpx.post(f"{server}/api/sessions/{sid}/edits", json={"combatant": cid, "run": False,
                                                                           "changes": {"zone": "A_front"}})
            assert moved.status_code == 200, moved.text
    page.goto(f"{server}/#/s/{sid}")
    page.wait_for_selector(f'#board [data-token="{crowd[-1]}"]')
    _wait_idle(page)
    page.screenshot(path=str(SHOTS / "moonlit-crowd.png"))
    zone = page.locator('#board [data-place="A_front"]').bounding_box()
    names = []
    for cid in crowd:
        token = page.locator(f'#board [data-token="{cid}"]')
        disc = token.locator(".disc").bounding_box()
        assert zone["x"] <= disc["x"] and disc["x"] + disc["width"] <= zone["x"] + zone["width"], cid
        assert zone["y"] <= disc["y"] and disc["y"] + disc["height"] <= zone["y"] + zone["height"], cid
        centre = (disc["x"] + disc["width"] / 2, disc["y"] + disc["height"] / 2)
        hit = page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('[data-token]').dataset.token",
                            list(centre))
        assert hit == cid  # a click there is on this token, not under another one or off the board
        name = token.locator(".token-name")
        assert cid in name.locator("title").text_content()  # the whole name on hover
        names.append((cid, name.bounding_box()))
    for i, (a, box) in enumerate(names):
        for b, other in names[i + 1:]:
            apart = (box["x"] + box["width"] <= other["x"] or other["x"] + other["width"] <= box["x"]
                     or box["y"] + box["height"] <= other["y"] or other["y"] + other["height"] <= box["y"])
            assert apart, (a, box, b, other)
