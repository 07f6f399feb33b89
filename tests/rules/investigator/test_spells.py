"""Casting: costs, materials, resistance, healing, multi-round rituals, one-step casts (INV-5, INV-0.5)."""

from __future__ import annotations

import pytest

from tests.rules.investigator.helpers import (
    DECLINE,
    END,
    WAIT,
    act,
    cast,
    encounter,
    events,
    fighter,
    legal,
    play,
    shoot,
    std,
    verbs,
)


def _t27(script: list[tuple[int, int]], **ckw: object):
    cc = std("C", "B", (0, 0), dex=20, spells=["Bolt", "Hex", "Sigil"], **ckw)
    m = std("M", "A", (5, 0), dex=80, pow=60, tough=True)
    m2 = std("M2", "A", (7, 0), dex=70)
    return play(encounter(cc, m, m2), script)


@pytest.mark.rule("INV-T27")
def test_INV_T27_casting_materials_resistance_healing() -> None:
    """INV-T27 / INV-5.1 / INV-5.2 / INV-0.5: no casting roll, range, materials, opposed POW, heal."""
    c = _t27([(6, 5)])
    d = c.decision
    assert d is not None and d.actor == "C" and d.step == "phase_offer"
    assert cast("Bolt", "M") in c.legal_actions() and cast("Bolt", "M2") not in c.legal_actions()
    assert cast("Sigil", "M") not in c.legal_actions()
    c.act(cast("Bolt", "M"))
    assert fighter(c, "M").hp == 25 and fighter(c, "C").mp == 6 and not fighter(c, "M").untreated_wound
    c = _t27([(3, 2)], materials={"chalk": 1})
    c.act(cast("Sigil", "M"))
    assert fighter(c, "C").materials["chalk"] == 0 and fighter(c, "C").mp == 8 and fighter(c, "M").hp == 28
    c = _t27([(100, 20), (100, 35), (6, 3)])
    c.act(cast("Hex", "M"))
    assert fighter(c, "M").hp == 27 and fighter(c, "C").mp == 7
    c = _t27([(100, 20), (100, 25)])
    c.act(cast("Hex", "M"))
    assert fighter(c, "M").hp == 30 and fighter(c, "C").mp == 7 and events(c, "spell_resisted")
    assert c.dice.remaining == 0
    enc = encounter(std("C", "B", (0, 0), dex=20, spells=["Bolt", "Hex", "Sigil"]),
                    std("M", "A", (5, 0), dex=80, tough=True), start={"phase": "cast",
                                                                      "combatants": {"C": {"mp": 2}}})
    c = play(enc)
    assert not [e for e in c.log if e.kind == "decision" and e.data.get("decision") == "phase_offer"]
    assert c.decision is not None and c.decision.actor == "M"


def test_INV_T27_heal() -> None:
    """INV-T27 (e) / INV-5.2: Mend heals an ally or oneself, never a hostile."""
    w = std("W", "A", (5, 5), dex=60, spells=["Mend"])
    x = std("X", "A", (5, 6))
    c = play(encounter(w, x, std("B", "B", (9, 9)), start={"phase": "cast", "combatants": {"X": {"hp": 5}}}),
             [(3, 2)])
    assert {cast("Mend", "X"), cast("Mend", "W")} <= legal(c) and cast("Mend", "B") not in c.legal_actions()
    c.act(cast("Mend", "X"))
    assert fighter(c, "X").hp == 7 and fighter(c, "W").mp == 7


def _t29(script: list[tuple[int, int]]):
    cc = std("C", "B", (0, 0), dex=20, spells=["Rapture", "Bolt"])
    m = std("M", "A", (5, 0), dex=80, tough=True)
    s = std("S", "A", (0, 3), dex=60, weapons=["revolver"], wielded="revolver")
    c = play(encounter(cc, m, s), script)
    d = c.decision
    assert d is not None and d.actor == "C" and d.step == "phase_offer"
    assert {cast("Rapture", "M"), cast("Bolt", "M")} <= legal(c)
    c.act(cast("Rapture", "M"))
    f = fighter(c, "C")
    assert f.mp == 4 and (f.channel_spell, f.channel_target, f.channel_done) == ("Rapture", "M", 1)
    assert f.move_used and f.standard_used == 1
    assert c.decision is not None and c.decision.actor == "S"  # C's turn ended on its own
    return c


@pytest.mark.rule("INV-T29")
def test_INV_T29_multi_round_casting_and_interruption() -> None:
    """INV-T29 / INV-5.4 / INV-5.5 / INV-3.4 / INV-3.3: a full-round ritual over two rounds; a hit interrupts."""
    c = _t29([(6, 3), (6, 4)])
    c.act(WAIT)
    c.act(END)  # M
    c.act(END)  # S
    d = c.decision
    assert c.round == 2 and d is not None and d.actor == "C" and d.step == "phase_offer"
    leg = legal(c)
    assert {act("continue_cast"), cast("Bolt", "M"), cast("Bolt", "S"), WAIT} <= leg
    assert cast("Bolt", "M", "before", (0, 0), (1, 0)) in leg and cast("Rapture", "M") not in leg
    c.act(act("continue_cast"))
    assert fighter(c, "M").hp == 23 and events(c, "cast_completed") and not fighter(c, "C").channel_spell
    # (b) a shot interrupts the ritual
    c = _t29([(100, 30), (10, 2)])
    c.act(shoot("C"))
    assert fighter(c, "C").hp == 8 and events(c, "cast_interrupted")
    c.act(END)
    c.act(END)  # M
    d = c.decision
    assert c.round == 2 and d is not None and d.actor == "C"
    assert "continue_cast" not in verbs(c) and {cast("Bolt", "M"), cast("Bolt", "S")} <= legal(c)
    assert fighter(c, "C").mp == 4
    # (c) waiting abandons the ritual
    c = _t29([])
    c.act(WAIT)
    c.act(END)
    c.act(END)
    c.act(WAIT)
    assert events(c, "cast_interrupted") and fighter(c, "C").mp == 4 and not fighter(c, "C").channel_spell


def _t30(script: list[tuple[int, int]]):
    cc = std("C", "B", (5, 5), dex=60, spells=["Bolt"])
    t = std("T", "A", (6, 5), dex=40, tough=True)
    return play(encounter(cc, t, start={"phase": "cast", "combatants": {"T": {"standard_used": 1}}}), script)


@pytest.mark.rule("INV-T30")
def test_INV_T30_one_step_cast() -> None:
    """INV-T30 / INV-5.6 / INV-10.3: the window depends on where the cast happens."""
    c = _t30([(6, 4)])
    c.act(cast("Bolt", "T"))
    assert c.decision is not None and c.decision.actor == "T"
    assert legal(c) == {act("opportunity_attack", "C"), DECLINE}
    c.act(DECLINE)
    assert fighter(c, "T").hp == 26
    c = _t30([(6, 4)])
    c.act(cast("Bolt", "T", "before", (5, 5), (4, 5)))
    assert not events(c, "window_open") and fighter(c, "T").hp == 26 and fighter(c, "C").pos == (4, 5)
    c = _t30([(6, 4)])
    c.act(cast("Bolt", "T", "after", (5, 5), (4, 5)))
    assert c.decision is not None and c.decision.actor == "T" and fighter(c, "T").hp == 30
    c.act(DECLINE)
    assert fighter(c, "T").hp == 26 and fighter(c, "C").pos == (4, 5)


def test_cancelled_cast_pays_nothing_and_skips_its_step() -> None:
    """INV-10.5 / INV-5.1: an opportunity hit before the cast cancels it (no MP spent) and its `after` step."""
    cc = std("C", "B", (5, 5), dex=60, spells=["Bolt"])
    t = std("T", "A", (6, 5), dex=40, tough=True)
    c = play(encounter(cc, t, start={"phase": "cast", "combatants": {"T": {"standard_used": 1}}}),
             [(100, 5)])
    c.act(cast("Bolt", "T", "after", (5, 5), (4, 5)))
    c.act(act("opportunity_attack", "C"))
    c.act(act("no_defense"))
    assert events(c, "action_cancelled") and fighter(c, "C").pos == (5, 5)
    assert fighter(c, "C").mp == 10 and fighter(c, "C").hp == 9 and c.dice.remaining == 0
