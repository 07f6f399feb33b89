# ruff: noqa: F811  (the fixtures imported below are named again as the tests' parameters, as pytest wants)
"""The table page's changes in a real Chromium: a lost answer is retried and acts once; a page that is behind acts
on nothing and shows the session as it is now; a double click confirms once."""

from __future__ import annotations

import httpx2 as httpx

from tests.server.test_browser import browser, page, server  # noqa: F401  (the live server and Chromium fixtures)


def _open(pg: object, server: str) -> str:
    r = httpx.post(f"{server}/api/sessions", json={"encounter": "reincarnator/duel", "seed": 2,
                                                   "pc": "review:scripted", "npc": "review:scripted", "run": False})
    sid = r.json()["state"]["id"]
    pg.goto(f"{server}/#/s/{sid}")  # type: ignore[attr-defined]
    pg.wait_for_selector("#confirm")  # type: ignore[attr-defined]
    return sid


def _records(server: str, sid: str) -> list[dict]:
    return httpx.get(f"{server}/api/sessions/{sid}/records").json()["records"]


def _shows_decisions(pg: object, n: int) -> None:
    said = f"{n} decision" if n == 1 else f"{n} decisions"  # "1 decision", not "1 decisions"
    pg.wait_for_function(f"document.getElementById('status').textContent.includes('· {said} ·')")  # type: ignore


def test_a_lost_answer_is_retried_with_its_key_and_acts_once(page: object, server: str) -> None:
    sid = _open(page, server)
    calls: list[dict] = []

    def lose_the_first_answer(route: object) -> None:
        calls.append(dict(route.request.headers))  # type: ignore[attr-defined]
        if len(calls) == 1:
            route.fetch()  # type: ignore[attr-defined]  # the server confirms...
            route.abort()  # type: ignore[attr-defined]  # ...and the answer is lost on the way
        else:
            route.continue_()  # type: ignore[attr-defined]

    page.route("**/confirm", lose_the_first_answer)  # type: ignore[attr-defined]
    page.click("#confirm")  # type: ignore[attr-defined]
    _shows_decisions(page, 1)
    assert len(calls) == 2 and calls[0]["idempotency-key"] == calls[1]["idempotency-key"]
    assert calls[0]["if-match"] == '"0"'
    assert len(_records(server, sid)) == 1


def test_a_page_that_is_behind_acts_on_nothing_and_shows_the_session_now(page: object, server: str) -> None:
    sid = _open(page, server)

    def someone_else_first(route: object) -> None:
        other = httpx.post(f"{server}/api/sessions/{sid}/confirm", json={"revision": 0, "run": False})
        assert other.status_code == 200
        route.continue_()  # type: ignore[attr-defined]  # the page's confirm, decided on revision 0, arrives second

    page.route("**/confirm", someone_else_first)  # type: ignore[attr-defined]
    page.click("#confirm")  # type: ignore[attr-defined]
    page.wait_for_selector("#toast:not([hidden])")  # type: ignore[attr-defined]
    assert "changed meanwhile" in page.inner_text("#toast")  # type: ignore[attr-defined]
    _shows_decisions(page, 1)
    assert len(_records(server, sid)) == 1


def test_a_double_click_confirms_once(page: object, server: str) -> None:
    sid = _open(page, server)
    page.dblclick("#confirm")  # type: ignore[attr-defined]
    _shows_decisions(page, 1)
    page.wait_for_timeout(500)  # type: ignore[attr-defined]
    assert len(_records(server, sid)) == 1
