"""One seat's dice by hand: a roll is asked of the table when its roller's seat rolls by hand, whoever decides.

`--seat cult=human+dice` at investigator/skirmish: the brute's attack roll comes about in ada's decision (she
dodges), the investigators' POW checks in the priest's (he casts). Before, the table was asked for the rolls of
whoever decided: the cult's rolls in an investigator's decision were the engine's, and the investigators' rolls
in a cult decision were asked of the table.
"""

from __future__ import annotations

import numpy as np

from tests.dice_entries import log_dice
from tests.table.test_session import hand_faces, log_lines
from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore

CULT_SEAT = {"cult": "human+dice"}


def play_the_cult(s: Session, rounds: int) -> list[tuple[str, str]]:
    """The cult (a person's seat) attacks when it can; every roll asked for is answered. Returns (decider, roller)."""
    rng = np.random.default_rng(5)
    asked: list[tuple[str, str]] = []
    while not s.combat.over and s.combat.round <= rounds:
        s.run()
        p = s.pending()
        if p is None:
            break
        if p.dice is not None:
            asked.append((p.decision.actor, p.dice.roller))
            s.enter_dice(" ".join(hand_faces(p.dice, rng)))
        else:
            s.submit(next((a for a in p.legal if a.verb.value in ("fight", "shoot", "cast")), p.legal[0]))
    return asked


def test_a_sides_dice_are_asked_for_its_own_rolls_whoever_decides() -> None:
    s = Session("investigator/skirmish", seed=4, pc="scripted", npc="scripted", seats=CULT_SEAT)
    side = {c.id: c.side for c in s.combat.combatants}
    opening = len(s.combat.log)  # the tie-breaks of the set-up come before any decision: the program rolls them
    asked = play_the_cult(s, rounds=4)
    assert asked and {side[roller] for _, roller in asked} == {"cult"}, asked
    assert any(side[decider] == "investigators" for decider, _ in asked), "no cult roll in an investigator's decision"
    typed = [face for rec in s.records for _, face in rec["faces"]]
    cult_dice = [face for e in s.combat.log[opening:] if side.get(e.actor or "") == "cult" for face in log_dice(e.data)]
    assert cult_dice == typed, "the cult's dice in the log are not the faces typed, in order"
    assert all(side[roller] == "cult" for rec in s.records for roller in rec["rollers"])


def test_rolls_by_hand_of_one_side_replay_on_resume(tmp_path) -> None:
    store = SessionStore(tmp_path / "s.db")
    s = Session("investigator/skirmish", seed=4, pc="scripted", npc="scripted", seats=CULT_SEAT, store=store)
    play_the_cult(s, rounds=3)
    assert any(rec["faces"] for rec in s.records)
    assert log_lines(Session.load(store, s.id)) == log_lines(s)
    s.undo(3)
    assert log_lines(Session.load(store, s.id)) == log_lines(s)


def test_records_kept_before_faces_named_their_roller_replay_in_order() -> None:
    s = Session("investigator/skirmish", seed=4, pc="scripted", npc="scripted", table_dice=True)
    play_the_cult(s, rounds=2)
    assert any(rec["faces"] for rec in s.records)
    s.records = [{k: v for k, v in rec.items() if k != "rollers"} for rec in s.records]  # as stored before
    *_, (_, _, replayed) = s.replay()
    assert log_lines(s) == [e.json_line() for e in replayed.log]

