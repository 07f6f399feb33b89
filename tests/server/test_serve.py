"""`trpg-arena serve` as users start it (a subprocess), the reference NPC client against it, and the load test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


def test_fifty_sessions_at_once_with_agents_on_every_side() -> None:
    measured = run_load(sessions=50, encounter="duel")
    print(measured)
    assert measured["errors"] == [] and measured["finished"] == 50
    assert measured["lost_decisions"] == 0 and measured["out_of_order"] == 0
    assert measured["decisions"] > 50 and measured["requests"] >= measured["decisions"]
