"""A page of an origin not allowed gets no CORS header at all: refused, answered or preflighted.

Starlette added ``access-control-expose-headers`` to every answer to a request with an Origin (a 403
refusal included), and its allowed methods and headers to a refused preflight; the docs say such pages
get no CORS headers.
"""

from __future__ import annotations

from pathlib import Path

from tests.server.conftest import make_client

VTT, EVIL = "https://vtt.example", "https://evil.example"


def cors_headers(headers: object) -> list[str]:
    return [k for k in headers.keys() if k.lower().startswith("access-control-")]  # type: ignore[attr-defined]


def test_a_foreign_origin_gets_no_cors_header(db: Path) -> None:
    with make_client(db, allow_origins=(VTT,)) as client:
        answers = {
            "refused": client.post("/api/sessions", json={"encounter": "moonlit/duel"}, headers={"origin": EVIL}),
            "read": client.get("/api/sessions", headers={"origin": EVIL}),
            "unknown": client.get("/api/sessions/nosuch", headers={"origin": EVIL}),
            "preflight": client.options("/api/sessions", headers={"origin": EVIL,
                                                                  "access-control-request-method": "POST"}),
        }
        assert [r.status_code for r in answers.values()] == [403, 200, 404, 400]
        for what, r in answers.items():
            assert cors_headers(r.headers) == [], (what, dict(r.headers))
            assert "origin" in r.headers.get("vary", "").lower(), what  # the allowed origin's answer differs
        allowed = client.get("/api/sessions", headers={"origin": VTT})
        assert allowed.headers["access-control-allow-origin"] == VTT
        assert "etag" in allowed.headers["access-control-expose-headers"]
        r = client.options("/api/sessions", headers={"origin": VTT, "access-control-request-method": "POST"})
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == VTT
