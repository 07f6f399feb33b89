"""Setting the table up: stored sessions never overwritten, resuming by name, seats from the encounter, bad input.

Run as a user would: ``trpg-arena autopilot`` in a subprocess with its answers on standard input.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import SYSTEMS
from trpg_arena.rules import Combat, load_encounter
from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def autopilot(*args: str, db: Path, answers: str = "q\n", out: Path | None = None) -> subprocess.CompletedProcess[str]:
    extra = ["--out", str(out)] if out is not None else []
    return subprocess.run([*CLI, "autopilot", *args, "--db", str(db), *extra], capture_output=True, text=True,
                          input=answers, timeout=600, env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"})


def test_a_fresh_start_never_destroys_a_stored_session(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    first = autopilot("moonlit/duel", "--pc", "scripted", db=db, answers="\n\n\nq\n")
    assert first.returncode == 0, first.stderr
    (row,) = SessionStore(db).sessions()
    # three confirmations, and the NPC's routine 'stays' (not put to the GM) where a round began between them
    assert row.decisions >= 3 and row.status == "running"
    second = autopilot("moonlit/duel", "--pc", "scripted", db=db)
    assert second.returncode == 0, second.stderr
    rows = {r.id: r for r in SessionStore(db).sessions()}
    assert len(rows) == 2 and rows[row.id].decisions == row.decisions  # the first is untouched

    ambiguous = autopilot("--resume", db=db)
    assert ambiguous.returncode == 2 and "Traceback" not in ambiguous.stderr
    assert "several unfinished sessions" in ambiguous.stderr and all(sid in ambiguous.stderr for sid in rows)
    assert ambiguous.stderr.rstrip().endswith(f"name one: trpg-arena autopilot --resume ID --db {db}")
    named = autopilot("--resume", row.id[:6], db=db)
    assert named.returncode == 0, named.stderr
    assert f"resumed session {row.id}" in named.stdout and f"{row.decisions} decisions" in named.stdout
    listed = subprocess.run([*CLI, "autopilot", "--list", "--db", str(db)], capture_output=True, text=True,
                            env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"})
    assert listed.returncode == 0 and all(sid in listed.stdout for sid in rows)
    head, *table = listed.stdout.splitlines()
    assert head == f"sessions in {db}" and max(len(line) for line in table) <= 80


def test_resume_with_nothing_stored_or_an_unknown_id_says_so(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    SessionStore(db).close()  # a database with no session in it
    r = autopilot("--resume", db=db)
    assert r.returncode == 2 and "no unfinished session" in r.stderr
    r = autopilot("--resume", "feedface", db=db)
    assert r.returncode == 2 and "no session 'feedface'" in r.stderr


def test_a_mistyped_database_path_is_said_and_never_made(tmp_path: Path) -> None:
    missing = tmp_path / "typo" / "sesions.db"
    r = autopilot("--resume", db=missing)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().startswith(f"error: no session database at {missing}: nothing to resume"), r.stderr
    listed = subprocess.run([*CLI, "autopilot", "--list", "--db", str(missing)], capture_output=True, text=True,
                            env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})
    assert listed.returncode == 0 and listed.stdout.strip() == f"no session database at {missing} yet: no sessions " \
                                                                "stored there", listed.stdout
    assert not (tmp_path / "typo").exists()  # neither a folder nor an empty database was made


def test_a_finished_session_writes_statistics_and_the_log_and_never_overwrites_them(tmp_path: Path) -> None:
    db, out = tmp_path / "s.db", tmp_path / "out"
    r = autopilot("moonlit/duel", "--pc", "scripted", "--no-review", db=db, answers="\n", out=out)
    assert r.returncode == 0, r.stderr
    assert "combat over" in r.stdout and "after the combat" in r.stdout and "who fell when" in r.stdout
    (row,) = SessionStore(db).sessions()
    stats = json.loads((out / f"{row.id}-stats.json").read_text())
    assert stats["result"] == row.result and stats["fighters"] and stats["rounds"] >= 1
    log = (out / f"{row.id}-log.md").read_text()
    assert log.startswith("# Moonlit") and "## Round 1" in log and "## Statistics" in log
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    again = autopilot("--resume", row.id, db=db, answers="\n", out=out)  # a finished session shown again
    assert again.returncode == 0, again.stderr
    assert (out / f"{row.id}-stats-2.json").exists() and (out / f"{row.id}-log-2.md").exists()
    assert all((out / name).read_bytes() == data for name, data in before.items())


def test_a_foreign_or_hand_edited_database_is_a_clear_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database\n")
    r = autopilot("moonlit/duel", db=junk)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "junk.db" in r.stderr
    assert junk.read_bytes() == b"this is not a database\n"

    db = tmp_path / "s.db"
    # a fixed seed: with the default (a new one each run) the duel can end within the three confirmations
    assert autopilot("kiai/duel", "--seed", "3", db=db, answers="\n\n\nq\n").returncode == 0
    (row,) = SessionStore(db).sessions()
    assert row.status == "running", "the session must be unfinished for --resume to restore it"
    con = sqlite3.connect(db)
    (data,) = con.execute("SELECT data FROM checkpoints WHERE n = 0").fetchone()
    checkpoint = json.loads(data)
    checkpoint["combat"]["state"]["fighters"] = {}  # a hand-edited save
    con.execute("UPDATE checkpoints SET data = ? WHERE n = 0", (json.dumps(checkpoint),))
    con.commit()
    con.close()
    r = autopilot("--resume", db=db)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "s.db" in r.stderr and "cannot be restored" in r.stderr

    con = sqlite3.connect(db)
    con.execute("""UPDATE sessions SET setup = '{"format": "x"}'""")
    con.commit()
    con.close()
    r = autopilot("--resume", db=db)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "s.db" in r.stderr


def test_seats_come_from_the_encounter_controllers_and_the_command_line(tmp_path: Path) -> None:
    data = load_encounter("moonlit/duel").model_dump(mode="json")
    data["controllers"] = {"ghoul": "random"}
    path = tmp_path / "duel.yaml"
    path.write_text(yaml.safe_dump(data))
    for extra, seat in (((), "review:random"),  # the encounter's seat, put under review
                        (("--seat", "ghoul=first"), "review:first")):  # the command line wins
        db = tmp_path / f"{seat}.db"
        r = autopilot(str(path), "--pc", "scripted", *extra, db=db, answers="q\n")
        assert r.returncode == 0, r.stderr
        store = SessionStore(db)
        (row,) = store.sessions()
        assert str(Session.load(store, row.id).seat_for("ghoul")[1]) == seat

    for controllers, where, why in (({"nobody": "random"}, "controllers.nobody", "names no side or combatant"),
                                    ({"ghoul": "nosuch"}, "controllers.ghoul", "no agent 'nosuch'"),
                                    ({"ghoul": "two words"}, "controllers.ghoul", "a seat is")):
        data["controllers"] = controllers
        path.write_text(yaml.safe_dump(data))
        r = autopilot(str(path), db=tmp_path / "s.db")
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        assert str(path) in r.stderr and where in r.stderr and why in r.stderr


@pytest.mark.parametrize("args, why", [(("--npc", "nosuch"), "--npc: no agent 'nosuch'"),
                                       (("--seat", "B"), "--seat needs KEY=SEAT"),
                                       (("--seat", "Z=random"), "seat 'Z' names no side or combatant")])
def test_bad_seats_are_one_clear_line(tmp_path: Path, args: tuple[str, ...], why: str) -> None:
    r = autopilot("moonlit/duel", *args, db=tmp_path / "s.db")
    assert r.returncode == 2 and "Traceback" not in r.stderr and why in r.stderr, r.stderr


@pytest.mark.parametrize("rid", SYSTEMS)
def test_every_skirmish_has_pcs_spelled_kind_pc(rid: str) -> None:
    combat = Combat(f"{rid}/skirmish", seed=0)
    assert any(v.kind == "pc" for v in combat.combatants)
    assert any(v.kind == "npc" for v in combat.combatants)


def test_kiai_old_pc_spelling_is_a_located_error(tmp_path: Path) -> None:
    data = load_encounter("kiai/duel").model_dump(mode="json")
    data["combatants"][0].pop("kind")
    data["combatants"][0]["pc"] = True
    path = tmp_path / "old.yaml"
    path.write_text(yaml.safe_dump(data))
    r = subprocess.run([*CLI, "validate", str(path)], capture_output=True, text=True)
    assert r.returncode == 1 and "combatants[0]" in r.stderr and "write 'kind: pc'" in r.stderr, r.stderr


def test_a_session_whose_agent_model_is_gone_resumes_with_another_agent(tmp_path: Path) -> None:
    from trpg_arena.agents.learned.ppo import policy_path

    db, model = tmp_path / "s.db", tmp_path / "mine.npz"
    model.write_bytes(policy_path("kiai").read_bytes())
    first = autopilot("kiai/duel", "--pc", "scripted", "--npc", f"ppo:model={model}", db=db)
    assert first.returncode == 0 and "is stored" in first.stdout, first.stderr[-2000:]
    model.unlink()  # the GM tidied the folder between two evenings
    refused = autopilot("--resume", db=db)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert f"no policy model at '{model}'" in refused.stderr and "--seat npc=scripted" in refused.stderr, refused.stderr
    resumed = autopilot("--resume", "--seat", "npc=scripted", db=db)
    assert resumed.returncode == 0 and "resumed session" in resumed.stdout, resumed.stderr[-2000:]
    (row,) = SessionStore(db).sessions()
    assert Session.load(SessionStore(db), row.id).pending() is not None  # and it holds together again
