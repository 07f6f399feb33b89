# ruff: noqa: F811  (the fixtures imported below are named again as the tests' parameters, as pytest wants)
"""The page's controls in a real Chromium: the replay's keys and buttons, the seats after a refusal, the home form.

- one arrow key on the focused scrub bar steps one decision (not its own step and the page's);
- the replay's buttons are drawn (no media-control characters common fonts lack) and each has an aria-label;
- a refused seat change leaves the seats panel showing the seats there are;
- a Start refused under an upload that was fine reads as an error, and choosing a built-in encounter afterwards
  sets the upload aside (the note says so) and starts the encounter chosen.
"""

from __future__ import annotations

from pathlib import Path

import httpx2 as httpx

from tests.server.test_browser import _wait_idle, browser, page, server  # noqa: F401  (live server, Chromium)

ROOT = Path(__file__).resolve().parents[2]


def _played(server: str, decisions: int = 6) -> str:
    sid = httpx.post(f"{server}/api/sessions", json={"encounter": "moonlit/duel", "seed": 3, "pc": "scripted",
                                                     "npc": "scripted", "run": False}).json()["state"]["id"]
    httpx.post(f"{server}/api/sessions/{sid}/run", json={"max_decisions": decisions})
    return sid


def test_one_arrow_on_the_focused_scrub_bar_steps_one_decision(page: object, server: str) -> None:
    pg = page
    pg.goto(f"{server}/#/r/{_played(server)}")  # type: ignore[attr-defined]
    pg.wait_for_selector("#replay-board [data-token]")  # type: ignore[attr-defined]
    pg.click("#scrub", position={"x": 2, "y": 5})  # type: ignore[attr-defined]  # at its start: it has the focus
    assert pg.inner_text("#frame-info").startswith("decision 0/")  # type: ignore[attr-defined]
    pg.keyboard.press("ArrowRight")  # type: ignore[attr-defined]
    assert pg.inner_text("#frame-info").startswith("decision 1/")  # type: ignore[attr-defined]
    pg.keyboard.press("ArrowRight")  # type: ignore[attr-defined]
    pg.keyboard.press("ArrowLeft")  # type: ignore[attr-defined]
    assert pg.inner_text("#frame-info").startswith("decision 1/")  # type: ignore[attr-defined]
    pg.locator("#frame-info").click()  # type: ignore[attr-defined]  # elsewhere on the page: the page's keys
    pg.keyboard.press("ArrowRight")  # type: ignore[attr-defined]
    assert pg.inner_text("#frame-info").startswith("decision 2/")  # type: ignore[attr-defined]


def test_the_replay_buttons_are_drawn_and_named(page: object, server: str) -> None:
    pg = page
    pg.goto(f"{server}/#/r/{_played(server)}")  # type: ignore[attr-defined]
    pg.wait_for_selector("#replay-board [data-token]")  # type: ignore[attr-defined]
    buttons = pg.locator(".player button")  # type: ignore[attr-defined]
    assert buttons.count() == 5
    for i in range(5):
        button = buttons.nth(i)
        assert button.get_attribute("aria-label"), button.evaluate("b => b.outerHTML")
        assert not {"\u23ee", "\u23ed"} & set(button.inner_text())
        box = button.bounding_box()
        assert box is not None and box["width"] > 10
    for name in ("first", "last"):
        icon = pg.locator(f"#{name} svg").bounding_box()  # type: ignore[attr-defined]
        assert icon is not None and icon["width"] > 5
    pg.click("#play")  # type: ignore[attr-defined]
    assert pg.get_attribute("#play", "aria-label") == "pause"  # type: ignore[attr-defined]
    pg.click("#play")  # type: ignore[attr-defined]
    assert pg.get_attribute("#play", "aria-label") == "play"  # type: ignore[attr-defined]


def test_a_refused_seat_change_shows_the_seats_there_are(page: object, server: str) -> None:
    pg = page
    sid = httpx.post(f"{server}/api/sessions", json={"encounter": "investigator/skirmish", "seed": 9, "run": False}
                     ).json()["state"]["id"]
    pg.goto(f"{server}/#/s/{sid}")  # type: ignore[attr-defined]
    pg.wait_for_selector("#order li")  # type: ignore[attr-defined]
    _wait_idle(pg)
    pg.click("#controls summary")  # type: ignore[attr-defined]
    npc = httpx.get(f"{server}/api/sessions/{sid}").json()["defaults"]["npc"]
    for key, value in (("cult", "mcts:simulations=0"), ("npc", "")):
        field = pg.locator(f"input[data-seat='{key}']")  # type: ignore[attr-defined]
        field.fill(value)
        field.press("Enter")
        pg.wait_for_selector("#toast:not([hidden])")  # type: ignore[attr-defined]
        _wait_idle(pg)
    assert pg.input_value("input[data-seat='cult']") == ""  # type: ignore[attr-defined]  # still its default
    assert pg.input_value("input[data-seat='npc']") == npc  # type: ignore[attr-defined]
    assert pg.get_attribute("input[data-seat='npc']", "placeholder") == npc  # type: ignore[attr-defined]
    state = httpx.get(f"{server}/api/sessions/{sid}").json()
    assert state["seats"] == {} and state["defaults"]["npc"] == npc


def test_a_start_error_under_a_good_upload_is_an_error_and_the_dropdown_sets_the_upload_aside(
        page: object, server: str, tmp_path: Path) -> None:
    pg = page
    upload = tmp_path / "moon_duel.yaml"
    upload.write_text((ROOT / "rules" / "moonlit" / "encounters" / "duel.yaml").read_text(encoding="utf-8"),
                      encoding="utf-8")
    pg.set_input_files("#encounter-file", str(upload))  # type: ignore[attr-defined]
    pg.wait_for_selector("#encounter-note.ok")  # type: ignore[attr-defined]
    pg.fill("#seed", "99999999999")  # type: ignore[attr-defined]  # more than a seed may be: refused
    pg.click("#create")  # type: ignore[attr-defined]
    pg.wait_for_selector("#encounter-note.bad")  # type: ignore[attr-defined]
    assert "seed" in pg.inner_text("#encounter-note")  # type: ignore[attr-defined]
    assert "ok" not in pg.get_attribute("#encounter-note", "class").split()  # type: ignore[attr-defined]
    pg.fill("#seed", "5")  # type: ignore[attr-defined]
    pg.select_option("#ruleset", "kiai")  # type: ignore[attr-defined]
    pg.select_option("#encounter", "kiai/brawl")  # type: ignore[attr-defined]
    assert pg.evaluate("document.getElementById('encounter-file').files.length") == 0  # type: ignore
    note = pg.inner_text("#encounter-note")  # type: ignore[attr-defined]
    assert "moon_duel.yaml set aside" in note and "kiai/brawl" in note, note
    pg.click("#create")  # type: ignore[attr-defined]
    pg.wait_for_function("location.hash.startsWith('#/s/')")  # type: ignore[attr-defined]
    sid = pg.evaluate("location.hash.slice(4)")  # type: ignore[attr-defined]
    state = httpx.get(f"{server}/api/sessions/{sid}").json()
    assert (state["ruleset"], state["encounter"]) == ("kiai", "brawl")
