"""A 401 says which token to send for the server that runs: `mcp --http` said "the token `trpg-arena serve`
printed", also when the token came from --token-file and nothing printed one."""

from __future__ import annotations

from pathlib import Path

import httpx2 as httpx
from fastapi.testclient import TestClient

from tests.mcp.http import mcp_http
from trpg_arena.server import create_app
from trpg_arena.server.config import ServerConfig


def test_mcp_http_with_a_token_file_says_the_token_it_was_given(tmp_path: Path) -> None:
    (tmp_path / "token").write_text("s3cret-token\n", encoding="utf-8")
    with mcp_http(tmp_path / "m.db", "--host", "0.0.0.0", "--token-file", str(tmp_path / "token")) as (url, first):
        assert "token:" not in first  # nothing printed one
        r = httpx.post(url, json={}, headers={"accept": "application/json, text/event-stream"}, timeout=10)
    assert r.status_code == 401
    assert r.json()["message"] == ("no token: send 'Authorization: Bearer <token>' (the token `trpg-arena mcp --http` "
                                   "was given: --token, --token-file or $TRPG_ARENA_TOKEN)")


def test_serve_says_the_token_it_printed_or_was_given(tmp_path: Path) -> None:
    for token, said in ((None, "the token `trpg-arena serve` printed when it started"),
                        ("s3cret-token", "the token `trpg-arena serve` was given: --token, --token-file or")):
        config = ServerConfig.for_host("0.0.0.0", token=token, db=tmp_path / "s.db")
        with TestClient(create_app(config)) as client:
            r = client.get("/api/sessions", headers={"authorization": "Bearer wrong"})
        assert r.status_code == 401 and r.json()["message"].startswith("a wrong token: send 'Authorization: Bearer")
        assert said in r.json()["message"] and "mcp" not in r.json()["message"]
