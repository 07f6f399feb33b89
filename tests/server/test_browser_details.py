# ruff: noqa: F811  (the fixtures imported below are named again as the tests' parameters, as pytest wants)
"""The table page's details in a real Chromium: a form that stays in its card, a drawn seed, grid coordinates,
the values behind the turn order, kiai odds on a PC's choice, and moonlit's routine question as a switch."""

from __future__ import annotations

import re

import httpx2 as httpx

from tests.server.test_browser import SHOTS, browser, page, server  # noqa: F401  (the live server and Chromium)


def test_the_new_session_form_stays_in_its_card_and_draws_a_seed(page: object, server: str) -> None:
    pg = page
    card = pg.locator("#new-session").bounding_box()  # type: ignore[attr-defined]
    select = pg.locator("#ruleset").bounding_box()  # type: ignore[attr-defined]
    assert select["x"] + select["width"] <= card["x"] + card["width"], (select, card)
    first = pg.input_value("#seed")  # type: ignore[attr-defined]
    pg.reload()  # type: ignore[attr-defined]
    pg.wait_for_selector("body[data-ready]")  # type: ignore[attr-defined]
    assert first.isdigit() and {first, pg.input_value("#seed")} != {"0"}  # type: ignore[attr-defined]
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / "home.png"))  # type: ignore[attr-defined]


def test_a_grid_has_coordinates_and_the_turn_order_its_initiative(page: object, server: str) -> None:
    made = httpx.post(f"{server}/api/sessions", json={"encounter": "reincarnator/skirmish", "seed": 1, "pc": "human",
                                                      "npc": "scripted"}).json()
    pg = page
    pg.goto(f"{server}/#/s/{made['state']['id']}")  # type: ignore[attr-defined]
    pg.wait_for_selector("#order .init")  # type: ignore[attr-defined]
    assert pg.text_content('#board [data-axis="x15"]') == "15"  # type: ignore[attr-defined]
    assert pg.text_content('#board [data-axis="y7"]') == "7"  # type: ignore[attr-defined]
    order = pg.inner_text("#order")  # type: ignore[attr-defined]
    values = [int(v) for v in re.findall(r"init (\d+)", order)]
    assert len(values) == 7 and values == sorted(values, reverse=True), order  # the order the totals make
    assert pg.locator("#ask-routine-box").is_hidden()  # type: ignore[attr-defined]  # reincarnator asks nothing
    pg.screenshot(path=str(SHOTS / "coordinates.png"))  # type: ignore[attr-defined]


def test_kiai_pc_attacks_show_odds_and_moonlit_asks_escape_only_when_ticked(page: object, server: str) -> None:
    pg = page
    made = httpx.post(f"{server}/api/sessions", json={"encounter": "kiai/duel", "seed": 3, "seats": {
        "wanderers": "human"}, "npc": "scripted"}).json()
    sid = made["state"]["id"]
    state = made["state"]
    for _ in range(10):  # kaede closes in until an attack is legal
        groups = {g["verb"]: g for g in state["pending"]["groups"]}
        if "attack" in groups:
            break
        move = groups.get("move") or groups["end_turn"]
        state = httpx.post(f"{server}/api/sessions/{sid}/actions",
                           json={"index": move["actions"][-1]["index"]}).json()["state"]
    pg.goto(f"{server}/#/s/{sid}")  # type: ignore[attr-defined]
    pg.click('[data-verb="attack"]')  # type: ignore[attr-defined]
    pg.click('[data-token="gorza"]')  # type: ignore[attr-defined]
    pg.wait_for_selector("#choices .odds")  # type: ignore[attr-defined]
    text = pg.inner_text("#choices")  # type: ignore[attr-defined]
    assert re.search(r"\d+ % to land \(hit \d+ vs dodge -?\d+\), about \d+ through its defence", text), text
    assert re.search(r"technique (\d+): hit -\1, foe's dodge -\1", text), text  # what a technique does
    pg.screenshot(path=str(SHOTS / "kiai-odds.png"))  # type: ignore[attr-defined]

    made = httpx.post(f"{server}/api/sessions", json={"encounter": "moonlit/skirmish", "seed": 1, "pc": "human",
                                                      "npc": "scripted"}).json()
    sid = made["state"]["id"]
    pg.goto(f"{server}/#/s/{sid}")  # type: ignore[attr-defined]
    pg.wait_for_selector("#ask-routine-box:not([hidden])")  # type: ignore[attr-defined]
    assert "escape" in pg.inner_text("#ask-routine-box")  # type: ignore[attr-defined]
    assert not pg.is_checked("#ask-routine")  # type: ignore[attr-defined]
    pg.check("#ask-routine")  # type: ignore[attr-defined]
    pg.wait_for_function("document.getElementById('ask-routine').checked")  # type: ignore[attr-defined]
    for _ in range(50):
        if httpx.get(f"{server}/api/sessions/{sid}").json()["ask_routine"]:
            break
    assert httpx.get(f"{server}/api/sessions/{sid}").json()["ask_routine"] is True
    pg.screenshot(path=str(SHOTS / "moonlit-routine.png"))  # type: ignore[attr-defined]


def test_the_statistics_say_when_damage_was_capped_at_the_hp_left(page: object, server: str) -> None:
    made = httpx.post(f"{server}/api/sessions", json={"encounter": "investigator/skirmish", "seed": 3,
                                                      "pc": "scripted", "npc": "scripted"}).json()
    sid = made["state"]["id"]
    for _ in range(200):  # the agents play it out
        if httpx.get(f"{server}/api/sessions/{sid}").json()["over"]:
            break
        httpx.post(f"{server}/api/sessions/{sid}/run", json={})
    stats = httpx.get(f"{server}/api/sessions/{sid}/statistics").json()
    pair = next(p for p in stats["by_source_and_target"] if (p["source"], p["target"]) == ("harlow", "knifeman"))
    assert (pair["damage"], pair["beyond"]) == (10, 16)
    pg = page
    pg.goto(f"{server}/#/s/{sid}")  # type: ignore[attr-defined]
    pg.wait_for_selector("#stats:not([hidden])")  # type: ignore[attr-defined]
    assert "10 (26 rolled, capped at the HP left)" in pg.inner_text("#stats")  # type: ignore[attr-defined]
