"""Undo while dice are asked for: the action waiting for them is the last decision, and only it is taken back.

The terminal's ``u``, the HTTP API's undo and MCP's undo all take back ``to_last_person()`` decisions, so
this is what each of them does; before, they took back the decision before it too, with its roll.
"""

from __future__ import annotations

import pytest

from trpg_arena.table.seats import SeatKind
from trpg_arena.table.session import Session, SessionError


def waiting_for_a_second_roll() -> Session:
    """An investigator duel: ada (dice by hand) has shot and rolled, and her next action waits for its dice."""
    s = Session("investigator/duel", seed=3, seats={"investigators": "human+dice"}, npc="review:scripted")
    s.run()
    s.submit(0)  # ada shoots: her roll is asked for
    s.enter_dice("50")
    while (p := s.pending()) is not None and (p.dice is not None or p.seat.kind is not SeatKind.HUMAN):
        if p.dice is not None:
            s.enter_dice("50")
        else:
            s.confirm()
    assert p is not None and p.decision.actor == "ada" and [r["source"] for r in s.records] == ["human"]
    aim = next(i for i, a in enumerate(p.legal) if a.verb.value == "prepare")
    s.submit(aim)
    assert s.dice_asked is not None, "preparing to aim asks for no roll: the scenario needs another action"
    return s


def test_undo_takes_back_only_the_action_waiting_for_its_dice() -> None:
    s = waiting_for_a_second_roll()
    decision, log = s.combat.decision, [e.to_json() for e in s.combat.log]
    assert s.to_last_person() == 1
    s.undo(s.to_last_person())
    assert s.dice_asked is None and len(s.records) == 1  # the shot before it, and its roll, stand
    assert s.combat.decision == decision and [e.to_json() for e in s.combat.log] == log


def test_a_count_takes_the_waiting_action_first_then_recorded_decisions() -> None:
    s = waiting_for_a_second_roll()
    with pytest.raises(SessionError, match="cannot undo 3 decisions: 1 taken so far and one waiting for its dice"):
        s.undo(3)
    s.undo(2)
    assert s.dice_asked is None and s.records == [] and s.combat.decision.actor == "ada"
