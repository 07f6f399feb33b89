# ruff: noqa: F811  (the fixtures imported below are named again as the tests' parameters, as pytest wants)
"""The GM's edit dialog in a real Chromium: open it on a combatant, a refused value marked at its field, a saved
edit logged as the GM's line, taking a combatant out, undo. A screenshot of the open dialog goes to runs/screenshots
(docs/img/gm-edit-dialog.png is one of them)."""

from __future__ import annotations

import httpx2 as httpx

from tests.server.test_browser import SHOTS, _wait_idle, browser, page, server  # noqa: F401  (live server, Chromium)


def test_the_gm_edits_a_ghoul_in_the_dialog_and_undoes_it(page: object, server: str) -> None:
    r = httpx.post(f"{server}/api/sessions", json={"encounter": "moonlit/skirmish", "seed": 2, "pc": "human",
                                                   "npc": "review:scripted"})
    sid = r.json()["state"]["id"]
    pg = page
    pg.goto(f"{server}/#/s/{sid}")  # type: ignore[attr-defined]
    pg.wait_for_selector('[data-edit="ghoul_1"]')  # type: ignore[attr-defined]
    pg.click('[data-edit="ghoul_1"]')  # type: ignore[attr-defined]
    pg.wait_for_selector("#edit-dialog[open] #edit-hp")  # type: ignore[attr-defined]
    assert pg.input_value("#edit-hp") == "26"  # type: ignore[attr-defined]
    pg.fill("#edit-hp", "12")  # type: ignore[attr-defined]
    pg.check("#edit-bind")  # type: ignore[attr-defined]
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / "gm-edit-dialog.png"))  # type: ignore[attr-defined]

    pg.fill("#edit-tp", "999")  # type: ignore[attr-defined]  # more than the rules allow: refused at its field
    pg.click("#edit-save")  # type: ignore[attr-defined]
    pg.wait_for_selector('.edit-row.invalid[data-field="tp"]')  # type: ignore[attr-defined]
    assert "TP 999 is not allowed" in pg.inner_text("#edit-error")  # type: ignore[attr-defined]
    pg.screenshot(path=str(SHOTS / "gm-edit-refused.png"))  # type: ignore[attr-defined]
    assert httpx.get(f"{server}/api/sessions/{sid}/records").json()["records"][-1]["source"] != "gm"
    tp = httpx.get(f"{server}/api/sessions/{sid}/edits").json()["combatants"]
    pg.fill("#edit-tp", str(next(f for c in tp if c["id"] == "ghoul_1" for f in c["fields"]  # type: ignore
                                 if f["name"] == "tp")["value"]))
    pg.click("#edit-save")  # type: ignore[attr-defined]
    pg.wait_for_selector("#edit-dialog", state="hidden")  # type: ignore[attr-defined]
    _wait_idle(pg)
    pg.wait_for_selector("#log li.ev-gm_edit")  # type: ignore[attr-defined]
    assert pg.inner_text("#log li.ev-gm_edit").endswith("GM: ghoul_1 HP 26 -> 12, bind no -> yes")  # type: ignore
    order = pg.inner_text('#order li[data-order="ghoul_1"]')  # type: ignore[attr-defined]
    assert "12" in order and "bind" in order

    pg.click('[data-edit="ghoul_2"]')  # type: ignore[attr-defined]
    pg.wait_for_selector("#edit-dialog[open] #edit-remove")  # type: ignore[attr-defined]
    pg.click("#edit-remove")  # type: ignore[attr-defined]
    pg.wait_for_selector('#order li.down[data-order="ghoul_2"]')  # type: ignore[attr-defined]
    texts = [r["text"] for r in httpx.get(f"{server}/api/sessions/{sid}/records").json()["records"]
             if r["source"] == "gm"]
    assert texts == ["GM: ghoul_1 HP 26 -> 12, bind no -> yes", "GM: ghoul_2 is taken out (fled)"]

    _wait_idle(pg)
    pg.click("#undo")  # type: ignore[attr-defined]  # the last GM edit is what undo takes back
    pg.wait_for_selector('#order li[data-order="ghoul_2"]:not(.down)')  # type: ignore[attr-defined]
    assert [r["text"] for r in httpx.get(f"{server}/api/sessions/{sid}/records").json()["records"]
            if r["source"] == "gm"] == texts[:1]


def test_the_gm_adds_a_combatant_like_another_from_the_dialog(page: object, server: str) -> None:
    r = httpx.post(f"{server}/api/sessions", json={"encounter": "kiai/skirmish", "seed": 2, "pc": "human",
                                                   "npc": "review:scripted"})
    sid = r.json()["state"]["id"]
    pg = page
    pg.goto(f"{server}/#/s/{sid}")  # type: ignore[attr-defined]
    pg.wait_for_selector('[data-edit="goblin_a"]')  # type: ignore[attr-defined]
    pg.click('[data-edit="goblin_a"]')  # type: ignore[attr-defined]
    pg.wait_for_selector("#edit-dialog[open] #add-like")  # type: ignore[attr-defined]
    assert pg.input_value("#edit-hex") == next(  # type: ignore[attr-defined]
        c["place"] for c in r.json()["state"]["combatants"] if c["id"] == "goblin_a")
    pg.click("#add-like summary")  # type: ignore[attr-defined]
    pg.fill("#add-id", "goblin_c")  # type: ignore[attr-defined]
    pg.fill("#add-place", "2,5")  # type: ignore[attr-defined]  # where gorou stands: refused, the reason shown
    pg.click("#add-submit")  # type: ignore[attr-defined]
    pg.wait_for_function("document.getElementById('edit-error').textContent.includes('taken')")  # type: ignore
    pg.fill("#add-place", "5,5")  # type: ignore[attr-defined]
    pg.screenshot(path=str(SHOTS / "gm-edit-add.png"))  # type: ignore[attr-defined]
    pg.click("#add-submit")  # type: ignore[attr-defined]
    pg.wait_for_selector("#edit-dialog", state="hidden")  # type: ignore[attr-defined]
    pg.wait_for_selector("#log li.ev-gm_edit")  # type: ignore[attr-defined]
    assert "GM: adds goblin_c (raiders) like goblin_a" in pg.inner_text("#log li.ev-gm_edit")  # type: ignore
    state = httpx.get(f"{server}/api/sessions/{sid}").json()
    assert next(c for c in state["combatants"] if c["id"] == "goblin_c")["place"] == "5,5"


def test_a_fight_the_gm_ends_by_taking_the_last_foe_out_shows_the_edits_in_the_statistics(
        page: object, server: str) -> None:
    r = httpx.post(f"{server}/api/sessions", json={"encounter": "moonlit/duel", "seed": 1, "pc": "human",
                                                   "npc": "review:scripted"})
    sid = r.json()["state"]["id"]
    pg = page
    pg.goto(f"{server}/#/s/{sid}")  # type: ignore[attr-defined]
    pg.click('[data-edit="ghoul"]')  # type: ignore[attr-defined]
    pg.wait_for_selector("#edit-dialog[open] #edit-remove")  # type: ignore[attr-defined]
    pg.click("#edit-remove")  # type: ignore[attr-defined]
    pg.wait_for_selector("#stats-edits")  # type: ignore[attr-defined]
    assert "GM edits: 1 (" in pg.inner_text("#stats-edits")  # type: ignore[attr-defined]
    assert "Over: A" in pg.inner_text("#status")  # type: ignore[attr-defined]


def test_the_replay_shows_the_gms_edit_once(page: object, server: str) -> None:
    r = httpx.post(f"{server}/api/sessions", json={"encounter": "moonlit/duel", "seed": 1, "pc": "human",
                                                   "npc": "review:scripted"})
    sid = r.json()["state"]["id"]
    edited = httpx.post(f"{server}/api/sessions/{sid}/edits", json={"combatant": "ghoul", "changes": {"hp": 5}})
    assert edited.status_code == 200
    n = edited.json()["state"]["decisions"]
    pg = page
    pg.goto(f"{server}/#/r/{sid}")  # type: ignore[attr-defined]
    pg.wait_for_selector("#frame-info")  # type: ignore[attr-defined]
    pg.click("#last")  # type: ignore[attr-defined]
    pg.wait_for_function(f"document.getElementById('frame-info').textContent.startsWith('decision {n}/')")  # type: ignore
    info = pg.inner_text("#frame-info")  # type: ignore[attr-defined]
    assert "GM: ghoul HP " in info and "GM: GM:" not in info and "(gm)" in info, info
