"""The session loop through its public API: seats, proposals, confirm / override, undo, resume, dice by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import SYSTEMS
from trpg_arena.agents import Proposal
from trpg_arena.rules import DecisionKind, DiceEntryError
from trpg_arena.table.seats import Seat, SeatKind
from trpg_arena.table.session import SeatKeyError, Session, SessionError
from trpg_arena.table.store import SessionStore


def log_lines(s: Session) -> list[str]:
    return [e.json_line() for e in s.combat.log]


def gm(s: Session, rng: np.random.Generator, steps: int) -> None:
    """Play as a GM would: confirm most proposals, override some, choose for people, roll dice by hand."""
    for _ in range(steps):
        s.run()
        p = s.pending()
        if p is None:
            return
        if p.dice is not None:
            s.enter_dice(" ".join(hand_faces(p.dice, rng)))
        elif p.proposal is None:
            s.submit(int(rng.integers(len(p.legal))))
        elif rng.random() < 0.25 and len(p.legal) > 1:
            s.override(int(rng.integers(len(p.legal))))
        else:
            s.confirm()


def hand_faces(request, rng: np.random.Generator) -> list[str]:
    if request.what == "tens":
        return [f"{10 * int(rng.integers(10)):02d}" for _ in range(request.count)]
    return [str(int(rng.integers(1, request.sides + 1))) for _ in range(request.count)]


def table(rid: str, store: SessionStore | None = None, **kw) -> Session:
    return Session(f"{rid}/skirmish", seed=11, pc="human", npc="review:scripted", store=store, **kw)


@pytest.mark.parametrize("rid", SYSTEMS)
def test_resumed_session_ends_with_the_log_of_an_uninterrupted_one(rid: str, tmp_path) -> None:
    whole = table(rid)
    gm(whole, np.random.default_rng(1), 400)

    store = SessionStore(tmp_path / "s.db")
    first = table(rid, store)
    rng = np.random.default_rng(1)
    gm(first, rng, 37)
    resumed = Session.load(SessionStore(tmp_path / "s.db"), first.id)
    assert log_lines(resumed) == log_lines(first)
    gm(resumed, rng, 400 - 37)
    assert resumed.combat.over and log_lines(resumed) == log_lines(whole)
    assert [r["action"] for r in resumed.records] == [r["action"] for r in whole.records]


@pytest.mark.parametrize("rid", SYSTEMS)
def test_undo_then_the_same_inputs_again_gives_the_same_state(rid: str) -> None:
    s = table(rid)
    gm(s, np.random.default_rng(2), 30)
    n = len(s.records)
    before = s.combat.snapshot()
    taken = s.records[-5:]
    s.undo(5)
    assert len(s.records) == n - 5
    for rec in taken:  # the same inputs again, through the public calls
        if len(s.records) > rec["n"]:  # a routine decision the session answered itself after the one before
            assert rec["source"] == "routine" and s.records[rec["n"]]["action"] == rec["action"]
            continue
        p = s.pending()
        assert p is not None and p.dice is None
        chosen = next(a for a in p.legal if a.to_json() == rec["action"])
        getattr(s, {"human": "submit", "confirmed": "confirm", "override": "override",
                    "routine": "submit"}[rec["source"]])(
            *(() if rec["source"] == "confirmed" else (chosen,)))
        while s.pending() is not None and s.pending().dice is not None:
            pytest.fail("no dice by hand in this test")
    assert s.combat.snapshot() == before


@pytest.mark.parametrize("rid", SYSTEMS)
def test_rewind_goes_back_to_the_first_decision_of_a_round(rid: str) -> None:
    s = Session(f"{rid}/skirmish", seed=4, pc="scripted", npc="scripted")
    s.run()
    assert s.combat.over and s.combat.round >= 2
    s.rewind(2)
    assert s.combat.round == 2 and not s.combat.over
    assert all(r["round"] < 2 for r in s.records)
    with pytest.raises(SessionError, match="has not been reached"):
        s.rewind(99)
    s.rewind(2)  # already at its first decision
    assert s.combat.round == 2


@pytest.mark.parametrize("rid", SYSTEMS)
def test_override_replaces_the_npcs_choice(rid: str) -> None:
    s = table(rid)
    s.run()
    p = s.pending()
    while p is not None and (p.proposal is None or len(p.legal) < 2):
        s.submit(0) if p.proposal is None else s.confirm()
        p = s.pending()
    assert p is not None and p.seat.kind is SeatKind.REVIEW and isinstance(p.proposal, Proposal)
    other = next(a for a in p.legal if a != p.proposal.action)
    n = len(s.records)
    s.override(other)
    assert s.records[n]["action"] == other.to_json() and s.records[n]["source"] == "override"
    assert s.records[n]["proposal"]["action"] == p.proposal.action.to_json()


@pytest.mark.parametrize("rid", SYSTEMS)
def test_a_whole_combat_with_dice_entered_by_hand(rid: str, tmp_path) -> None:
    store = SessionStore(tmp_path / "s.db")
    s = Session(f"{rid}/duel", seed=3, pc="scripted", npc="scripted", table_dice=True, store=store)
    rng = np.random.default_rng(7)
    asked = 0
    while not s.combat.over:
        s.run()
        p = s.pending()
        if p is None:
            break
        assert p.dice is not None, "an all-agent table only stops for dice"
        asked += 1
        s.enter_dice(" ".join(hand_faces(p.dice, rng)))
    assert s.combat.over and asked > 0
    assert all(r["by_hand"] for r in s.records) and any(r["faces"] for r in s.records)
    assert log_lines(Session.load(store, s.id)) == log_lines(s)


def _first_dice_request(rid: str) -> Session:
    s = Session(f"{rid}/duel", seed=3, pc="scripted", npc="scripted", table_dice=True)
    s.run()
    p = s.pending()
    assert p is not None and p.dice is not None
    return s


@pytest.mark.parametrize("rid", SYSTEMS)
@pytest.mark.parametrize("entry", ["x", "", "0.5 3", "999", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22"])
def test_bad_dice_entries_are_refused_and_nothing_changes(rid: str, entry: str) -> None:
    s = _first_dice_request(rid)
    before = s.combat.snapshot()
    request = s.pending().dice
    with pytest.raises(DiceEntryError) as e:
        s.enter_dice(entry)
    assert request.text() in str(e.value) or "faces" in str(e.value)
    assert s.combat.snapshot() == before and s.pending().dice == request


def test_a_seven_on_a_d6_and_a_missing_die_are_refused() -> None:
    s = _first_dice_request("moonlit")
    request = s.pending().dice
    assert request.sides == 6 and request.count == 2 and "kei rolls 2D6 for the action points" in request.text()
    for entry in ("7 3", "4"):
        with pytest.raises(DiceEntryError):
            s.enter_dice(entry)
    s.enter_dice("6 5")
    while s.pending().dice is not None:  # the action may need more dice (damage)
        s.enter_dice(" ".join(["3"] * s.pending().dice.count))
    assert s.records[-1]["faces"][:2] == [[6, 6], [6, 5]]


def test_percentile_dice_read_as_a_table_reads_them() -> None:
    from trpg_arena.rules.core.table_dice import DiceRequest

    d100 = DiceRequest(100, 1)
    assert d100.parse("00") == [100] and d100.parse("70 3") == [73] and d100.parse("00 0") == [100]
    assert d100.parse("07") == [7]
    tens = DiceRequest(10, 1, "tens")
    assert tens.parse("00") == [10] and tens.parse("90") == [9]
    with pytest.raises(DiceEntryError):
        tens.parse("35")
    assert DiceRequest(10, 3).parse("0 4 10") == [10, 4, 10]


def test_dice_by_hand_for_one_seat_only() -> None:
    s = Session("moonlit/duel", seed=3, pc="scripted", npc="scripted", seats={"A": "scripted+dice"})
    side = {c.id: c.side for c in s.combat.combatants}
    asked_of = set()
    while not s.combat.over:
        s.run()
        p = s.pending()
        if p is None:
            break
        asked_of.add(side[p.dice.roller])  # whoever decides: the dice are the roller's seat's
        s.enter_dice(" ".join(["3"] * p.dice.count))
    assert asked_of == {"A"}
    assert {side[roller] for r in s.records for roller in r["rollers"]} == {"A"}


@pytest.mark.parametrize("rid", SYSTEMS)
def test_pending_says_whose_side_and_what_kind(rid: str) -> None:
    s = table(rid)
    s.run()
    p = s.pending()
    assert p is not None and p.decision.side in s.combat.sides and isinstance(p.decision.kind, DecisionKind)
    data = p.to_json(s.combat)
    assert data["decision"]["kind"] in ("turn", "reaction", "choice") and data["groups"][0]["actions"][0]["text"]
    assert data["legal_count"] == len(p.legal) and data["needs_person"] == p.needs_person


def test_people_cannot_confirm_and_agents_run_until_a_person_decides() -> None:
    s = Session("moonlit/skirmish", seed=1, pc="human", npc="scripted")
    s.run()
    p = s.pending()
    assert p is not None and p.seat == Seat(SeatKind.HUMAN) and p.proposal is None
    with pytest.raises(SessionError):
        s.confirm()
    with pytest.raises(SessionError):
        s.submit(len(p.legal))


def test_unknown_seat_keys_are_refused() -> None:
    with pytest.raises(SeatKeyError, match="names no side or combatant"):
        Session("moonlit/duel", seats={"Z9": "human"})


def test_undo_is_kept_in_the_store(tmp_path) -> None:
    store = SessionStore(tmp_path / "s.db")
    s = Session("kiai/duel", seed=2, pc="scripted", npc="scripted", store=store)
    s.run(max_decisions=10)
    s.undo(3)
    s.run(max_decisions=2)
    again = Session.load(store, s.id)
    assert log_lines(again) == log_lines(s) and len(again.records) == 9


def test_autorun_lets_review_seats_play() -> None:
    s = Session("kiai/duel", seed=2, pc="review:scripted", npc="review:scripted")
    assert s.run() == 0
    s.autorun = True
    s.run()
    assert s.combat.over
