# ruff: noqa: F811  (the fixtures imported below are named again as the tests' parameters, as pytest wants)
"""NPC temperaments on the table page, in a real Chromium: a badge in each tempered combatant's line of the turn
order, and the proposal's reasons led by the temperament's sentence."""

from __future__ import annotations

from typing import Any

import httpx2 as httpx

from tests.server.test_browser import SHOTS, browser, page, server  # noqa: F401  (the live server and Chromium)


def _until_gorza_aims_at_mio(server: str, state: dict[str, Any]) -> dict[str, Any]:
    sid = state["id"]
    for _ in range(300):
        p = state["pending"]
        assert p is not None, "the combat ended first"
        if p["decision"]["actor"] == "gorza" and p["proposal"] and p["proposal"]["action"]["target"] == "mio":
            return state
        if p["seat"]["kind"] == "human":
            first = p["groups"][0]["actions"][0]["index"]
            r = httpx.post(f"{server}/api/sessions/{sid}/actions", json={"index": first})
        else:
            r = httpx.post(f"{server}/api/sessions/{sid}/confirm", json={})
        assert r.status_code == 200, r.text
        state = r.json()["state"]
    raise AssertionError("gorza never proposed to attack mio")


def test_the_page_shows_a_temperament_and_the_proposal_says_so(page: object, server: str) -> None:
    made = httpx.post(f"{server}/api/sessions", json={
        "encounter": "kiai/skirmish", "seed": 3, "pc": "scripted", "npc": "review:scripted",
        "tactics": {"gorza": {"focus": "casters", "aggression": "reckless"},
                    "goblin_a": {"morale": "40%", "protect": "shaman"}}}).json()
    state = _until_gorza_aims_at_mio(server, made["state"])
    pg = page
    pg.goto(f"{server}/#/s/{state['id']}")  # type: ignore[attr-defined]
    pg.wait_for_selector('#order [data-tactics="gorza"]')  # type: ignore[attr-defined]
    assert pg.text_content('#order [data-tactics="gorza"]') == "reckless, focus casters"  # type: ignore[attr-defined]
    assert pg.text_content('#order [data-tactics="goblin_a"]') == (  # type: ignore[attr-defined]
        "flees below 40 % HP, protects shaman")
    assert pg.locator('#order [data-tactics="kaede"]').count() == 0  # type: ignore[attr-defined]
    pg.wait_for_selector("#proposal .reasons li")  # type: ignore[attr-defined]
    first = pg.text_content("#proposal .reasons li")  # type: ignore[attr-defined]
    assert "focus casters" in first, first
    badge = pg.locator('#order [data-tactics="gorza"]').bounding_box()  # type: ignore[attr-defined]
    card = pg.locator("#order").bounding_box()  # type: ignore[attr-defined]
    assert badge["x"] + badge["width"] <= card["x"] + card["width"] + 1, (badge, card)  # stays in its card
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / "temperament.png"))  # type: ignore[attr-defined]
