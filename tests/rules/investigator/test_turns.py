"""Rounds, initiative, priority phases and the action economy (INV-1.2, INV-2, INV-3, INV-4.3, INV-4.9)."""

from __future__ import annotations

import pytest

from tests.rules.investigator.helpers import (
    END,
    NO_DEFENSE,
    WAIT,
    act,
    at_turn,
    cast,
    checks,
    encounter,
    end_turns,
    events,
    fighter,
    melee,
    move,
    play,
    shoot,
    std,
    turn_order,
    verbs,
)


def _t4(script: list[tuple[int, int]]):
    enc = encounter(std("P", "A", (0, 0), dex=70), std("Q", "B", (11, 0), dex=55), std("R", "A", (0, 11), dex=55),
                    std("S", "B", (11, 11), dex=40))
    return play(enc, script)


@pytest.mark.rule("INV-T4")
def test_INV_T4_initiative_and_the_round() -> None:
    """INV-T4 / INV-1.2 / INV-2.1 / INV-2.2 / INV-3.2: DEX order, d100 tie-break (lower first), fixed order."""
    c = _t4([(100, 64), (100, 12)])
    assert c.state.order == ["P", "R", "Q", "S"]
    assert not events(c, "phase_start") or all(e.kind != "decision" for e in c.log)
    end_turns(c, until=None, limit=4)
    assert turn_order(c) == ["P", "R", "Q", "S", "P"]
    assert c.round == 2 and c.dice.remaining == 0
    for cid in "PQRS":
        f = fighter(c, cid)
        assert not (f.prepare_used or f.move_used or f.opportunity_used or f.standard_used)
    end_turns(c, limit=3)
    assert turn_order(c) == ["P", "R", "Q", "S"] * 2
    assert len(events(c, "initiative_roll")) == 2


def test_INV_T4_variant_redraw_on_equal_tie_rolls() -> None:
    """INV-2.2: equal results draw again in listing order."""
    c = _t4([(100, 30), (100, 30), (100, 80), (100, 5)])
    assert c.state.order == ["P", "R", "Q", "S"]
    assert c.dice.remaining == 0


def _t28(**opts: object):
    m = std("M", "A", (5, 5), dex=80, tough=True)
    g = std("G", "B", (5, 8), dex=30, weapons=["revolver"], wielded="revolver")
    cc = std("C", "B", (2, 5), dex=20, spells=["Bolt"])
    return play(encounter(m, g, cc, options=dict(opts) or None))


@pytest.mark.rule("INV-T28")
def test_INV_T28_priority_phases() -> None:
    """INV-T28 / INV-4.3 / INV-5.3 / INV-6.5: cast phase, shoot phase, then the general phase."""
    c = _t28()
    d = c.decision
    assert d is not None and d.actor == "C" and d.step == "phase_offer"
    assert verbs(c) == {"cast", "wait"}
    assert cast("Bolt", "M") in c.legal_actions()
    assert cast("Bolt", "M", "before", (2, 5), (3, 5)) in c.legal_actions()
    c.dice.script += [(6, 2)]
    c.act(cast("Bolt", "M"))
    assert fighter(c, "M").hp == 28
    c.act(END)
    d = c.decision
    assert d is not None and d.actor == "G" and d.step == "phase_offer"
    assert verbs(c) == {"shoot", "wait"}
    assert shoot("M", "before", (5, 8), (5, 7)) in c.legal_actions()
    c.dice.script += [(100, 90)]
    c.act(shoot("M"))
    c.act(END)
    assert c.decision is not None and c.decision.actor == "M" and c.decision.step == "turn_action"
    assert turn_order(c) == ["C", "G", "M"]


def test_INV_T28_waiting_shooter_moves_to_the_general_phase() -> None:
    """INV-4.3: a shooter that waits takes its turn in the general phase, with aim available."""
    c = _t28()
    c.dice.script += [(6, 2)]
    c.act(cast("Bolt", "M"))
    c.act(END)
    c.act(WAIT)
    c.act(END)  # M
    assert c.decision is not None and c.decision.actor == "G"
    assert act("prepare", option="aim") in c.legal_actions() and shoot("M") in c.legal_actions()
    assert turn_order(c) == ["C", "M", "G"]


def test_INV_T28_dex_only() -> None:
    """INV-4.3 with priority_mode = dex_only: no offers, plain DEX order."""
    c = _t28(priority_mode="dex_only")
    end_turns(c, limit=3)
    assert turn_order(c)[:3] == ["M", "G", "C"]
    assert not [e for e in c.log if e.kind == "decision" and e.data.get("decision") == "phase_offer"]


@pytest.mark.rule("INV-T36")
def test_INV_T36_the_action_economy_inside_a_turn() -> None:
    """INV-T36 / INV-3.1 / INV-3.3 / INV-3.4: slots, a full-round cast, consecutive actions."""
    a = std("A", "A", (5, 5), dex=60, weapons=["knife"], wielded="knife", spells=["Rapture"])
    b = std("B", "B", (6, 5), dex=39, tough=True)
    c = play(encounter(a, b, start={"phase": "cast",
                                    "combatants": {"B": {"opportunity_used": True, "standard_used": 1}}}))
    at_turn(c, "A")
    leg = set(c.legal_actions())
    assert {melee("B"), cast("Rapture", "B"), act("switch_weapon", option="unarmed"), END} <= leg
    assert {"step", "move"} <= verbs(c)
    c.dice.script += [(100, 70)]
    c.act(melee("B"))
    c.act(NO_DEFENSE)
    leg = set(c.legal_actions())
    assert melee("B") not in leg and cast("Rapture", "B") not in leg
    assert {"step", "move", "switch_weapon", "end_turn"} <= verbs(c)
    c.act(move(5, 2))
    assert verbs(c) == {"switch_weapon", "end_turn"}


def _g(pos: tuple[int, int], **kw: object) -> dict:
    return std("G", "B", pos, dex=60, standard_actions=2, weapons=["claws"], wielded="claws",
               skills={"Fighting (Claw)": 40}, **kw)


@pytest.mark.rule("INV-T37")
def test_INV_T37_two_standard_actions() -> None:
    """INV-T37 / INV-3.5 / INV-3.2: two standard slots, both reset every round."""
    c = play(encounter(_g((5, 5)), std("T", "A", (6, 5), dex=39, tough=True)),
             [(100, 30), (6, 4), (100, 35), (6, 2)])
    at_turn(c, "G")
    c.act(melee("T"))
    c.act(NO_DEFENSE)
    assert fighter(c, "T").hp == 26
    assert melee("T") in c.legal_actions()
    c.act(melee("T"))
    c.act(NO_DEFENSE)
    assert fighter(c, "T").hp == 24
    assert "melee" not in verbs(c) and {"step", "move"} <= verbs(c)
    c.act(END)
    at_turn(c, "G")
    assert c.round == 2 and melee("T") in c.legal_actions()
    assert fighter(c, "G").standard_used == 0


def _t38(gpos: tuple[int, int], **opts: object):
    t = std("T", "A", (9, 5), dex=39, tough=True)
    return play(encounter(_g(gpos), t, options=dict(opts) or None,
                          start={"combatants": {"T": {"opportunity_used": True, "standard_used": 1}}}))


@pytest.mark.rule("INV-T38")
def test_INV_T38_full_mov_lockout() -> None:
    """INV-T38 / INV-4.9: a full-MOV long move locks a multi-action unit out of standard actions."""
    c = _t38((0, 5))
    c.act(move(8, 5))
    assert melee("T") not in c.legal_actions()
    assert fighter(c, "G").full_mov_lockout
    c.act(END)
    end_turns(c, until="G")
    assert c.round == 2 and melee("T") in c.legal_actions()
    # (b) cost 7 < mov: melee present, a moving attack requiring Hard
    c = _t38((1, 5))
    c.act(move(8, 5))
    assert melee("T") in c.legal_actions()
    c.dice.script += [(100, 30)]
    c.act(melee("T"))
    c.act(NO_DEFENSE)
    assert checks(c)[-1].data["required"] == "Hard"


def test_INV_T38_single_action_investigators_and_options() -> None:
    """INV-4.9: multi_action_only spares S = 1; `all` does not; next_round moves the lockout."""
    for mode, present in (("multi_action_only", True), ("all", False)):
        a = std("A", "A", (0, 5), dex=60)
        t = std("T2", "B", (9, 5), dex=39, tough=True)
        c = play(encounter(a, t, options={"full_mov_restriction": mode},
                           start={"combatants": {"T2": {"opportunity_used": True, "standard_used": 1}}}))
        c.act(move(8, 5))
        assert (melee("T2") in c.legal_actions()) is present
    c = _t38((0, 5), full_mov_scope="next_round")
    c.act(move(8, 5))
    assert melee("T") in c.legal_actions()
    c.act(END)
    end_turns(c, until="G")
    assert c.round == 2 and "melee" not in verbs(c) and fighter(c, "G").full_mov_lockout


@pytest.mark.rule("INV-T48")
def test_INV_T48_dex_plus_50() -> None:
    """INV-T48 / INV-4.3: a ready firearm sorts as DEX + 50 for the round."""
    for loaded, order in ((6, ["G", "M"]), (0, ["M", "G"])):
        g = std("G", "B", (0, 0), dex=40, weapons=["revolver"], wielded="revolver")
        m = std("M", "A", (11, 11), dex=80)
        enc = encounter(g, m, options={"priority_mode": "dex_plus_50"})
        enc["combatants"][0]["weapons"] = ["revolver"]
        enc["weapons"]["revolver"]["loaded"] = loaded
        c = play(enc)
        end_turns(c, limit=2)
        assert turn_order(c)[:2] == order
