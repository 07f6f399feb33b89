"""`trpg-arena serve` under pressure, as users start it: a search that would never end, simultaneous
first requests, SIGTERM, tokens kept out of `ps`, refused WebSockets, errors on kept-alive connections."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2 as httpx
import pytest
import uvicorn
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.server.live import free_port
from trpg_arena.server import ServerConfig, create_app

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]
SYSTEMS = ("moonlit/skirmish", "kiai/duel", "investigator/duel", "reincarnator/duel")


@contextmanager
def cold_server(db: Path, *args: str, env: dict[str, str] | None = None,
                default_db: bool = False) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``trpg-arena serve`` in a subprocess, waited for by its port only: no request warms it up.

    `default_db`: no ``--db`` (the server opens its default database).
    """
    port = free_port()
    where = [] if default_db else ["--db", str(db)]
    proc = subprocess.Popen([*CLI, "serve", "--port", str(port), *where, *args], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **(env or {})})
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited: {proc.stderr.read() if proc.stderr else ''}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not listen within 60 s") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)


def _timed(method: str, url: str, **kwargs: object) -> tuple[int, float]:
    started = time.monotonic()
    r = httpx.request(method, url, timeout=30, **kwargs)  # type: ignore[arg-type]
    return r.status_code, time.monotonic() - started


def test_a_hanging_proposal_holds_nothing_and_sigterm_stops_the_server(tmp_path: Path) -> None:
    with cold_server(tmp_path / "s.db", "--agent-seconds", "60") as (base, proc):
        one = httpx.post(f"{base}/api/sessions", json={"encounter": "moonlit/skirmish"}, timeout=60).json()
        other = httpx.post(f"{base}/api/sessions", json={"encounter": "kiai/duel"}, timeout=60).json()
        sid, oid = one["state"]["id"], other["state"]["id"]
        answers: list[int] = []

        def search() -> None:
            try:
                r = httpx.post(f"{base}/api/sessions/{sid}/proposal", json={"agent": "mcts:simulations=100000"},
                               timeout=120)
                answers.append(r.status_code)
            except httpx.TransportError:
                answers.append(-1)  # the server went away first

        hanging = threading.Thread(target=search, daemon=True)
        hanging.start()
        time.sleep(1.0)  # the search is running now
        for method, url in (("GET", f"/api/sessions/{sid}"), ("GET", f"/api/sessions/{sid}/records"),
                            ("POST", f"/api/sessions/{sid}/proposal"), ("GET", f"/api/sessions/{oid}"),
                            ("GET", "/api/rulesets"), ("GET", "/api/sessions")):
            status, took = _timed(method, base + url, json={} if method == "POST" else None)
            assert status == 200 and took < 2.0, (url, status, took)
        assert hanging.is_alive() and not answers  # still searching: nothing else waited for it
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        assert time.monotonic() - started < 10
        hanging.join(10)


@pytest.mark.parametrize("trial", range(3))
def test_simultaneous_first_requests_of_every_system_all_succeed(tmp_path: Path, trial: int) -> None:
    with cold_server(tmp_path / "s.db") as (base, _):
        results: dict[str, int] = {}

        def create(encounter: str) -> None:
            npc = "mcts:easy" if encounter.startswith("kiai") else "scripted"
            r = httpx.post(f"{base}/api/sessions", json={"encounter": encounter, "npc": npc, "seed": trial},
                           timeout=60)
            results[encounter] = r.status_code

        threads = [threading.Thread(target=create, args=(e,)) for e in SYSTEMS]
        for t in threads:
            t.start()
        for t in threads:
            t.join(90)
    assert results == {e: 201 for e in SYSTEMS}


def test_the_token_comes_from_a_file_or_the_environment_never_the_command_line(tmp_path: Path) -> None:
    secret = "tok-" + os.urandom(8).hex()
    (tmp_path / "token").write_text(secret + "\n", encoding="utf-8")
    for args, env in ((["--token-file", str(tmp_path / "token")], None), ([], {"TRPG_ARENA_TOKEN": secret})):
        with cold_server(tmp_path / "s.db", *args, env=env) as (base, proc):
            assert secret not in " ".join(proc.args)  # what `ps` shows
            assert httpx.get(f"{base}/api/sessions", timeout=30).status_code == 401
            ok = httpx.get(f"{base}/api/sessions", headers={"authorization": f"Bearer {secret}"}, timeout=30)
            assert ok.status_code == 200
            ws_url = base.replace("http", "ws") + "/api/sessions/x/events"
            with pytest.raises(InvalidStatus) as refused:
                connect(ws_url, open_timeout=30).close()
            assert refused.value.response.status_code == 401  # the documented status, not a bare 403
            assert b"unauthorized" in refused.value.response.body


def test_an_unreadable_token_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "empty").write_text("\n", encoding="utf-8")
    for path in (tmp_path / "missing", tmp_path / "empty"):
        r = subprocess.run([*CLI, "serve", "--db", str(tmp_path / "x.db"), "--token-file", str(path)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode != 0 and f"--token-file {path}" in r.stderr and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_serve_and_autopilot_default_to_the_same_database(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "TRPG_ARENA_DB": ""}
    expected = tmp_path / "data" / "trpg-arena" / "sessions.db"
    listed = subprocess.run([*CLI, "autopilot", "--list"], capture_output=True, text=True, timeout=120, env=env)
    assert f"no session database at {expected} yet" in listed.stdout.replace("\n", ""), listed.stdout + listed.stderr
    assert not expected.exists()  # listing made nothing
    with cold_server(tmp_path / "ignored.db", env=env, default_db=True) as (_, proc):
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    assert expected.exists() and f"sessions: {expected}" in out.replace("\n", "")


def test_a_kept_alive_connection_survives_an_unexpected_error(tmp_path: Path) -> None:
    app = create_app(ServerConfig(db=tmp_path / "s.db"))

    @app.get("/api/fails")
    def fails() -> None:  # an error no handler knows: the last-resort 500
        raise RuntimeError("boom")

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/api/fails")
        failed = conn.getresponse()
        assert failed.status == 500 and b"RuntimeError: boom" in failed.read()
        sock = conn.sock
        assert sock is not None
        conn.request("GET", "/api/rulesets")
        again = conn.getresponse()
        assert again.status == 200 and again.read()
        assert conn.sock is sock  # the same connection answered
    finally:
        server.should_exit = True
        thread.join(30)


def test_a_websocket_that_never_reads_is_cut_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from trpg_arena.server import ws as ws_module

    monkeypatch.setattr(ws_module, "SEND_TIMEOUT", 1.0)
    app = create_app(ServerConfig(db=tmp_path / "s.db"))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="critical",
                                           ws="websockets-sansio"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    try:
        made = httpx.post(f"{base}/api/sessions", json={"encounter": "moonlit/skirmish", "pc": "scripted",
                                                        "npc": "scripted", "run": False}, timeout=60).json()
        sid = made["state"]["id"]
        idle = socket.socket()
        idle.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a page that reads nothing, on a small buffer
        idle.connect(("127.0.0.1", port))
        idle.sendall((f"GET /api/sessions/{sid}/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        entry = app.state.hub._entries[sid]
        deadline = time.monotonic() + 30
        while not entry.watchers and time.monotonic() < deadline:
            time.sleep(0.05)
        assert entry.watchers, "the socket never joined"
        played = 0
        for _ in range(20):  # the whole fight, taken back, again: megabytes of events nobody reads
            played += 1
            httpx.post(f"{base}/api/sessions/{sid}/run", json={}, timeout=60)
            decisions = httpx.get(f"{base}/api/sessions/{sid}", timeout=60).json()["decisions"]
            httpx.post(f"{base}/api/sessions/{sid}/undo", json={"decisions": decisions}, timeout=60)
            if not entry.watchers:
                break
        deadline = time.monotonic() + 10
        while entry.watchers and time.monotonic() < deadline:
            time.sleep(0.1)
        print(f"cut off after {played} fights")
        assert not entry.watchers  # dropped: its queue and handler are gone
        idle.close()
    finally:
        server.should_exit = True
        thread.join(30)


def test_requests_piling_up_behind_agent_work_are_answered_in_time(tmp_path: Path) -> None:
    big = "mcts:simulations=100000"
    with cold_server(tmp_path / "s.db", "--agent-seconds", "1") as (base, _):
        sid = httpx.post(f"{base}/api/sessions", json={"encounter": "moonlit/skirmish", "pc": big, "npc": big,
                                                       "run": False}, timeout=60).json()["state"]["id"]
        answers: list[tuple[int, str, float]] = []

        def go_on() -> None:
            started = time.monotonic()
            r = httpx.post(f"{base}/api/sessions/{sid}/run", json={}, timeout=60)
            answers.append((r.status_code, r.json().get("error", ""), time.monotonic() - started))

        threads = [threading.Thread(target=go_on) for _ in range(6)]
        for t in threads:
            t.start()
        time.sleep(0.5)
        status, took = _timed("GET", f"{base}/api/rulesets")
        assert status == 200 and took < 2.0
        for t in threads:
            t.join(60)
    assert len(answers) == 6 and any(status == 200 for status, _, _ in answers)
    for status, error, took in answers:
        assert (status, error) in ((200, ""), (503, "session_busy")), answers
        assert took < 1 + 2 + 1.5, answers  # its deadline, the grace, and the agent's last playout
