"""Who may call the server: a token beyond loopback, loopback Host names, allowed origins only, bounded bodies."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse

from trpg_arena.server import ServerConfig, create_app
from trpg_arena.server.config import is_loopback

VTT = "https://vtt.example"


def _client(db: Path, base_url: str = "http://127.0.0.1", **config: object) -> TestClient:
    return TestClient(create_app(ServerConfig(db=db, **config)), base_url=base_url)  # type: ignore[arg-type]


def test_loopback_needs_no_token_and_any_other_address_gets_one() -> None:
    assert ServerConfig.for_host("127.0.0.1").token is None
    assert ServerConfig.for_host("::1").token is None and is_loopback("localhost")
    lan = ServerConfig.for_host("0.0.0.0")
    assert lan.token and lan.token_generated and lan.trusted_hosts == ()
    assert lan.token in lan.page_url()
    given = ServerConfig.for_host("192.0.2.7", token="s3cret")
    assert given.token == "s3cret" and not given.token_generated


def test_without_the_token_every_request_is_401(db: Path) -> None:
    config = ServerConfig.for_host("0.0.0.0", token="s3cret", db=db)
    client = TestClient(create_app(config), base_url="http://192.0.2.7:8765")
    for method, path in (("get", "/api/sessions"), ("get", "/"), ("get", "/openapi.json"),
                         ("post", "/api/sessions")):
        r = getattr(client, method)(path)
        assert r.status_code == 401 and r.json()["error"] == "unauthorized", path
    assert client.get("/api/sessions", headers={"authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/api/sessions", headers={"authorization": "Bearer s3cret"}).status_code == 200
    page = client.get("/?token=s3cret")
    assert page.status_code == 200 and "trpg_arena_token=s3cret" in page.headers["set-cookie"]
    assert "HttpOnly" in page.headers["set-cookie"] and "SameSite=Strict" in page.headers["set-cookie"]
    assert client.get("/static/app.js").status_code == 200  # the cookie the page got carries it on
    client.cookies.clear()
    assert client.get("/static/app.js").status_code == 401
    with pytest.raises(WebSocketDenialResponse) as refused, client.websocket_connect("/api/sessions/x/events") as ws:
        ws.receive_json()
    assert refused.value.status_code == 401 and refused.value.json()["error"] == "unauthorized"


def test_a_loopback_server_refuses_foreign_host_names(db: Path) -> None:
    client = _client(db, base_url="http://rebind.example:8765")
    r = client.get("/api/sessions")
    assert r.status_code == 400 and r.json()["error"] == "bad_host"
    assert _client(db, base_url="http://localhost:8765").get("/api/sessions").status_code == 200


def test_cors_answers_allowed_origins_only_with_private_network_access(db: Path) -> None:
    client = _client(db, allow_origins=(VTT,))
    preflight = {"origin": VTT, "access-control-request-method": "POST",
                 "access-control-request-headers": "content-type, authorization",
                 "access-control-request-private-network": "true"}
    r = client.options("/api/sessions", headers=preflight)
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == VTT
    assert r.headers["access-control-allow-private-network"] == "true"
    evil = {**preflight, "origin": "https://evil.example"}
    r = client.options("/api/sessions", headers=evil)
    assert r.status_code == 400 and "access-control-allow-origin" not in r.headers  # the browser stops here
    assert client.get("/api/sessions", headers={"origin": VTT}).headers["access-control-allow-origin"] == VTT
    assert "access-control-allow-origin" not in client.get("/api/sessions",
                                                           headers={"origin": "https://evil.example"}).headers


def test_pages_of_other_origins_cannot_change_anything(db: Path) -> None:
    client = _client(db, allow_origins=(VTT,))
    body = {"encounter": "moonlit/duel"}
    r = client.post("/api/sessions", json=body, headers={"origin": "https://evil.example"})
    assert r.status_code == 403 and r.json()["error"] == "origin_refused"
    assert client.get("/api/sessions").json()["sessions"] == []
    with pytest.raises(WebSocketDenialResponse) as refused, client.websocket_connect(
            "/api/sessions/x/events", headers={"origin": "https://evil.example", "host": "127.0.0.1"}) as ws:
        ws.receive_json()
    assert refused.value.status_code == 403 and refused.value.json()["error"] == "origin_refused"
    assert client.post("/api/sessions", json=body, headers={"origin": VTT}).status_code == 201
    assert client.post("/api/sessions", json=body, headers={"origin": "http://127.0.0.1"}).status_code == 201


def test_an_oversized_body_is_refused(db: Path) -> None:
    client = _client(db, max_body=10_000)
    big = {"encounter_text": "x" * 20_000}
    r = client.post("/api/sessions", json=big)
    assert r.status_code == 413 and r.json()["error"] == "body_too_large"

    def chunks():  # no Content-Length: counted as it streams
        for _ in range(20):
            yield b"x" * 1000

    r = client.post("/api/sessions", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert client.get("/api/sessions").json()["sessions"] == []
    assert client.post("/api/sessions", json={"encounter": "moonlit/duel"}).status_code == 201
