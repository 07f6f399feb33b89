"""What a GM meets over the HTTP API: routine questions not asked of PCs, and the odds of every PC attack.

Moonlit asks every able combatant "try to escape, or stay?" each round (MOON-4.3); a table rarely wants
that asked, so a person's seat gets the usual answer (stay) unless the session asks (`ask_routine`).
Every system's PC attacks carry the odds an NPC proposal cites (chance to hit or land, damage).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.quiet import settled


def _create(client: TestClient, encounter: str, **body: Any) -> dict[str, Any]:
    r = client.post("/api/sessions", json={"encounter": encounter, "seed": 1, "npc": "scripted"} | body)
    assert r.status_code == 201, r.text
    made = r.json()
    return made | {"state": settled(client, made["state"]["id"], made["state"])}


def _play_until(client: TestClient, sid: str, state: dict[str, Any], wanted: Any, limit: int = 300) -> dict[str, Any]:
    """Take the first legal action of every person's decision (agents play theirs) until `wanted(state)` holds."""
    for _ in range(limit):
        pending = state["pending"]
        assert pending is not None, "the combat ended first"
        if wanted(state):
            return state
        if pending["seat"]["kind"] == "human":
            r = client.post(f"/api/sessions/{sid}/actions", json={"index": pending["groups"][0]["actions"][0]["index"]})
        else:
            r = client.post(f"/api/sessions/{sid}/run", json={})
        assert r.status_code == 200, r.text
        state = r.json()["state"]
    raise AssertionError("never reached")


def test_npcs_under_review_stay_unasked_unless_the_table_asks(client: TestClient) -> None:
    made = _create(client, "moonlit/skirmish", pc="human", npc="review:scripted")
    state, sid = made["state"], made["state"]["id"]
    npcs = {c["id"] for c in state["combatants"] if c["kind"] == "npc"}

    def npc_escape(st: dict[str, Any]) -> bool:
        return st["pending"]["decision"]["step"] == "escape" and st["pending"]["decision"]["actor"] in npcs

    def play(st: dict[str, Any], until: Any) -> dict[str, Any]:  # PCs take their first action, the GM confirms
        for _ in range(300):
            st = settled(client, sid, st)  # the NPCs' routine decisions are taken once their proposals are ready
            if until(st):
                return st
            kind = st["pending"]["seat"]["kind"]
            r = (client.post(f"/api/sessions/{sid}/actions", json={"index": st["pending"]["groups"][0]["actions"][0]
                                                                   ["index"]}) if kind == "human"
                 else client.post(f"/api/sessions/{sid}/confirm", json={}))
            assert r.status_code == 200, r.text
            st = r.json()["state"]
        raise AssertionError("never reached")

    state = play(state, lambda st: npc_escape(st) or st["round"] >= 3)
    assert state["round"] >= 3 and not npc_escape(state)
    records = client.get(f"/api/sessions/{sid}/records").json()["records"]
    stays = [r for r in records if r["step"] == "escape" and r["actor"] in npcs]
    assert {r["round"] for r in stays} >= {1, 2}
    assert all(r["source"] == "routine" and r["action"]["verb"] == "stay" for r in stays)
    # the table asks: the next NPC escape proposal waits for the GM's confirmation
    r = client.put(f"/api/sessions/{sid}/ask-routine", json={"on": True})
    assert r.status_code == 200
    state = play(r.json()["state"], npc_escape)
    assert state["pending"]["seat"]["kind"] == "review" and state["pending"]["proposal"] is not None


def _asked_escape(state: dict[str, Any]) -> bool:
    return state["pending"]["decision"]["step"] == "escape" and state["pending"]["seat"]["kind"] == "human"


def test_moonlit_asks_no_pc_whether_to_escape_unless_the_table_asks(client: TestClient) -> None:
    made = _create(client, "moonlit/skirmish", pc="human")
    state, sid = made["state"], made["state"]["id"]
    assert state["routine"] == {"escape": "stay"} and state["ask_routine"] is False
    assert not _asked_escape(state)  # round 1 starts with something worth deciding
    pcs = {c["id"] for c in state["combatants"] if c["kind"] == "pc"}
    # rounds 1 and 2 pass without the question to a PC: each gets the usual answer, stored as routine
    state = _play_until(client, sid, state, lambda st: _asked_escape(st) or st["round"] >= 3)
    assert state["round"] >= 3 and not _asked_escape(state)
    records = client.get(f"/api/sessions/{sid}/records").json()["records"]
    stays = [r for r in records if r["step"] == "escape" and r["actor"] in pcs]
    assert {r["round"] for r in stays} >= {1, 2}
    assert all(r["source"] == "routine" and r["action"]["verb"] == "stay" for r in stays)
    # the table asks: the next PC escape decision waits for a person, with both answers
    r = client.put(f"/api/sessions/{sid}/ask-routine", json={"on": True})
    assert r.status_code == 200 and r.json()["state"]["ask_routine"] is True
    state = _play_until(client, sid, r.json()["state"], _asked_escape)
    verbs = {g["verb"] for g in state["pending"]["groups"]}
    assert verbs == {"escape", "stay"} and state["pending"]["decision"]["actor"] in pcs
    # switched off again while the question is open: the usual answer is given at once and stored
    r = client.put(f"/api/sessions/{sid}/ask-routine", json={"on": False})
    assert r.status_code == 200 and not _asked_escape(r.json()["state"])
    assert r.json()["decisions"][0]["source"] == "routine"
    # undo goes back to the last decision a person made, past the routine answers and the agents' decisions
    records = client.get(f"/api/sessions/{sid}/records").json()["records"]
    last_person = max(i for i, rec in enumerate(records) if rec["source"] == "human")
    r = client.post(f"/api/sessions/{sid}/undo", json={})
    assert r.status_code == 200 and r.json()["state"]["decisions"] == last_person


ODDS = {
    "kiai": r"^\d+ % to land \(hit -?\d+ (vs dodge -?\d+|\w+ cannot dodge)\)",
    "moonlit": r"^\d+ % to hit, about \d+ damage through|^\w+ on .* to hit, about \d+ damage through",
}
DAMAGE = {"kiai": r"about \d+ through its defence: (no|a \w+) wound on average",
          "moonlit": r"about \d+ damage through"}


@pytest.mark.parametrize("rid", sorted(ODDS))
def test_a_pc_attack_carries_its_odds_in_kiai_and_moonlit(client: TestClient, rid: str) -> None:
    seats = {"wanderers": "human"} if rid == "kiai" else {}
    made = _create(client, f"{rid}/duel", pc="human", seats=seats)
    sid = made["state"]["id"]
    state = _play_until(client, sid, made["state"], lambda st: st["pending"]["seat"]["kind"] == "human" and any(
        a.get("odds") for g in st["pending"]["groups"] for a in g["actions"]), limit=80)
    notes = [a["odds"] for g in state["pending"]["groups"] for a in g["actions"] if a.get("odds")]
    assert notes and all(re.search(ODDS[rid], n) for n in notes), notes
    assert any(re.search(DAMAGE[rid], n) for n in notes), notes
    if rid == "kiai":  # a technique's options say what they do, as the terminal menu does
        explained = [n for g in state["pending"]["groups"] for a in g["actions"] for n in a["notes"]]
        assert any(re.fullmatch(r"technique (\d+): hit -\1, foe's dodge -\1", n) for n in explained), explained


LOG_SENTENCES = {  # what a GM reads in the log: numbers with what they are
    "reincarnator": (r"rolls \d+ \((\w[\w ]* \d+)( [+-] \w[\w ]* \d+)*\) - \d+ defence( \([^)]*\))? = -?\d+ dice",
                     "roll"),
    "kiai": (r"\d+ through the defence(, under the \d+ a light wound needs|: \w+ \(from \d+\))", "wound_recorded"),
    "investigator": (r"\(needs (Hard|Extreme): [a-z0-9 ]+\)", "check"),
    "moonlit": (r"\[\d,\d\] \d+ \+ (melee|ranged|mental|body|base) -?\d+( [+-] [\w ]+ \d+)* = -?\d+", "roll"),
}


@pytest.mark.parametrize("rid", sorted(LOG_SENTENCES))
def test_the_log_names_what_its_numbers_are(client: TestClient, rid: str) -> None:
    made = _create(client, f"{rid}/skirmish", pc="scripted", seed=3)
    sid = made["state"]["id"]
    for _ in range(50):
        if client.get(f"/api/sessions/{sid}").json()["over"]:
            break
        client.post(f"/api/sessions/{sid}/run", json={})
    pattern, kind = LOG_SENTENCES[rid]
    events = [e for e in client.get(f"/api/sessions/{sid}/log", params={"limit": 5000}).json()["events"]
              if e["kind"] == kind and (rid != "reincarnator" or "defence_parts" in e["data"])  # attack rolls
              and (rid != "moonlit" or "check" in e["data"].get("purpose", ""))]  # 2D6 checks
    assert events and all(re.search(pattern, e["text"]) for e in events if rid != "investigator"), \
        [e["text"] for e in events if not re.search(pattern, e["text"])][:3]
    if rid == "investigator":  # a raised difficulty says why
        raised = [e["text"] for e in events if "(needs" in e["text"]]
        assert raised and all(re.search(pattern, t) for t in raised), raised
    assert not any(re.search(r"net \d+ ->|-> none = none|status none", e["text"]) for e in events)


def test_conditions_read_in_words_not_as_ids() -> None:
    from trpg_arena.rules import CombatantView, get_ruleset
    from trpg_arena.server.board import combatant_json

    info = get_ruleset("investigator").info
    view = CombatantView("ghoul", "Ghoul", "b", "npc", (3, 4), 5, 12, True, "ok", ("full_mov_lockout", "major_wound"))
    shown = combatant_json(view, info)
    assert shown["conditions"] == ["full_mov_lockout", "major_wound"]  # ids stay for programs
    assert shown["condition_texts"] == ["unable to act after a full move", "major wound"]
    golden = Path(__file__).parents[1] / "golden" / "investigator" / "skirmish-seed2-scripted-random.jsonl"
    texts = [json.loads(line).get("text", "") for line in golden.read_text().splitlines()[1:]]
    assert "ghoul is now unable to act after a full move" in texts
    assert not any("_" in t.split(" is now ")[-1] for t in texts if " is now " in t)


def test_dice_entries_are_refused_in_plain_words_and_the_example_shown_is_accepted(client: TestClient) -> None:
    for encounter in ("investigator/duel", "moonlit/duel"):  # a D100 and 2D6
        made = _create(client, encounter, pc="scripted", table_dice=True)
        sid, dice = made["state"]["id"], made["state"]["pending"]["dice"]
        r = client.post(f"/api/sessions/{sid}/dice", json={"faces": "-1"})
        assert r.status_code == 422 and "'-1' is not a face of this die" in r.json()["message"], r.text
        if dice["count"] > 1:
            r = client.post(f"/api/sessions/{sid}/dice", json={"faces": "1"})
            assert f"1 face entered, {dice['count']} needed" in r.json()["message"], r.text
        r = client.post(f"/api/sessions/{sid}/dice", json={"faces": dice["example"]})  # what the prompt suggests
        assert r.status_code == 200, (dice, r.text)
