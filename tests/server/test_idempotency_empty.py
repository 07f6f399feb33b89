"""An empty ``Idempotency-Key`` that reaches the server is refused naming the header, never taken as no key.

(curl leaves out a header given with an empty value, as ``$(uuidgen)`` gives without uuidgen: the docs make
their keys with Python.)
"""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_an_empty_key_is_422_naming_the_header(client: TestClient) -> None:
    r = client.post("/api/sessions", json={"encounter": "moonlit/duel"}, headers={"idempotency-key": ""})
    assert r.status_code == 422 and r.json()["error"] == "invalid_request", r.text
    assert r.json()["message"].startswith("Idempotency-Key: ")
    assert client.get("/api/sessions").json()["sessions"] == []
