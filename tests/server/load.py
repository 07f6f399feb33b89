"""A bounded load test: many sessions played to the end at once through the API of a real server on 127.0.0.1.

``trpg-arena serve`` runs in a subprocess; one client thread per session creates it (agents on every
side), applies its decisions one request at a time (``POST /step``) and a WebSocket per session
watches it. At the end every session must be over, its stored records must be exactly the
decisions the client saw applied, and its watcher must have received each of them, in order.

    python -m tests.server.load --sessions 50 --encounter skirmish

prints p50/p95 request latency and decisions per second as JSON, and the server's resident memory
(RSS) at its start, at its peak while the sessions play and once they are over. The server is not
warmed up: the first requests arrive while no rule system is loaded yet. With ``--finished N`` the same server then
plays N more sessions to the end (agents on every side, a few clients at a time) and reports its
resident memory (RSS) before and after: finished sessions leave memory, so it stays bounded.

    python -m tests.server.load --sessions 100 --encounter skirmish --finished 1000
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
SETTLE_S = 2.0


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


def rss_mb(pid: int) -> float:
    """Resident memory of process `pid` in MB (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"no VmRSS for process {pid}")


def sample_peak(pid: int, stop: threading.Event, peak: list[float]) -> None:
    """Keep `peak[0]` at the highest RSS of process `pid` seen until `stop` (every quarter second)."""
    while not stop.wait(0.25):
        try:
            peak[0] = max(peak[0], rss_mb(pid))
        except (OSError, RuntimeError):
            return  # the server has exited


def finish_many(base: str, pid: int, count: int, encounter: str, clients: int = 4) -> dict[str, Any]:
    """Play `count` sessions to the end on a running server, `clients` at a time; its RSS before and after."""
    systems = list(RULESETS)
    todo = list(range(count))
    lock = threading.Lock()
    errors: list[str] = []
    finished = [0]
    before = rss_mb(pid)
    peak = [before]

    def client() -> None:
        with httpx.Client(base_url=base, timeout=REQUEST_TIMEOUT) as http:
            while True:
                with lock:
                    if not todo:
                        return
                    i = todo.pop()
                r = http.post("/api/sessions", json={"encounter": f"{systems[i % len(systems)]}/{encounter}",
                                                     "seed": i, "pc": "scripted", "npc": "scripted"})
                for _ in range(100):  # each request plays up to the server's run limit
                    if r.status_code >= 300 or r.json()["state"]["over"]:
                        break
                    r = http.post(f"/api/sessions/{r.json()['state']['id']}/run", json={})
                with lock:
                    if r.status_code >= 300:
                        errors.append(f"{r.status_code} {r.text[:200]}")
                    else:
                        finished[0] += r.json()["state"]["over"]
                    if i % 50 == 0:
                        peak[0] = max(peak[0], rss_mb(pid))

    began = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    time.sleep(SETTLE_S)
    after = rss_mb(pid)
    return {"finished_sessions": count, "finished_encounter": encounter, "finished_over": finished[0],
            "finished_errors": errors, "finished_wall_s": round(time.perf_counter() - began, 1),
            "rss_mb_before": before, "rss_mb_peak": max(peak[0], after), "rss_mb_after": after}


def run_load(sessions: int = 50, encounter: str = "duel", max_requests: int = 5000, finished: int = 0,
             finished_encounter: str = "skirmish") -> dict[str, Any]:
    """Play `sessions` combats at once (the built-in `encounter` of each system in turn); returns the measures.

    With `finished`, then that many more sessions of `finished_encounter` to the end (see `finish_many`).
    """
    systems = list(RULESETS)
    with TemporaryDirectory() as folder, served(Path(folder) / "load.db") as (base, proc):
        start = threading.Barrier(max(1, sessions))
        played = [Played() for _ in range(sessions)]
        threads = [threading.Thread(target=_play, args=(base, f"{systems[i % len(systems)]}/{encounter}", i, start,
                                                        played[i], max_requests)) for i in range(sessions)]
        rss_start = rss_mb(proc.pid)
        peak, stop = [rss_start], threading.Event()
        sampler = threading.Thread(target=sample_peak, args=(proc.pid, stop, peak), daemon=True)
        sampler.start()
        began = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - began
        stop.set()
        sampler.join()
        time.sleep(SETTLE_S)  # the server unloads finished sessions moments after their last request
        rss_played = {"rss_mb_start": rss_start, "rss_mb_peak_sessions": peak[0],
                      "rss_mb_after_sessions": rss_mb(proc.pid)}
        memory = finish_many(base, proc.pid, finished, finished_encounter) if finished else {}
    latencies = sorted(x for p in played for x in p.latencies)
    decisions = sum(len(p.applied) for p in played)

    def quantile(q: float) -> float:
        return round(1000 * latencies[min(len(latencies) - 1, int(q * len(latencies)))], 1) if latencies else 0.0

    return {"sessions": sessions, "encounter": encounter, "finished": sum(p.over for p in played),
            "decisions": decisions, "requests": len(latencies), "errors": [e for p in played for e in p.errors],
            "lost_decisions": sum(len(p.applied) - len(set(p.applied) & set(p.watched)) for p in played),
            "out_of_order": sum(p.watched != sorted(p.watched) for p in played),
            "wall_s": round(wall, 2), "decisions_per_s": round(decisions / wall, 1) if wall else 0.0,
            "p50_ms": quantile(0.50), "p95_ms": quantile(0.95), "max_ms": quantile(1.0), **rss_played, **memory}


def main() -> None:
    """Command line: run the load test and print its measures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--encounter", default="duel", help="built-in encounter name played on every system")
    parser.add_argument("--finished", type=int, default=0, help="then play this many more sessions to the end "
                        "and report the server's memory")
    parser.add_argument("--finished-encounter", default="skirmish")
    args = parser.parse_args()
    print(json.dumps(run_load(args.sessions, args.encounter, finished=args.finished,
                              finished_encounter=args.finished_encounter), indent=2))


if __name__ == "__main__":
    main()
