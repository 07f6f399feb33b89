"""Writes to the session store: stored first, one writer per decision, a revision for every change.

A second `SessionStore` on the same file stands for another process (the terminal and the server, two
servers): each has its own SQLite connection, as separate processes do.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from tests.table.test_session import hand_faces
from trpg_arena.table.session import Session, StaleRevision
from trpg_arena.table.store import SessionStore, StoreBusy, StoreConflict


def lock_once(other: sqlite3.Connection) -> Callable[[dict], None]:
    """A session listener: another program takes the file's write lock at the first event it hears, once."""
    armed = [True]

    def take(_message: dict) -> None:
        if armed.pop() if armed else False:
            other.execute("BEGIN IMMEDIATE")

    return take


@contextmanager
def held(db: Path) -> Iterator[None]:
    """Another program holding the file's write lock (what made writes fail half-applied before)."""
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


def live_numbers(db: Path, sid: str) -> list[int]:
    with sqlite3.connect(db) as con:
        return [n for (n,) in con.execute("SELECT n FROM decisions WHERE session = ? AND live = 1 ORDER BY n",
                                          (sid,))]


def reviewed(store: SessionStore, **kw: object) -> Session:
    s = Session("reincarnator/skirmish", seed=5, pc="review:scripted", npc="review:scripted", store=store, **kw)
    for _ in range(3):
        s.confirm()
    return s


def seen(s: Session) -> tuple:
    """Everything a caller can observe of a session."""
    p = s.pending()
    return (s.revision, len(s.records), s.combat.snapshot(), s.setup_json(),
            None if p is None else (p.decision, p.proposal and p.proposal.action, p.dice))


def test_a_locked_file_changes_nothing_in_memory_or_on_file_and_the_session_loads_after(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    s = reviewed(SessionStore(db, busy_timeout=0.1))
    before = seen(s)
    with held(db):
        for attempt in (s.confirm, lambda: s.undo(1), lambda: s.set_seat("npc", "scripted"),
                        lambda: s.set_table_dice(True), lambda: s.override(0)):
            with pytest.raises(StoreBusy, match="busy.*nothing was changed"):
                attempt()
            assert seen(s) == before
    assert live_numbers(db, s.id) == [0, 1, 2]
    s.confirm()  # the lock is gone: the same decision goes through, numbered 3
    assert live_numbers(db, s.id) == [0, 1, 2, 3]
    again = Session.load(SessionStore(db), s.id)
    assert [r["action"] for r in again.records] == [r["action"] for r in s.records]
    assert again.combat.snapshot() == s.combat.snapshot() and again.revision == s.revision


def test_dice_asked_for_and_entered_under_a_locked_file(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    s = Session("moonlit/duel", seed=3, pc="scripted", npc="scripted", table_dice=True,
                store=SessionStore(db, busy_timeout=0.1))
    with held(db):
        with pytest.raises(StoreBusy):
            s.run()  # the first roll is asked for: a change like any other
        assert s.pending().dice is None and s.revision == 0
    s.run()
    request = s.pending().dice
    assert request is not None
    before = seen(s)
    faces = " ".join(hand_faces(request, np.random.default_rng(1)))
    with held(db):
        with pytest.raises(StoreBusy):
            s.enter_dice(faces)
        assert seen(s) == before  # the same dice are asked for again
    s.enter_dice(faces)
    twin = Session("moonlit/duel", seed=3, pc="scripted", npc="scripted", table_dice=True)  # never refused
    twin.run()
    twin.enter_dice(faces)
    assert seen(s) == seen(twin)
    again = Session.load(SessionStore(db), s.id)
    assert [e.json_line() for e in again.combat.log] == [e.json_line() for e in s.combat.log]
    assert again.records == s.records


def test_two_processes_on_one_session_one_writes_the_other_catches_up(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    here = reviewed(SessionStore(db))
    there = Session.load(SessionStore(db), here.id)
    heard: list[dict] = []
    there.subscribe(heard.append)
    here.confirm()
    here.confirm()
    with pytest.raises(StaleRevision, match="changed elsewhere"):
        there.confirm()  # its copy is behind: it reloads instead of writing a second decision 3
    assert live_numbers(db, here.id) == [0, 1, 2, 3, 4]
    assert there.combat.snapshot() == here.combat.snapshot() and there.revision == here.revision
    assert [m["record"]["n"] for m in heard if m["type"] == "decision"] == [3, 4]
    there.confirm()  # now current: its decision is 5
    with pytest.raises(StaleRevision):
        here.undo(2)  # now this copy is behind: refused, and caught up
    assert len(here.records) == 6 and live_numbers(db, here.id) == [0, 1, 2, 3, 4, 5]
    here.undo(2)  # an undo elsewhere is heard as one
    assert there.refresh() and len(there.records) == 4 and there.combat.snapshot() == here.combat.snapshot()
    assert heard[-1] == {"type": "undo", "decisions": 4, "revision": there.revision}
    assert there.refresh() is False  # nothing new: one read, nothing done


def test_the_store_refuses_a_second_row_for_a_decision_number(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db")
    s = reviewed(store)
    record = dict(s.records[-1], n=2)
    with pytest.raises(StoreConflict, match="changed elsewhere"):
        store.append(s.id, 2, record, status="running", result=None)  # 3 are stored: 2 is taken
    with pytest.raises(StoreConflict):
        store.append(s.id, 3, record, status="running", result=None, revision=s.revision - 1)
    with sqlite3.connect(tmp_path / "s.db") as con, pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        con.execute("INSERT INTO decisions (session, seq, n, data) VALUES (?, 99, 2, '{}')", (s.id,))
    assert live_numbers(tmp_path / "s.db", s.id) == [0, 1, 2]


@pytest.mark.parametrize("stored", [False, True])
def test_every_change_has_its_revision_and_a_stale_one_changes_nothing(tmp_path: Path, stored: bool) -> None:
    store = SessionStore(tmp_path / "s.db") if stored else None
    s = Session("moonlit/duel", seed=2, pc="review:scripted", npc="review:scripted", store=store)
    revisions = [s.revision]

    def until_dice() -> None:
        while s.pending().dice is None:
            s.confirm()

    for change in (s.confirm, lambda: s.set_autorun(False), s.confirm, lambda: s.undo(1),
                   lambda: s.set_table_dice(True), until_dice, s.cancel_dice):
        change()
        assert s.revision > revisions[-1]  # undo and dice asked for included
        revisions.append(s.revision)
    stale = revisions[-2]
    before = seen(s)
    for attempt in (lambda: s.confirm(revision=stale), lambda: s.submit(0, revision=stale),
                    lambda: s.undo(1, revision=stale), lambda: s.set_seat("pc", "human", revision=stale)):
        with pytest.raises(StaleRevision, match=f"answers revision {stale}.*at revision {s.revision}"):
            attempt()
        assert seen(s) == before
    n = len(s.records)
    s.confirm(revision=s.revision)
    assert len(s.records) == n + 1 or s.pending().dice is not None


def test_a_file_written_before_revisions_opens_and_continues(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    store = SessionStore(db)
    s = reviewed(store)
    doubled = reviewed(store)
    store.close()
    with sqlite3.connect(db) as con:  # as an older version wrote it: no revision, no unique index...
        con.execute("DROP INDEX decisions_one_live")
        con.execute("ALTER TABLE sessions DROP COLUMN revision")
        # ...and one session it already broke (a second row for decision 2)
        con.execute("INSERT INTO decisions (session, seq, n, data) SELECT session, 99, n, data FROM decisions "
                    "WHERE session = ? AND n = 2", (doubled.id,))
    store = SessionStore(db)
    resumed = Session.load(store, s.id)
    assert resumed.combat.snapshot() == s.combat.snapshot()
    resumed.confirm()
    assert live_numbers(db, s.id) == [0, 1, 2, 3]
    with pytest.raises(StoreConflict):
        store.append(s.id, 3, resumed.records[-1], status="running", result=None)  # the head still guards it
    fresh = reviewed(SessionStore(tmp_path / "new.db"))
    assert SessionStore(db).head(s.id).decisions == 4 and fresh.revision == 3


def test_a_file_locked_in_the_middle_of_a_run_stops_it_after_what_is_stored(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    s = Session("moonlit/duel", seed=1, pc="scripted", npc="scripted", store=SessionStore(db, busy_timeout=0.1))
    other = sqlite3.connect(db, isolation_level=None)
    s.subscribe(lock_once(other))  # locked after decision 1
    try:
        assert s.run() == 1 and len(s.records) == 1
        with pytest.raises(StoreBusy):
            s.run()  # nothing decided yet: the caller hears why
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert s.run() > 0 and s.combat.over
    assert live_numbers(db, s.id) == list(range(len(s.records)))
