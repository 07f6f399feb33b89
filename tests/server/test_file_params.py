"""No request names a file on the server through an agent's parameters.

Every free text parameter of every registered agent may be a path (`trained:model=`, `ppo:model=`,
`mcts:value=`): set over HTTP, as a proposal's agent, a seat, or an uploaded encounter's
``controllers:``, it is refused with 422 naming the parameter, before the file is looked at, so the
answer is the same whether the file exists or not. An agent's own words for it (`mcts:value=learned`)
stay allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from trpg_arena.agents.spec import agent_info, agent_names
from trpg_arena.rules import load_encounter
from trpg_arena.server.encounters import file_params

THERE = "/etc/passwd"
NOWHERE = "/no/such/file"


def _message(r, path: str) -> str:
    assert r.status_code == 422 and r.json()["error"] == "seat_not_allowed", r.text
    return r.json()["message"].replace(path, "PATH")


def _session(client: TestClient) -> str:
    return client.post("/api/sessions", json={"encounter": "moonlit/skirmish", "seed": 5, "npc": "review:scripted",
                                              "run": False}).json()["state"]["id"]


def test_a_proposal_agent_naming_a_file_is_refused_alike_whether_it_exists(client: TestClient) -> None:
    sid = _session(client)
    there, nowhere = (client.post(f"/api/sessions/{sid}/proposal", json={"agent": f"mcts:value={p}"})
                      for p in (THERE, NOWHERE))
    assert _message(there, THERE) == _message(nowhere, NOWHERE)
    assert "value=" in there.json()["message"] and "over HTTP" in there.json()["message"]


def test_a_seat_naming_a_file_is_not_stored(client: TestClient) -> None:
    sid = _session(client)
    before = client.get(f"/api/sessions/{sid}").json()
    r = client.put(f"/api/sessions/{sid}/seats/npc", json={"seat": f"review:mcts:value={THERE}", "run": False})
    assert "value=" in _message(r, THERE)
    after = client.get(f"/api/sessions/{sid}").json()
    assert after["defaults"] == before["defaults"] and after["revision"] == before["revision"]


@pytest.mark.parametrize("route", ["/api/sessions", "/api/encounters/validate"])
def test_an_uploaded_encounters_controllers_naming_a_file_are_refused(client: TestClient, route: str) -> None:
    enc = load_encounter("moonlit/duel").model_dump(mode="json")
    side = enc["combatants"][1]["side"]
    answers = []
    for path in (THERE, NOWHERE):
        enc["controllers"] = {side: f"review:mcts:value={path}"}
        r = client.post(route, json={"encounter_data": enc})
        answers.append(_message(r, path))
        assert r.json()["where"] == f"controllers.{side}", r.text
    assert answers[0] == answers[1]
    assert client.get("/api/sessions").json()["sessions"] == []


def test_an_agents_own_words_stay_allowed(client: TestClient) -> None:
    sid = _session(client)
    for spec in ("mcts:hard:value=learned", "mcts:simulations=20:value=hand", "mcts:simulations=20:value=auto"):
        r = client.put(f"/api/sessions/{sid}/seats/npc", json={"seat": f"review:{spec}", "run": False})
        assert r.status_code == 200, r.text


@pytest.mark.parametrize("rid", ["moonlit", "kiai", "investigator", "reincarnator"])
def test_every_free_text_parameter_of_every_agent_is_refused_as_a_path(client: TestClient, tmp_path: Path,
                                                                       rid: str) -> None:
    model = tmp_path / "model.npz"
    model.write_bytes(b"not a model")
    enc = load_encounter(f"{rid}/duel").model_dump(mode="json")
    checked = 0
    for name in agent_names(rid):
        info = agent_info(name, rid)
        for key in file_params(info):
            spec = f"{name}:{model}" if key == info.positional else f"{name}:{key}={model}"
            r = client.post("/api/sessions", json={"encounter_data": enc, "npc": spec})
            assert r.status_code == 422 and r.json()["error"] == "seat_not_allowed", (spec, r.text)
            checked += 1
    assert checked >= 4  # policy's path, trained's and ppo's model, mcts's value at least
    assert client.get("/api/sessions").json()["sessions"] == []


@pytest.mark.parametrize("route", ["/api/sessions", "/api/encounters/validate"])
@pytest.mark.parametrize("seat", ["bogus", "review:bogus", "mcts:simulations=0"])
def test_an_uploaded_encounters_unknown_controller_is_located_and_names_what_may_be_seated(
        client: TestClient, route: str, seat: str) -> None:
    """A session from an upload said "no agent 'bogus' (known: first, mcts, policy, ...)" with no field: `policy`
    is refused over HTTP, and the mistake is in ``controllers.B``."""
    enc = load_encounter("moonlit/duel").model_dump(mode="json")
    enc["controllers"] = {"B": seat}
    r = client.post(route, json={"encounter_data": enc})
    assert r.status_code == 422 and r.json()["where"] == "controllers.B", r.text
    assert "policy" not in r.json()["message"], r.text
    assert client.get("/api/sessions").json()["sessions"] == []
