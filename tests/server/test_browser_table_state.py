# ruff: noqa: F811  (the fixtures imported below are named again as the tests' parameters, as pytest wants)
"""The live table keeps up with the session in a real Chromium: a GM edit decided on an old state says so and keeps
the dialog, the statistics go when an undo reopens the fight, one round is "1 round", a square is found in the filter
however it is written, a refused value is said at its field, an emptied seat goes back to its default, a success
clears the last refusal, and the autorun switch says it runs every review seat."""

from __future__ import annotations

import re
from typing import Any

import httpx2 as httpx

from tests.server.quiet import settled
from tests.server.test_browser import _wait_idle, browser, page, server  # noqa: F401  (live server, Chromium)


def _start(server: str, encounter: str, **body: Any) -> dict:
    r = httpx.post(f"{server}/api/sessions", json={"encounter": encounter, "seed": 2, "pc": "human",
                                                   "npc": "review:scripted", "run": False, **body}, timeout=60)
    assert r.status_code == 201, r.text
    return r.json()["state"]


def _open(pg: Any, server: str, sid: str) -> None:
    pg.goto(f"{server}/#/s/{sid}")
    pg.wait_for_selector("#connection.live")
    _wait_idle(pg)


def _take_out_side_b(server: str, state: dict) -> dict:
    """The GM takes every one of moonlit's side B out (a fight of one round); the state after."""
    sid = state["id"]
    for c in state["combatants"]:
        if c["side"] != "B" or c["status"] == "absent":
            continue
        edit = httpx.post(f"{server}/api/sessions/{sid}/edits", json={"combatant": c["id"], "remove": True,
                                                                      "run": False}, timeout=60)
        if edit.status_code == 422 and "deciding now" in edit.json()["message"]:
            httpx.post(f"{server}/api/sessions/{sid}/confirm", json={"run": False}, timeout=60)
            edit = httpx.post(f"{server}/api/sessions/{sid}/edits", json={"combatant": c["id"], "remove": True,
                                                                          "run": False}, timeout=60)
        assert edit.status_code == 200, edit.text
    return edit.json()["state"]


def test_a_gm_edit_decided_on_an_old_state_keeps_the_dialog_and_says_so(page: Any, server: str) -> None:
    state = _start(server, "moonlit/skirmish")
    sid = state["id"]
    _open(page, server, sid)
    page.click('[data-edit="ghoul_1"]')
    page.wait_for_selector("#edit-dialog[open] #edit-hp")
    # another page edits ghoul_1 while the dialog is open: the dialog shows the values now, and says so
    other = httpx.post(f"{server}/api/sessions/{sid}/edits", json={"combatant": "ghoul_1", "changes": {"hp": 20},
                                                                    "run": False})
    assert other.status_code == 200, other.text
    page.wait_for_function("document.getElementById('edit-hp').value === '20'")
    assert "changed meanwhile" in page.inner_text("#edit-error")

    page.fill("#edit-hp", "5")

    def someone_else_first(route: Any) -> None:  # the GM's Save, decided on that state, arrives second
        if route.request.method == "POST":
            assert httpx.post(f"{server}/api/sessions/{sid}/confirm", json={"run": False}).status_code == 200
        route.continue_()

    page.route("**/edits", someone_else_first)
    page.click("#edit-save")
    page.wait_for_function("document.getElementById('edit-error').textContent.includes('nothing was done')")
    assert page.is_visible("#edit-dialog[open]") and page.input_value("#edit-hp") == "5"  # what was typed stays
    assert "changed meanwhile" in page.inner_text("#toast")
    assert not any(r["source"] == "gm" and "HP 20 -> 5" in r["text"]
                   for r in httpx.get(f"{server}/api/sessions/{sid}/records").json()["records"])
    page.unroute("**/edits")
    page.click("#edit-save")  # saved on the session as it is now
    page.wait_for_selector("#edit-dialog", state="hidden")
    page.wait_for_selector("#log li.ev-gm_edit:has-text('HP 20 -> 5')")


def test_an_undo_that_reopens_the_fight_hides_the_statistics_and_one_round_reads_so(page: Any, server: str) -> None:
    state = _take_out_side_b(server, _start(server, "moonlit/skirmish"))
    assert state["over"] and state["outcome"]["rounds"] == 1
    _open(page, server, state["id"])
    page.wait_for_selector("#stats:not([hidden]) .chart")
    assert page.inner_text("#status .result").endswith("after 1 round")
    assert re.search(r"after 1 round, \d+ decisions", page.inner_text("#stats"))
    page.click("#undo")
    page.wait_for_selector("#stats", state="hidden")
    assert not httpx.get(f"{server}/api/sessions/{state['id']}").json()["over"]

    one = _start(server, "reincarnator/duel", pc="review:scripted")  # one decision: "1 decision" (the table's
    httpx.post(f"{server}/api/sessions/{one['id']}/confirm", json={"run": False})  # own: test_browser_changes)
    page.goto(f"{server}/#/r/{one['id']}")
    page.wait_for_function("document.getElementById('replay-title').textContent === 'Replay · 1 decision'")


def test_a_square_is_found_in_the_filter_however_it_is_written(page: Any, server: str) -> None:
    state = _start(server, "kiai/skirmish", seed=1)  # kaede, a PC, runs: to 86 squares
    runs = next(g for g in state["pending"]["groups"] if g["verb"] == "run")
    text = {a["dest"]: a["text"] for a in runs["actions"]}  # kiai writes "run to [7, 3]" for the square "7,3"
    assert text["1,0"] == "run to [1, 0]" and "11,0" in text and "10,0" in text
    _open(page, server, state["id"])
    page.click('[data-verb="run"]')
    for typed in ("1,0", "1, 0", "[1, 0]", "(1,0)"):  # the one square, not "[11, 0]" nor "[1, 0…]"
        page.fill("#choice-filter", typed)
        assert page.locator("#choices button.choice").all_inner_texts() == ["run to [1, 0]"], typed


def test_a_value_no_field_takes_is_said_at_its_field(page: Any, server: str) -> None:
    state = _start(server, "moonlit/skirmish")
    _open(page, server, state["id"])
    page.click('[data-edit="ghoul_1"]')
    page.wait_for_selector("#edit-dialog[open] #edit-hp")
    for typed in ("1.5", "1e20"):
        page.fill("#edit-hp", typed)
        page.click("#edit-save")
        page.wait_for_selector('.edit-row.invalid[data-field="hp"]')
        said = page.inner_text("#edit-error")
        assert said.startswith("HP: ") and "Input should" not in said and "bool" not in said, said
    assert page.inner_text("#edit-error") == "HP: must be at most 1000000000"
    page.click("#edit-cancel")


def test_an_emptied_seat_goes_back_to_its_default_and_a_success_clears_the_last_refusal(page: Any,
                                                                                         server: str) -> None:
    state = _start(server, "moonlit/skirmish")
    sid = state["id"]
    _open(page, server, sid)
    assert "every review seat" in page.inner_text("label:has(#autorun)")  # PCs' review seats too, as it does
    page.click("#controls summary")
    page.fill('[data-seat="B"]', "bogus:agent")
    page.press('[data-seat="B"]', "Enter")
    page.wait_for_selector("#toast:not([hidden])")
    page.fill('[data-seat="B"]', "review:random")
    page.press('[data-seat="B"]', "Enter")
    page.wait_for_selector("#toast", state="hidden", timeout=3000)  # the refusal went with the next success
    assert httpx.get(f"{server}/api/sessions/{sid}").json()["seats"] == {"B": "review:random"}
    page.fill('[data-seat="B"]', "")
    page.press('[data-seat="B"]', "Enter")
    page.wait_for_function("document.querySelector('[data-seat=\"B\"]').placeholder === '(default: review:scripted)'")
    assert httpx.get(f"{server}/api/sessions/{sid}").json()["seats"] == {}
    assert page.input_value('[data-seat="B"]') == "" and page.is_hidden("#toast")
    settled(httpx, sid, httpx.get(f"{server}/api/sessions/{sid}").json(), server)
