"""A bounded load test: many sessions played to the end at once through the API of a real server on 127.0.0.1.

``trpg-arena serve`` runs in a subprocess; one client thread per session creates it (agents on every
side), applies its decisions one request at a time (``POST /step``) and a WebSocket per session
watches it. At the end every session must be over, its stored records must be exactly the
decisions the client saw applied, and its watcher must have received each of them, in order.

    python -m tests.server.load --sessions 50 --encounter skirmish

prints p50/p95 request latency and decisions per second as JSON.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import httpx2 as httpx
from websockets.sync.client import connect

from tests.server.live import served
from trpg_arena.rules import RULESETS

REQUEST_TIMEOUT = 120.0


@dataclass
class Played:
    """What one client did and saw."""

    sid: str = ""
    latencies: list[float] = field(default_factory=list)
    applied: list[int] = field(default_factory=list)  # decision numbers the responses reported
    watched: list[int] = field(default_factory=list)  # decision numbers the WebSocket pushed
    errors: list[str] = field(default_factory=list)
    over: bool = False


def _watch(url: str, played: Played, ready: threading.Event, stop: threading.Event) -> None:
    try:
        with connect(url, open_timeout=30) as ws:
            ready.set()
            while not stop.is_set():
                try:
                    message = json.loads(ws.recv(timeout=0.5))
                except TimeoutError:
                    continue
                if message["type"] == "decision":
                    played.watched.append(message["record"]["n"])
    except Exception as e:  # reported as an error of this session, not raised in a thread
        played.errors.append(f"watcher: {type(e).__name__}: {e}")
        ready.set()


def _play(base: str, encounter: str, seed: int, start: threading.Barrier, played: Played,
          max_requests: int) -> None:
    with httpx.Client(base_url=base, timeout=REQUEST_TIMEOUT) as http:

        def call(method: str, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
            t = time.perf_counter()
            try:
                r = http.request(method, path, json=body)
            except httpx.HTTPError as e:
                played.errors.append(f"{path}: {type(e).__name__}: {e}")
                return None
            played.latencies.append(time.perf_counter() - t)
            if r.status_code >= 300:
                played.errors.append(f"{path}: {r.status_code} {r.text[:200]}")
                return None
            return r.json()

        start.wait()
        made = call("POST", "/api/sessions", {"encounter": encounter, "seed": seed, "pc": "scripted",
                                              "npc": "scripted", "run": False})
        if made is None:
            return
        played.sid = made["state"]["id"]
        stop, ready = threading.Event(), threading.Event()
        ws_url = base.replace("http://", "ws://") + f"/api/sessions/{played.sid}/events"
        watcher = threading.Thread(target=_watch, args=(ws_url, played, ready, stop), daemon=True)
        watcher.start()
        ready.wait(30)
        state = made["state"]
        for _ in range(max_requests):
            if state["over"]:
                break
            out = call("POST", f"/api/sessions/{played.sid}/step", {})
            if out is None:
                break
            played.applied += [d["n"] for d in out["decisions"]]
            state = out["state"]
        played.over = state["over"]
        records = call("GET", f"/api/sessions/{played.sid}/records", {})
        stored = [r["n"] for r in records["records"]] if records else []
        deadline = time.monotonic() + 30
        while len(played.watched) < len(stored) and time.monotonic() < deadline:
            time.sleep(0.05)
        stop.set()
        watcher.join(5)
        if stored != played.applied:
            played.errors.append(f"stored decisions {len(stored)} != applied {len(played.applied)}")


def run_load(sessions: int = 50, encounter: str = "duel", max_requests: int = 5000) -> dict[str, Any]:
    """Play `sessions` combats at once (the built-in `encounter` of each system in turn); returns the measures."""
    systems = list(RULESETS)
    with TemporaryDirectory() as folder, served(Path(folder) / "load.db") as (base, _):
        start = threading.Barrier(sessions)
        played = [Played() for _ in range(sessions)]
        threads = [threading.Thread(target=_play, args=(base, f"{systems[i % len(systems)]}/{encounter}", i, start,
                                                        played[i], max_requests)) for i in range(sessions)]
        began = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - began
    latencies = sorted(x for p in played for x in p.latencies)
    decisions = sum(len(p.applied) for p in played)

    def quantile(q: float) -> float:
        return round(1000 * latencies[min(len(latencies) - 1, int(q * len(latencies)))], 1) if latencies else 0.0

    return {"sessions": sessions, "encounter": encounter, "finished": sum(p.over for p in played),
            "decisions": decisions, "requests": len(latencies), "errors": [e for p in played for e in p.errors],
            "lost_decisions": sum(len(p.applied) - len(set(p.applied) & set(p.watched)) for p in played),
            "out_of_order": sum(p.watched != sorted(p.watched) for p in played),
            "wall_s": round(wall, 2), "decisions_per_s": round(decisions / wall, 1),
            "p50_ms": quantile(0.50), "p95_ms": quantile(0.95), "max_ms": quantile(1.0)}


def main() -> None:
    """Command line: run the load test and print its measures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--encounter", default="duel", help="built-in encounter name played on every system")
    args = parser.parse_args()
    print(json.dumps(run_load(args.sessions, args.encounter), indent=2))


if __name__ == "__main__":
    main()
