"""Bad input gets a 4xx JSON body saying what and where, and changes nothing; good input does what it says."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from tests.server.quiet import settled
from trpg_arena.rules import RULESETS, load_encounter

BAD_ENCOUNTER = {"ruleset": "moonlit", "encounter": "typo", "combatants": [{"id": "kei", "side": "A", "hp": "lots"}]}


def _new(client: TestClient, **body: object) -> dict:
    r = client.post("/api/sessions", json={"encounter": "investigator/duel", "pc": "human+dice",
                                           "npc": "review:scripted", **body})
    assert r.status_code == 201, r.text
    return r.json()["state"]


def test_an_uploaded_encounter_gets_the_same_located_error_as_validate(client: TestClient, tmp_path: Path) -> None:
    path = tmp_path / "typo.yaml"
    path.write_text(yaml.safe_dump(BAD_ENCOUNTER), encoding="utf-8")
    cli = subprocess.run([sys.executable, "-m", "trpg_arena.experiments.cli", "validate", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 1
    r = client.post("/api/sessions", json={"encounter_text": path.read_text(), "filename": str(path)})
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "invalid_encounter" and body["where"].startswith("combatants[0]")
    assert " ".join(cli.stderr.split()).endswith(" ".join(body["message"].split()))
    assert client.get("/api/sessions").json()["sessions"] == []


@pytest.mark.parametrize(("body", "kind", "words"), [
    ({"encounter_text": "ruleset: moonlit\ncombatants: [\n"}, "invalid_encounter", "broken YAML at line"),
    ({"encounter_text": '{"ruleset": "moonlit",'}, "invalid_encounter", "broken JSON at line 1"),
    ({"encounter_text": "/etc/passwd"}, "invalid_encounter", "must be a mapping"),
    ({"encounter": "/etc/passwd"}, "invalid_encounter", "not a built-in encounter name"),
    ({"encounter": "moonlit/nosuch"}, "invalid_encounter", "no built-in encounter 'moonlit/nosuch'"),
    ({"encounter": "moonlit/duel", "encounter_data": {}}, "invalid_request", "exactly one of"),
    ({"encounter": "moonlit/duel", "seed": -1}, "invalid_request", "seed: must be at least 0"),
    ({"encounter": "moonlit/duel", "colour": "red"}, "invalid_request", "colour: is not a field of this request"),
    ({"encounter": "moonlit/duel", "npc": "genius"}, "unknown_agent", "genius"),
    ({"encounter": "moonlit/duel", "npc": "policy:model.zip"}, "seat_not_allowed", "loads files on the server"),
    ({"encounter": "moonlit/duel", "seats": {"Z": "human"}}, "invalid_request", "seat 'Z' names no side"),
    ({"encounter": "moonlit/duel", "options": {"no_such_flag": True}}, "invalid_encounter", "no_such_flag"),
])
def test_a_bad_new_session_is_refused_and_nothing_is_stored(client: TestClient, body: dict, kind: str,
                                                            words: str) -> None:
    r = client.post("/api/sessions", json=body)
    assert 400 <= r.status_code < 500, r.text
    assert r.json()["error"] == kind and words in r.json()["message"]
    assert client.get("/api/sessions").json()["sessions"] == []


def test_an_alias_bomb_is_refused(client: TestClient) -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8))
    r = client.post("/api/sessions", json={"encounter_text": bomb})
    assert r.status_code == 422 and "aliases are expanded" in r.json()["message"]


def test_refused_requests_change_nothing(client: TestClient) -> None:
    state = _new(client)
    sid = state["id"]
    refusals = [
        ("post", "actions", {"index": 999}, 409),
        ("post", "actions", {"action": {"verb": "teleport"}}, 409),
        ("post", "actions", {"index": 0, "action": {"verb": "shoot"}}, 422),
        ("post", "confirm", {}, 409),  # ada is a person's seat: nothing to confirm
        ("post", "override", {"index": 0}, 409),
        ("post", "dice", {"faces": "3"}, 409),  # no dice asked for yet
        ("post", "undo", {}, 409),
        ("post", "rewind", {"round": 9}, 409),
        ("put", "seats/nobody", {"seat": "scripted"}, 422),  # malformed: a key naming nobody
        ("put", "seats/cult", {"seat": "policy:x.zip"}, 422),
        ("post", "proposal", {"agent": "nosuch"}, 422),
    ]
    for method, path, body, status in refusals:
        r = getattr(client, method)(f"/api/sessions/{sid}/{path}", json=body)
        assert r.status_code == status, (path, r.text)
        assert set(r.json()) >= {"error", "message"}
        assert client.get(f"/api/sessions/{sid}").json() == state, path
    # the shot asks for a die; wrong faces are refused and the roll is still asked for
    r = client.post(f"/api/sessions/{sid}/actions", json={"action": {"verb": "shoot", "target": "cultist"}})
    asked = r.json()["state"]
    assert asked["pending"]["dice"]["die"] == "1D100" and asked["decisions"] == 0
    for faces in ("101", "four", "1 2 3", [0, 0, 0]):
        r = client.post(f"/api/sessions/{sid}/dice", json={"faces": faces})
        assert r.status_code == 422 and r.json()["error"] == "invalid_dice", r.text
        assert client.get(f"/api/sessions/{sid}").json() == asked
    r = client.post(f"/api/sessions/{sid}/dice", json={"faces": "07"})  # a hit: the damage die is asked next
    while r.json()["state"]["pending"]["dice"] is not None and not r.json()["decisions"]:
        assert r.json()["state"]["decisions"] == 0
        r = client.post(f"/api/sessions/{sid}/dice", json={"faces": "1"})
    assert r.status_code == 200 and r.json()["decisions"][0]["faces"][0] == [100, 7]


def test_unknown_things_are_404(client: TestClient) -> None:
    r = client.get("/api/sessions/nosuch")
    assert r.status_code == 404 and r.json()["error"] == "unknown_session"
    assert client.get("/api/nothing").status_code == 404
    assert client.delete("/api/sessions/nosuch").status_code == 404


def test_proposals_confirm_override_and_the_pending_decision(client: TestClient) -> None:
    sid = _new(client, pc="review:scripted")["id"]
    pending = client.get(f"/api/sessions/{sid}/pending").json()["pending"]
    proposal = pending["proposal"]
    flat = [a for g in pending["groups"] for a in g["actions"]]
    assert sorted(a["index"] for a in flat) == list(range(pending["legal_count"]))
    assert all(a["text"] for a in flat) and proposal["text"] == flat[proposal["index"]]["text"]
    assert [g["verb"] for g in pending["groups"]] == list(dict.fromkeys(a["action"]["verb"] for a in
                                                                         sorted(flat, key=lambda a: a["index"])))
    asked = client.post(f"/api/sessions/{sid}/proposal", json={}).json()
    assert asked["proposal"] == proposal
    other = client.post(f"/api/sessions/{sid}/proposal", json={"agent": "random"}).json()
    assert other["agent"] == "random" and other["proposal"]["index"] is not None
    another = next(a["index"] for a in flat if a["index"] != proposal["index"])
    r = client.post(f"/api/sessions/{sid}/override", json={"index": another}).json()
    assert r["decisions"][0]["source"] == "override" and r["decisions"][0]["proposal"]["action"] == proposal["action"]
    r = client.post(f"/api/sessions/{sid}/confirm", json={}).json()
    assert r["decisions"][0]["source"] == "confirmed"
    assert client.post(f"/api/sessions/{sid}/undo", json={"decisions": 2}).json()["state"]["decisions"] == 0


def test_a_step_is_exactly_one_decision_and_run_plays_agents_to_the_end(client: TestClient) -> None:
    sid = _new(client, encounter="moonlit/duel", pc="scripted", npc="scripted", run=False)["id"]
    for n in range(1, 4):
        r = client.post(f"/api/sessions/{sid}/step", json={}).json()
        assert len(r["decisions"]) == 1 and r["state"]["decisions"] == n
    r = client.post(f"/api/sessions/{sid}/run", json={"max_decisions": 5}).json()
    # the answer lists the decisions that landed while it waited; on a busy machine the run goes on after it
    assert [d["n"] for d in r["decisions"]] == list(range(3, 3 + len(r["decisions"])))
    assert settled(client, sid, r["state"])["decisions"] == 3 + 5
    done = settled(client, sid, client.post(f"/api/sessions/{sid}/run", json={"max_decisions": 100000}).json()["state"])
    assert done["over"] and done["pending"] is None
    assert client.post(f"/api/sessions/{sid}/step", json={}).status_code == 409
    assert client.post(f"/api/sessions/{sid}/rewind", json={"round": 1}).json()["state"]["round"] == 1


def test_table_dice_and_seats_change_who_decides(client: TestClient) -> None:
    sid = _new(client, encounter="kiai/duel", pc="scripted", npc="scripted", run=False)["id"]
    state = client.put(f"/api/sessions/{sid}/table-dice", json={"on": True, "run": False}).json()["state"]
    assert state["table_dice"]
    side = state["sides"][0]
    state = client.put(f"/api/sessions/{sid}/seats/{side}", json={"seat": "human", "run": False}).json()["state"]
    assert state["seats"] == {side: "human"}
    r = settled(client, sid, client.post(f"/api/sessions/{sid}/run", json={}).json()["state"])
    p = r["pending"]
    assert p["dice"] is not None or p["seat"]["kind"] == "human"


def test_the_catalogue_lists_every_system_and_hides_file_reading_agents(client: TestClient) -> None:
    rulesets = client.get("/api/rulesets").json()["rulesets"]
    assert [r["id"] for r in rulesets] == list(RULESETS)
    for r in rulesets:
        assert f"{r['id']}/duel" in r["encounters"] and "scripted" in r["agents"] and "policy" not in r["agents"]
    schema = client.get("/openapi.json").json()
    assert "/api/sessions/{sid}/actions" in schema["paths"]
    assert client.get("/docs").status_code == 200
    assert "trpg-arena" in client.get("/").text


DEEP = "[" * 1000 + "]" * 1000


@pytest.mark.parametrize(("path", "body", "kind", "words"), [
    ("encounters/validate", {"encounter_text": '{"ruleset": "moonlit", "x": ' + DEEP + "}"}, "invalid_encounter",
     "nested more than"),
    ("encounters/validate", {"encounter_text": "ruleset: moonlit\nx: " + DEEP}, "invalid_encounter",
     "nested more than"),
    ("encounters/validate", {"encounter_data": {"ruleset": "moonlit", "x": json.loads("[" * 200 + "]" * 200)}},
     "invalid_encounter", "nested more than"),
    ("replays", {"log": '{"seq": 0, "kind": "start", "text": "t", "data": ' + DEEP + "}\n"}, "invalid_log",
     "log line 1: nested more than"),
    ("replays", {"log": '{"seq": 0, "kind": "start", "text": "t", "data": ' + "[" * 100 + "]" * 100 + "}\n"},
     "invalid_log", "log line 1: nested more than"),
])
def test_text_nested_a_thousand_levels_deep_is_a_located_refusal(client: TestClient, path: str, body: dict,
                                                                 kind: str, words: str) -> None:
    r = client.post(f"/api/{path}", json=body)
    assert r.status_code == 422, r.text
    assert r.json()["error"] == kind and words in r.json()["message"]


def test_an_index_is_a_json_integer_and_nothing_else(client: TestClient) -> None:
    state = _new(client)
    sid = state["id"]
    for index in (True, "3", 0.0, 1.5, None):
        r = client.post(f"/api/sessions/{sid}/actions", json={"index": index, "run": False})
        assert r.status_code == 422 and r.json()["where"] in ("index", "body"), r.text
        assert client.get(f"/api/sessions/{sid}").json() == state
    for body in ({"index": 0, "run": "yes"}, {"action": {"verb": "move", "dest": json.loads("[" * 20 + "]" * 20)}}):
        r = client.post(f"/api/sessions/{sid}/actions", json=body)
        assert r.status_code == 422, r.text
    r = client.post("/api/sessions", json={"encounter": "moonlit/duel", "seed": "7"})
    assert r.status_code == 422 and r.json()["where"] == "seed"


def test_a_face_that_only_looks_like_a_digit_is_refused(client: TestClient) -> None:
    sid = _new(client)["id"]
    asked = client.post(f"/api/sessions/{sid}/actions", json={"action": {"verb": "shoot", "target": "cultist"}})
    assert asked.json()["state"]["pending"]["dice"]["die"] == "1D100"
    for faces in ("³", "1 ³", "²³"):  # str.isdigit() holds for these, int() refuses them
        r = client.post(f"/api/sessions/{sid}/dice", json={"faces": faces})
        assert r.status_code == 422 and r.json()["error"] == "invalid_dice", r.text
        assert "is not a face of this die" in r.json()["message"]
    assert client.get(f"/api/sessions/{sid}").json() == asked.json()["state"]


def _duel_with(path: list, value: object) -> dict:
    data = load_encounter("reincarnator/duel").model_dump(mode="json")
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


@pytest.mark.parametrize(("path", "where"), [(["combatants", 0, "speed_m"], "speed_m"),
                                             (["combatants", 0, "natural_weapons", 0, "damage"], "damage")])
def test_an_uploaded_encounter_with_a_number_no_game_could_hold_is_refused(client: TestClient, path: list,
                                                                           where: str) -> None:
    # accepted before, a walk of a billion metres or a pool of a billion dice held the server at its first use
    for route in ("encounters/validate", "sessions"):
        r = client.post(f"/api/{route}", json={"encounter_data": _duel_with(path, 10**9)})
        assert r.status_code == 422 and r.json()["error"] == "invalid_encounter", r.text
        assert where in r.json()["message"] and "less than or equal to" in r.json()["message"], r.text
    assert client.get("/api/sessions").json()["sessions"] == []


def test_validating_an_upload_checks_its_controllers_agents(client: TestClient) -> None:
    data = load_encounter("moonlit/duel").model_dump(mode="json")
    data["controllers"] = {"B": "mcts:simulations=0"}
    r = client.post("/api/encounters/validate", json={"encounter_data": data})
    assert r.status_code == 422 and "simulations must be 1..100000" in r.json()["message"], r.text
    assert "controllers.B" in r.text


def test_a_log_played_with_option_flags_replays_with_them(client: TestClient, tmp_path: Path) -> None:
    """`play --option moon_blocking=off --log` wrote a log no replay could fit: the request had no options."""
    log = tmp_path / "events.jsonl"
    r = subprocess.run([sys.executable, "-m", "trpg_arena.experiments.cli", "play", "moonlit/skirmish", "--option",
                        "moon_blocking=off", "--log", str(log), "--quiet"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    body = {"log": log.read_text(encoding="utf-8")}
    assert client.post("/api/replays", json=body).status_code == 422
    r = client.post("/api/replays", json={**body, "options": {"moon_blocking": "off"}})
    assert r.status_code == 200 and r.json()["frames"], r.text[:500]
    r = client.post("/api/replays", json={**body, "options": {"no_such_flag": True}})
    assert r.status_code == 422 and "no_such_flag" in r.text, r.text[:500]
