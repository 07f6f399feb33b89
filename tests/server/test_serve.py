"""`trpg-arena serve` as users start it (a subprocess), the reference NPC client against it, and the load test."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx2 as httpx

from tests.server.live import served
from tests.server.load import run_load

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def test_the_reference_client_runs_the_npc_turn_and_a_restarted_server_keeps_the_session(tmp_path: Path) -> None:
    db = tmp_path / "table.db"
    with served(db) as (base, _):
        made = httpx.post(f"{base}/api/sessions", json={"encounter": "reincarnator/duel", "seed": 2, "pc": "human",
                                                        "npc": "review:scripted"}).json()["state"]
        sid = made["id"]
        assert made["pending"]["seat"]["kind"] == "human"
        end_turn = next(a["index"] for g in made["pending"]["groups"] for a in g["actions"]
                        if a["action"]["verb"] == "end_turn")
        httpx.post(f"{base}/api/sessions/{sid}/actions", json={"index": end_turn})
        out = subprocess.run([sys.executable, str(ROOT / "examples" / "npc_turn_client.py"), "--server", base,
                              "--session", sid], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert "proposes:" in out.stdout and "NPC turn done:" in out.stdout
        records = httpx.get(f"{base}/api/sessions/{sid}/records").json()["records"]
        state = httpx.get(f"{base}/api/sessions/{sid}").json()
    npc_decisions = records[1:]
    assert npc_decisions and {r["source"] for r in npc_decisions} == {"confirmed"}
    assert {r["side"] for r in npc_decisions} == {"red"}
    assert f"NPC turn done: {len(npc_decisions)} decisions" in out.stdout
    assert state["over"] or state["pending"]["seat"]["kind"] == "human"
    with served(db) as (base, _):  # a new server process on the same file
        assert httpx.get(f"{base}/api/sessions/{sid}").json() == state


def test_serve_refuses_a_bad_origin_in_one_line(tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "serve", "--db", str(tmp_path / "x.db"), "--allow-origin", "vtt.example"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "--allow-origin takes an origin" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "x.db").exists()


def test_the_client_starts_a_session_when_given_none(tmp_path: Path) -> None:
    with served(tmp_path / "t.db") as (base, _):
        out = subprocess.run([sys.executable, str(ROOT / "examples" / "npc_turn_client.py"), "--server", base,
                              "--encounter", "kiai/duel"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "started session" in out.stdout and "the combat is over" in out.stdout


def test_the_client_says_in_one_line_when_no_server_answers_or_a_pc_acts_first(tmp_path: Path) -> None:
    client = [sys.executable, str(ROOT / "examples" / "npc_turn_client.py")]
    out = subprocess.run([*client, "--server", "http://127.0.0.1:9"], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert out.stderr.strip().count("\n") == 0 and "no answer from http://127.0.0.1:9" in out.stderr
    with served(tmp_path / "t.db") as (base, _):
        made = httpx.post(f"{base}/api/sessions", json={"encounter": "reincarnator/duel", "seed": 2, "pc": "human",
                                                        "npc": "review:scripted"}).json()["state"]
        assert made["pending"]["seat"]["kind"] == "human"
        out = subprocess.run([*client, "--server", base, "--session", made["id"]], capture_output=True, text=True,
                             timeout=300)
    assert out.returncode == 0, out.stderr
    assert "is played at the table" in out.stdout and "no NPC decision was open" in out.stdout
    assert "0 decisions" not in out.stdout


def _get_on(conn: socket.socket, host: str, path: str) -> bytes:
    """Send one HTTP/1.1 GET on an open connection, read its whole answer (the API answers with a length); its head."""
    conn.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = conn.recv(65536)
        if not chunk:
            return answer  # closed by the server
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length"))
    while len(body) < length:
        body += conn.recv(65536)
    return head


def test_an_idle_keep_alive_connection_outlives_the_clients_own_expiry(tmp_path: Path) -> None:
    # httpx reuses an idle connection for 5 s: a server closing it sooner, or as soon, races the client's next
    # request (a reset). The same connection, idle for longer than that, must still answer.
    with served(tmp_path / "t.db") as (base, _):
        where = urlsplit(base)
        with socket.create_connection((where.hostname, where.port), timeout=30) as conn:
            assert _get_on(conn, where.netloc, "/api/sessions").startswith(b"HTTP/1.1 200")
            time.sleep(6)
            assert _get_on(conn, where.netloc, "/api/sessions").startswith(b"HTTP/1.1 200")


def test_fifty_sessions_at_once_with_agents_on_every_side() -> None:
    measured = run_load(sessions=50, encounter="duel")
    print(measured)
    assert measured["errors"] == [] and measured["finished"] == 50
    assert measured["lost_decisions"] == 0 and measured["out_of_order"] == 0
    assert measured["decisions"] > 50 and measured["requests"] >= measured["decisions"]
