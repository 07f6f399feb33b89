"""A malformed request is refused in plain words at the field as the request names it, never in pydantic's words.

``changes.hp: a whole number is needed`` with ``where: changes.hp`` (the page marks that field), not
``body.changes.hp.bool: Input should be a valid boolean (and 3 more)``: a union's branches are one field,
``body.`` and pydantic's type tags are left out, and the documented shape (error, message, where) stays.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

PYDANTIC_WORDS = ("Input should", "String should", "List should", "body.", "bool", "constrained", "(and ")


def _session(client: TestClient) -> str:
    r = client.post("/api/sessions", json={"encounter": "moonlit/skirmish", "seed": 2, "pc": "human",
                                           "npc": "review:scripted", "run": False})
    assert r.status_code == 201, r.text
    return r.json()["state"]["id"]


def _plain(r: object, where: str, message: str) -> None:
    body = r.json()  # type: ignore[attr-defined]
    assert r.status_code == 422 and body["error"] == "invalid_request", body  # type: ignore[attr-defined]
    assert body["where"] == where and body["message"] == f"{where}: {message}", body
    assert not any(words in body["message"] for words in PYDANTIC_WORDS), body
    assert body["details"] == [{"where": where, "message": message}], body


@pytest.mark.parametrize(("hp", "message"), [
    (1.5, "a whole number is needed"),  # the dialog's field typed "1.5"
    (10**20, "must be at most 1000000000"),  # typed "1e20"
    (None, "true or false, a whole number, text or a list is needed"),
    ([1], "at least 2 items are needed"),
])
def test_a_gm_edit_of_a_value_no_field_takes_names_the_field(client: TestClient, hp: object, message: str) -> None:
    sid = _session(client)
    r = client.post(f"/api/sessions/{sid}/edits", json={"combatant": "ghoul_1", "changes": {"hp": hp}})
    _plain(r, "changes.hp", message)


def test_an_empty_dice_entry_asks_for_the_faces(client: TestClient) -> None:
    sid = _session(client)
    for faces in ("", []):
        _plain(client.post(f"/api/sessions/{sid}/dice", json={"faces": faces}), "faces", "type the dice faces")
    _plain(client.post(f"/api/sessions/{sid}/dice", json={"faces": [2000]}), "faces[0]", "must be at most 1000")


def test_an_empty_seat_says_what_a_seat_is_and_how_to_go_back_to_the_default(client: TestClient) -> None:
    sid = _session(client)
    r = client.put(f"/api/sessions/{sid}/seats/B", json={"seat": ""})
    _plain(r, "seat", "name a seat: human, an agent (scripted, mcts:hard) or review:<agent>; DELETE the seat to "
                      "give it back its default")


def test_an_id_too_long_and_a_field_missing_are_said_plainly(client: TestClient) -> None:
    sid = _session(client)
    r = client.post(f"/api/sessions/{sid}/edits", json={"combatant": "x" * 101, "changes": {"hp": 1}})
    _plain(r, "combatant", "at most 100 characters are allowed")
    _plain(client.post(f"/api/sessions/{sid}/edits", json={"changes": {"hp": 1}}), "combatant", "is missing")
    _plain(client.get(f"/api/sessions/{sid}/log?limit=0"), "limit", "must be at least 1")


def test_a_problem_with_the_whole_body_is_at_body_and_says_the_rule(client: TestClient) -> None:
    sid = _session(client)
    r = client.post(f"/api/sessions/{sid}/actions", json={"index": 1, "action": {"verb": "stay"}})
    _plain(r, "body", "give exactly one of index, action (got index, action)")


@pytest.mark.parametrize("body", [b"{not json", b"\xff\xfe", b"[" * 50_000 + b"]" * 50_000])
def test_a_body_that_is_no_json_is_a_malformed_request(client: TestClient, body: bytes) -> None:
    """Broken JSON, bytes that are no UTF-8, or nesting too deep to parse: 422 at `body`, as the docs say."""
    r = client.post("/api/sessions", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "invalid_request" and r.json()["where"] == "body", r.text
