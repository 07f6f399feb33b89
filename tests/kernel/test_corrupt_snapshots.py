"""Corrupt saves are refused with a located error, never a raw crash: a seeded fuzz over every rule system.

600 snapshots taken mid-combat (150 per system) each get one random mutation (a key deleted, None,
a negative or out-of-range number, a value of the wrong type) somewhere in their state, dice, log or
header; `Combat.restore` and the first look any user takes (the open decision, the legal actions,
the combatants) either work or raise `SnapshotError`, and a snapshot that is restored then plays a
few random legal actions without a crash (`RuleSystem.check_state` refused states that contradict
themselves). Then stored sessions' decision records, checkpoints and setups are mutated in the
database: `Session.load` either works or raises the store's `StoreError` naming the file and the
session.
"""

from __future__ import annotations

import copy
import json
import random
import sqlite3
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SYSTEMS
from trpg_arena.rules import Combat
from trpg_arena.rules.core.errors import SnapshotError
from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore, StoreError

SNAPSHOTS = 600
ACTIONS_AFTER = 3  # a successful restore then plays this many random legal actions
RECORDS = 160
WRONG = ("delete", None, -1, -37, 10**6, 2**63, 99, "", "x", "-1", [], [None], ["a", "b"], {}, {"x": 1}, 0.5,
         float("nan"), True, False)


@cache
def mid_combat(rid: str) -> dict[str, Any]:
    """A snapshot of `rid`'s skirmish twelve decisions in (every kind of state part is in use by then)."""
    c = Combat(f"{rid}/skirmish", seed=1)
    for _ in range(12):
        if not c.over:
            c.act(c.legal_actions()[-1])
    return c.snapshot()


def places(node: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every value inside `node` (keys and list indices)."""
    yield at
    if isinstance(node, dict):
        for k, v in node.items():
            yield from places(v, (*at, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from places(v, (*at, i))


def mutated(data: Any, rng: random.Random, weights: dict[str, int]) -> tuple[Any, str]:
    """A copy of `data` with one value replaced by a wrong one (or its key deleted); and what was done."""
    out = copy.deepcopy(data)
    paths = [p for p in places(out) if p]
    path = rng.choices(paths, [weights.get(str(p[0]), 1) for p in paths])[0]
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    wrong = rng.choice(WRONG)
    if wrong == "delete":
        del parent[path[-1]]
    else:
        parent[path[-1]] = copy.deepcopy(wrong)
    return out, f"{'.'.join(map(str, path))} = {wrong!r}"


def test_six_hundred_mutated_snapshots_never_crash_raw() -> None:
    rng = random.Random(18)
    refused = 0
    crashes = []
    for i in range(SNAPSHOTS):
        rid = SYSTEMS[i % len(SYSTEMS)]
        snap, what = mutated(mid_combat(rid), rng, {"state": 12, "dice": 3, "log": 2, "encounter": 2})
        try:
            c = Combat.restore(snap)
            if c.decision is not None:
                assert c.legal_actions()
            assert c.combatants
        except SnapshotError as e:
            assert "\n" not in str(e)
            refused += 1
            continue
        except Exception as e:  # noqa: BLE001 - the point: list every raw crash
            crashes.append(f"{rid}: {what}: {type(e).__name__} {e}")
            continue
        try:  # a restored snapshot holds together: the rules can play on from it
            for _ in range(ACTIONS_AFTER):
                if c.over:
                    break
                legal = c.legal_actions()
                c.act(legal[rng.randrange(len(legal))])
                assert c.combatants
        except Exception as e:  # noqa: BLE001 - the point: list every raw crash
            crashes.append(f"{rid}: {what}: after restoring: {type(e).__name__} {e}")
    assert crashes == [], f"{len(crashes)} raw crashes:\n" + "\n".join(crashes[:20])
    assert refused > SNAPSHOTS // 4  # the mutations do break things: the test can fail


def _stored(db: Path) -> dict[str, str]:
    """One session per rule system, ten decisions in (a checkpoint at 0, records after), by id."""
    store = SessionStore(db)
    ids = {}
    for rid in SYSTEMS:
        s = Session(f"{rid}/skirmish", seed=2, pc="scripted", npc="scripted", store=store)
        s.run(max_decisions=10)
        ids[s.id] = rid
    store.close()
    return ids


@pytest.mark.parametrize("table", ["decisions", "checkpoints", "sessions"])
def test_mutated_records_checkpoints_and_setups_are_the_stores_located_error(tmp_path: Path, table: str) -> None:
    db = tmp_path / "s.db"
    ids = _stored(db)
    column, key = {"decisions": ("data", "seq"), "checkpoints": ("data", "n"), "sessions": ("setup", "id")}[table]
    con = sqlite3.connect(db)
    rows = con.execute(f"SELECT rowid, session, {column} FROM {table}" if table != "sessions"  # noqa: S608
                       else "SELECT rowid, id, setup FROM sessions").fetchall()
    con.close()
    rng = random.Random(f"18-{table}")
    crashes, refused = [], 0
    for _ in range(RECORDS // 3):
        rowid, sid, text = rng.choice(rows)
        data, what = mutated(json.loads(text), rng, {"combat": 6, "action": 4, "faces": 3, "encounter": 2})
        con = sqlite3.connect(db)
        con.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (json.dumps(data), rowid))  # noqa: S608
        con.commit()
        store = SessionStore(db)
        try:
            Session.load(store, sid).pending()
        except StoreError as e:
            assert str(db) in str(e) and sid in str(e) and "\n" not in str(e), str(e)
            refused += 1
        except Exception as e:  # noqa: BLE001 - the point: list every raw crash
            crashes.append(f"{ids[sid]} {table} {what}: {type(e).__name__} {e}")
        finally:
            store.close()
            con.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (text, rowid))  # noqa: S608
            con.commit()
            con.close()
    assert crashes == [], f"{len(crashes)} raw crashes:\n" + "\n".join(crashes[:20])
    assert refused > 0


CONTRADICTIONS = [  # (system, path into the snapshot's state, wrong value, the error's words)
    ("investigator", ("fighters", 0, "pos"), [12, -1], "state.fighters[0].pos (12, -1) is off the board"),
    ("investigator", ("fighters", 1, "id"), "ada", "state.fighters[1].id 'ada' is not the roster's 'walsh'"),
    ("kiai", ("turn_index",), 99, "state.turn_index 99 is out of range"),
    ("kiai", ("fighters", "kaede", "id"), "gorou", "state.fighters['kaede'].id 'gorou' differs from its key"),
    ("moonlit", ("order", 1), "nobody", "state.order[1] 'nobody' is no fighter of this combat"),
    ("moonlit", ("fighters", "kei", "zone"), "moon", "state.fighters['kei'].zone 'moon' is not one of"),
    ("reincarnator", ("fighters", "chen", "cell"), [1, -1], "state.fighters['chen'].cell (1, -1) is off the board"),
    ("reincarnator", ("order", 0), "", "state.order[0] '' is no fighter of this combat"),
]


@pytest.mark.parametrize(("rid", "path", "wrong", "words"), CONTRADICTIONS,
                         ids=[f"{c[0]}-{'.'.join(map(str, c[1]))}" for c in CONTRADICTIONS])
def test_a_state_that_contradicts_itself_is_refused_with_the_field_named(
        rid: str, path: tuple[Any, ...], wrong: Any, words: str) -> None:
    snap = copy.deepcopy(mid_combat(rid))
    parent = snap["state"]
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = wrong
    with pytest.raises(SnapshotError) as refused:
        Combat.restore(snap)
    message = str(refused.value)
    assert words in message and "\n" not in message, message
    Combat.restore(mid_combat(rid))  # the same snapshot unharmed restores
