# ruff: noqa: F811  (the fixtures imported below are named again as the tests' parameters, as pytest wants)
"""Combatants not in the fight yet, in a real Chromium: drawn and listed as such, reachable for the GM's edit.

A reincarnator reinforcement in reserve is no fallen combatant (no cross, no strike-through, its dialog says it
is not in the fight yet and offers Take out); a moonlit arrival or uncalled summon, on no map and in no turn order,
is listed under the order with its ✎; a summon offers no copy of itself; token labels are never shared.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import httpx2 as httpx

from tests.server.test_add_like_any import with_reserve
from tests.server.test_browser import _wait_idle, browser, page, server  # noqa: F401  (live server, Chromium)
from trpg_arena.rules import RULESETS

BOARD_JS = Path(__file__).resolve().parents[2] / "server" / "static" / "board.js"


def _open(pg: object, server: str, body: dict[str, object], *edits: dict[str, object]) -> str:
    sid = httpx.post(f"{server}/api/sessions", json={"seed": 9, "pc": "human", "npc": "human", "run": False,
                                                     **body}).json()["state"]["id"]
    for edit in edits:
        assert httpx.post(f"{server}/api/sessions/{sid}/edits", json={**edit, "run": False}).status_code == 200
    pg.goto(f"{server}/#/s/{sid}")  # type: ignore[attr-defined]
    pg.wait_for_selector("#order li")  # type: ignore[attr-defined]
    _wait_idle(pg)
    return sid


def test_the_page_knows_the_statuses_the_rules_call_yet_to_join() -> None:
    found = re.search(r"YET_TO_JOIN = new Set\(\[([^\]]*)\]\)", BOARD_JS.read_text(encoding="utf-8"))
    assert found is not None
    statuses = set(re.findall(r'"(\w+)"', found.group(1)))
    for rid, system in RULESETS.items():
        editor = getattr(system, "editor", None)
        if editor is not None:
            assert set(editor.arriving) <= statuses, rid


def test_a_reinforcement_in_reserve_is_not_shown_as_out_of_the_fight(page: object, server: str) -> None:
    pg = page
    _open(pg, server, {"encounter_text": with_reserve()})
    row = pg.locator('#order li[data-order="sk9"]')  # type: ignore[attr-defined]
    assert row.get_attribute("class").split() == ["arriving"] and "not in the fight yet" in row.inner_text()
    token = pg.locator('#board [data-token="sk9"]')  # type: ignore[attr-defined]
    assert "arriving" in token.get_attribute("class") and "down" not in token.get_attribute("class")
    assert token.locator(".cross").count() == 0
    assert "not in the fight yet" in token.locator("title").first.text_content()
    pg.click('[data-edit="sk9"]')  # type: ignore[attr-defined]
    pg.wait_for_selector("#edit-dialog[open] #edit-remove")  # type: ignore[attr-defined]
    assert "not in the fight yet" in pg.inner_text("#edit-nothing")  # type: ignore[attr-defined]
    assert "out of the fight" not in pg.inner_text("#edit-nothing")  # type: ignore[attr-defined]
    assert pg.locator("#add-like").count() == 1  # type: ignore[attr-defined]  # a reinforcement has an entry


def test_arrivals_and_uncalled_summons_are_listed_with_their_edit(page: object, server: str) -> None:
    pg = page
    sid = _open(pg, server, {"encounter": "moonlit/brawl"}, {"combatant": "ghoul_4", "add": {"like": "ghoul_1"}})
    waiting = pg.locator("#arriving li").evaluate_all("rows => rows.map(r => r.dataset.arriving)")  # type: ignore
    assert "ghoul_4" in waiting and "aoi.puppet" in waiting and "ghoul_1" not in waiting
    pg.click('#arriving [data-edit="aoi.puppet"]')  # type: ignore[attr-defined]
    pg.wait_for_selector("#edit-dialog[open] #edit-remove")  # type: ignore[attr-defined]
    assert pg.locator("#add-like").count() == 0  # type: ignore[attr-defined]  # a summon has nothing to copy
    pg.click("#edit-cancel")  # type: ignore[attr-defined]
    pg.click('#arriving [data-edit="ghoul_4"]')  # type: ignore[attr-defined]
    pg.wait_for_selector("#edit-dialog[open] #edit-remove")  # type: ignore[attr-defined]
    pg.click("#edit-remove")  # type: ignore[attr-defined]
    pg.wait_for_selector('#arriving li[data-arriving="ghoul_4"]', state="detached")  # type: ignore[attr-defined]
    texts = [r["text"] for r in httpx.get(f"{server}/api/sessions/{sid}/records").json()["records"]]
    assert texts[-1].startswith("GM: ghoul_4 ")


def test_token_labels_are_never_shared(page: object, server: str) -> None:
    pg = page
    _open(pg, server, {"encounter": "kiai/brawl"})
    labels = pg.locator("#board .token-label").all_text_contents()  # type: ignore[attr-defined]
    assert len(labels) > 8 and not [k for k, n in Counter(labels).items() if n > 1], labels
    ids = ["ghoul_1", "ghoul_2", "ghoul_1_2", "ghoul_12", "guard_1", "guard_spear_1", "aoi.puppet", "aoi"]
    made = pg.evaluate("ids => import('/static/board.js').then(m => [...m.tokenLabels(ids).values()])", ids)  # type: ignore
    assert len(set(made)) == len(ids), made
