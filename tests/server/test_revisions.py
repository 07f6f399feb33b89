"""Every change says which state it answers: stale, repeated and concurrent requests act once; a busy file is 503.

Each test reproduces a way a session was acted on twice or half-changed, over HTTP as a client sends it.
"""

from __future__ import annotations

import importlib.util
import sqlite3
import threading
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import make_client
from tests.server.live import live_server
from tests.table.test_store_writes import held, lock_once
from trpg_arena.server import ServerConfig, create_app
from trpg_arena.server.config import LOOPBACK_NAMES
from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore

ROOT = Path(__file__).resolve().parents[2]


def start(client: TestClient | httpx.Client, encounter: str = "investigator/duel", **body: object) -> dict:
    r = client.post("/api/sessions", json={"encounter": encounter, "pc": "human", "npc": "review:scripted", **body})
    assert r.status_code == 201, r.text
    return r.json()["state"]


def index_of(state: dict, verb: str) -> int:
    return next(g for g in state["pending"]["groups"] if g["verb"] == verb)["actions"][0]["index"]


def live_decisions(db: Path, sid: str) -> list[int]:
    with sqlite3.connect(db) as con:
        return [n for (n,) in con.execute("SELECT n FROM decisions WHERE session = ? AND live = 1 ORDER BY n", (sid,))]


def test_the_state_names_its_revision_and_a_stale_change_is_409_with_the_state_now(client: TestClient) -> None:
    state = start(client)
    sid = state["id"]
    got = client.get(f"/api/sessions/{sid}")
    assert got.headers["etag"] == f'"{state["revision"]}"' and got.json() == state
    wait = index_of(state, "wait")
    first = client.post(f"/api/sessions/{sid}/actions", json={"index": wait, "run": False},
                        headers={"if-match": got.headers["etag"]})
    assert first.status_code == 200 and first.json()["state"]["revision"] > state["revision"]
    now = first.json()["state"]
    for stale in ({"headers": {"if-match": f'"{state["revision"]}"'}, "json": {"index": 0}},
                  {"json": {"index": 0, "revision": state["revision"]}},
                  {"headers": {"if-match": f'W/"{state["revision"]}"'}, "json": {"index": 0}}):
        r = client.post(f"/api/sessions/{sid}/actions", **stale)
        assert r.status_code == 409, r.text
        body = r.json()
        assert body["error"] == "stale_revision" and f"answers revision {state['revision']}" in body["message"]
        assert body["state"] == now == client.get(f"/api/sessions/{sid}").json()
    for path, method, extra in (("/confirm", "POST", {}), ("/undo", "POST", {}),
                                ("/seats/pc", "PUT", {"seat": "human"}), ("/table-dice", "PUT", {"on": True}),
                                ("/dice", "DELETE", None)):
        r = client.request(method, f"/api/sessions/{sid}{path}", json=extra, headers={"if-match": "0"})
        assert r.status_code == 409 and r.json()["state"] == now, (path, r.text)
    bad = client.post(f"/api/sessions/{sid}/undo", json={}, headers={"if-match": "yesterday"})
    assert bad.status_code == 422 and bad.json()["error"] == "invalid_revision"
    mixed = client.post(f"/api/sessions/{sid}/undo", json={"revision": now["revision"]},
                        headers={"if-match": f'"{now["revision"] + 1}"'})
    assert mixed.status_code == 422 and "send one" in mixed.json()["message"]
    assert client.get(f"/api/sessions/{sid}").json() == now
    undone = client.post(f"/api/sessions/{sid}/undo", json={"revision": now["revision"]})
    assert undone.status_code == 200 and undone.json()["state"]["revision"] > now["revision"]
    assert client.delete(f"/api/sessions/{sid}", headers={"if-match": f'"{now["revision"]}"'}).status_code == 409


def test_three_identical_waits_and_a_double_confirm_act_once(client: TestClient) -> None:
    state = start(client)
    sid = state["id"]
    wait = {"index": index_of(state, "wait"), "revision": state["revision"], "run": False}
    answers = [client.post(f"/api/sessions/{sid}/actions", json=wait) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 409, 409]
    records = client.get(f"/api/sessions/{sid}/records").json()["records"]
    assert len(records) == 1 and records[0]["actor"] == "ada"  # nobody else waited too
    reviewed = start(client, pc="review:scripted")
    sid = reviewed["id"]
    confirm = {"revision": reviewed["revision"], "run": False}
    twice = [client.post(f"/api/sessions/{sid}/confirm", json=confirm) for _ in range(2)]
    assert [a.status_code for a in twice] == [200, 409]
    assert twice[1].json()["state"]["pending"]["seat"]["kind"] == "review"  # the next proposal waits for its GM
    assert len(client.get(f"/api/sessions/{sid}/records").json()["records"]) == 1


def test_a_retried_request_with_its_idempotency_key_answers_as_the_first(client: TestClient) -> None:
    state = start(client)
    sid = state["id"]
    wait = {"index": index_of(state, "wait"), "run": False}  # no revision: the key alone keeps it once
    key = {"idempotency-key": "3f0c8a52-wait-once"}
    answers = [client.post(f"/api/sessions/{sid}/actions", json=wait, headers=key) for _ in range(3)]
    assert {a.status_code for a in answers} == {200}
    assert answers[1].content == answers[2].content == answers[0].content
    assert "idempotent-replayed" not in answers[0].headers and answers[1].headers["idempotent-replayed"] == "true"
    assert len(client.get(f"/api/sessions/{sid}/records").json()["records"]) == 1
    other = client.post(f"/api/sessions/{sid}/confirm", json={}, headers=key)
    assert other.status_code == 422 and "already used for another request" in other.json()["message"]
    stale = client.post(f"/api/sessions/{sid}/confirm", json={"revision": 0}, headers={"idempotency-key": "k2"})
    again = client.post(f"/api/sessions/{sid}/confirm", json={"revision": 0}, headers={"idempotency-key": "k2"})
    assert stale.status_code == again.status_code == 409 and stale.content == again.content
    assert len(client.get(f"/api/sessions/{sid}/records").json()["records"]) == 1


def test_a_change_whose_answer_failed_is_not_carried_out_again_on_a_retry(client: TestClient,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A 500 may come after the change was stored (it failed building the answer): its retry must not act again."""
    from trpg_arena.server import api

    state = start(client)
    sid = state["id"]
    answer, failed = api._answer, []

    def fails_once(*args: Any) -> Any:
        if not failed:
            failed.append(True)
            raise RuntimeError("the answer could not be built")
        return answer(*args)

    monkeypatch.setattr(api, "_answer", fails_once)
    wait = {"index": index_of(state, "wait"), "run": False}
    key = {"idempotency-key": "answer-failed-once"}
    first = client.post(f"/api/sessions/{sid}/actions", json=wait, headers=key)
    assert first.status_code == 500 and len(client.get(f"/api/sessions/{sid}/records").json()["records"]) == 1
    again = client.post(f"/api/sessions/{sid}/actions", json=wait, headers=key)
    assert again.status_code == 500 and again.headers["idempotent-replayed"] == "true"
    assert len(client.get(f"/api/sessions/{sid}/records").json()["records"]) == 1


def test_two_clients_answering_one_decision_at_once_one_applies_the_other_is_409(db: Path) -> None:
    with live_server(db) as base, httpx.Client(base_url=base, timeout=60) as http:
        for trial in range(5):
            state = start(http, "reincarnator/duel", seed=trial)
            sid = state["id"]
            barrier = threading.Barrier(2)
            answers: dict[int, httpx.Response] = {}

            def submit(index: int, sid: str = sid, rev: int = state["revision"], barrier=barrier,
                       answers=answers) -> None:
                with httpx.Client(base_url=base, timeout=60) as own:
                    barrier.wait()
                    answers[index] = own.post(f"/api/sessions/{sid}/actions",
                                              json={"index": index, "revision": rev, "run": False})

            threads = [threading.Thread(target=submit, args=(i,)) for i in (0, 1)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(a.status_code for a in answers.values()) == [200, 409], [a.text for a in answers.values()]
            winner = next(i for i, a in answers.items() if a.status_code == 200)
            records = http.get(f"/api/sessions/{sid}/records").json()["records"]
            assert len(records) == 1 and records[0]["action"] == state_action(state, winner)
            assert live_decisions(db, sid) == [0]


def state_action(state: dict, index: int) -> dict:
    return next(a["action"] for g in state["pending"]["groups"] for a in g["actions"] if a["index"] == index)


def test_a_locked_database_is_503_with_a_retry_hint_and_nothing_half_applied(db: Path) -> None:
    config = ServerConfig(db=db, trusted_hosts=(*LOOPBACK_NAMES, "testserver"))
    with TestClient(create_app(config, SessionStore(db, busy_timeout=0.2)), base_url="http://127.0.0.1") as client:
        state = start(client, "reincarnator/duel", pc="review:scripted")
        sid = state["id"]
        for _ in range(3):
            assert client.post(f"/api/sessions/{sid}/step", json={}).status_code == 200
        before = client.get(f"/api/sessions/{sid}").json()
        with held(db):
            for method, path, body in (("POST", "/step", {}), ("POST", "/confirm", {}), ("POST", "/undo", {}),
                                       ("PUT", "/seats/npc", {"seat": "scripted"})):
                r = client.request(method, f"/api/sessions/{sid}{path}", json=body)
                assert r.status_code == 503 and r.headers["retry-after"] == "1", r.text
                assert r.json()["error"] == "busy" and "nothing was changed" in r.json()["message"]
                assert client.get(f"/api/sessions/{sid}").json() == before
        after = client.post(f"/api/sessions/{sid}/step", json={"revision": before["revision"]})
        assert after.status_code == 200 and after.json()["state"]["decisions"] == 4
        expected = after.json()["state"]
    assert live_decisions(db, sid) == [0, 1, 2, 3]
    with make_client(db) as restarted:  # a new process on the file: the session loads, no gap
        assert restarted.get(f"/api/sessions/{sid}").json() == expected
    assert len(Session.load(SessionStore(db), sid).records) == 4


@pytest.mark.parametrize("path", ["/actions", "/confirm"])
def test_a_key_in_flight_is_waited_for_not_run_twice(db: Path, path: str) -> None:
    with live_server(db) as base, httpx.Client(base_url=base, timeout=60) as http:
        state = start(http, "investigator/duel", pc="review:scripted" if path == "/confirm" else "human")
        sid = state["id"]
        body = {"index": index_of(state, "wait"), "run": False} if path == "/actions" else {"run": False}
        barrier = threading.Barrier(3)
        answers: list[httpx.Response] = []

        def send() -> None:
            with httpx.Client(base_url=base, timeout=60) as own:
                barrier.wait()
                answers.append(own.post(f"/api/sessions/{sid}{path}", json=body,
                                        headers={"idempotency-key": f"once-{path}"}))

        threads = [threading.Thread(target=send) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [a.status_code for a in answers] == [200, 200, 200]
        assert len({a.content for a in answers}) == 1
        assert len(http.get(f"/api/sessions/{sid}/records").json()["records"]) == 1


def test_the_reference_client_sends_the_revision_and_goes_on_from_the_state_it_is_given(db: Path) -> None:
    spec = importlib.util.spec_from_file_location("npc_turn_client", ROOT / "examples" / "npc_turn_client.py")
    assert spec is not None and spec.loader is not None
    client_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(client_module)
    with live_server(db) as base, httpx.Client(base_url=base, timeout=60) as http:
        state = start(http, "reincarnator/duel", pc="human")
        sid = state["id"]
        api = client_module.Api(base, None)
        # the NPC turn runs from the state it reads: a change the GM made since makes it read again, not act twice
        behind = api.call("GET", f"/api/sessions/{sid}")
        assert http.post(f"/api/sessions/{sid}/actions", json={"index": 0, "run": False}).status_code == 200
        with pytest.raises(client_module.Stale) as stale:
            api.call("POST", f"/api/sessions/{sid}/actions", {"index": 0, "run": False}, revision=behind["revision"])
        assert stale.value.state == http.get(f"/api/sessions/{sid}").json()
        assert len(http.get(f"/api/sessions/{sid}/records").json()["records"]) == 1
        taken = client_module.run_npc_turn(api, sid)
        assert taken == len(http.get(f"/api/sessions/{sid}/records").json()["records"]) - 1


def test_agents_stopped_by_a_locked_database_leave_the_persons_decision_answered(db: Path) -> None:
    config = ServerConfig(db=db, trusted_hosts=(*LOOPBACK_NAMES, "testserver"))
    app = create_app(config, SessionStore(db, busy_timeout=0.1))
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)  # used from a request's thread
    with TestClient(app, base_url="http://127.0.0.1") as client:
        state = start(client, "reincarnator/duel", npc="scripted")
        sid = state["id"]
        with app.state.hub.use(sid) as entry:  # another program takes the file once the person's decision is in
            entry.session.subscribe(lock_once(other))
        r = client.post(f"/api/sessions/{sid}/actions", json={"index": 0, "revision": state["revision"]})
        other.execute("ROLLBACK")
        other.close()
        assert r.status_code == 200, r.text
        assert len(r.json()["decisions"]) == 1 and "busy" in r.json()["agent_error"]
        assert live_decisions(db, sid) == [0]


def test_a_session_deleted_by_another_server_is_404_here(db: Path) -> None:
    with make_client(db) as one, make_client(db) as two:
        sid = start(one)["id"]
        state = two.get(f"/api/sessions/{sid}").json()  # held in the second server's memory
        assert one.delete(f"/api/sessions/{sid}").status_code == 204
        assert two.post(f"/api/sessions/{sid}/confirm", json={"revision": state["revision"]}).status_code == 404
        assert two.get(f"/api/sessions/{sid}").status_code == 404
