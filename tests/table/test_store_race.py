"""Three processes play one stored session at once: every decision is stored once, in order, and the game is the
one a single process plays (the copies that are behind are refused, catch up and go on)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore


def test_three_processes_racing_on_one_session_store_each_decision_once(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    sid = str(Session("reincarnator/skirmish", seed=2, pc="review:scripted", npc="review:scripted",
                      store=SessionStore(db)).id)
    workers = [subprocess.Popen([sys.executable, "-m", "tests.table.race_worker", str(db), sid],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    results = [w.communicate(timeout=300) for w in workers]
    assert all(w.returncode == 0 for w in workers), [err for _, err in results]
    stored = sum(int(out.split()[0]) for out, _ in results)
    with sqlite3.connect(db) as con:
        rows = list(con.execute("SELECT n, COUNT(*) FROM decisions WHERE session = ? AND live = 1 GROUP BY n "
                                "ORDER BY n", (sid,)))
    assert rows == [(n, 1) for n in range(len(rows))] and stored == len(rows)  # no gap, no second row, none lost
    alone = Session("reincarnator/skirmish", seed=2, pc="review:scripted", npc="review:scripted")
    while alone.pending() is not None:
        alone.confirm()
    raced = Session.load(SessionStore(db), sid)
    assert [e.json_line() for e in raced.combat.log] == [e.json_line() for e in alone.combat.log]
