"""Wounds, dying, first aid, items and the end of combat (INV-8.11, INV-8.12, INV-11, INV-12)."""

from __future__ import annotations

import pytest

from tests.rules.investigator.helpers import (
    DECLINE,
    END,
    NO_DEFENSE,
    act,
    at_turn,
    encounter,
    end_turns,
    events,
    fighter,
    legal,
    melee,
    move,
    play,
    shoot,
    std,
    verbs,
)
from trpg_arena.rules import Action


def _gun(pos: tuple[int, int] = (0, 0)) -> dict:
    return std("A", "A", pos, dex=60, weapons=["revolver"], wielded="revolver")


def _shot_t(hp: int, script: list[tuple[int, int]], major: bool = False):
    conds = ["major_wound"] if major else []
    c = play(encounter(_gun(), std("T", "B", (3, 0)), std("Z", "B", (11, 11), dex=1),
                       start={"phase": "cast", "combatants": {"T": {"hp": hp, "conditions": conds}}}), script)
    c.act(shoot("T"))
    assert c.dice.remaining == 0
    return c


@pytest.mark.rule("INV-T39")
def test_INV_T39_major_wound() -> None:
    """INV-T39 / INV-11.1 / INV-11.2 / INV-11.9: half max HP is a major wound: CON, then POW; unconscious."""
    c = _shot_t(10, [(100, 40), (10, 5), (100, 60), (100, 70)])
    t = fighter(c, "T")
    assert t.hp == 5 and t.major_wound and t.prone and t.unconscious
    c.act(END)
    end_turns(c, until="A")
    assert "T" not in [e.actor for e in events(c, "turn_start")]
    assert c.round == 2
    c.act(Action("wait")) if c.decision and c.decision.step == "phase_offer" else None
    c.dice.script += [(100, 99)]  # type: ignore[attr-defined]
    c.act(move(2, 1))
    c.act(melee("T"))
    assert c.decision is not None and c.decision.actor == "A" and c.decision.step == "turn_action"
    c = _shot_t(10, [(100, 40), (10, 5), (100, 40)])
    t = fighter(c, "T")
    assert t.major_wound and not t.prone and not t.unconscious
    c = _shot_t(10, [(100, 40), (10, 5), (100, 60), (100, 30)])
    t = fighter(c, "T")
    assert t.prone and not t.unconscious


@pytest.mark.rule("INV-T40")
def test_INV_T40_dying_and_death() -> None:
    """INV-T40 / INV-11.3 / INV-11.4: below zero is dying (POW check, no CON); -3 is death and frees the square."""
    t = fighter(_shot_t(4, [(100, 40), (10, 5), (100, 30)]), "T")
    assert t.hp == -1 and t.dying and t.prone and t.major_wound and not t.unconscious
    t = fighter(_shot_t(4, [(100, 40), (10, 6), (100, 80)]), "T")
    assert t.hp == -2 and t.dying and t.unconscious
    c = _shot_t(4, [(100, 40), (10, 7)])
    t = fighter(c, "T")
    assert t.dead and t.pos is None and not c.over


@pytest.mark.rule("INV-T41")
def test_INV_T41_exactly_zero_hp() -> None:
    """INV-T41 / INV-11.5: zero HP with a major wound is dying, without one unconscious and stable."""
    t = fighter(_shot_t(5, [(100, 40), (10, 5), (100, 30)]), "T")
    assert t.hp == 0 and t.major_wound and t.dying and not t.unconscious
    t = fighter(_shot_t(3, [(100, 40), (10, 3)]), "T")
    assert t.hp == 0 and not t.dying and t.unconscious and t.prone
    t = fighter(_shot_t(3, [(100, 40), (10, 3), (100, 70)], major=True), "T")
    assert t.dying and t.unconscious


def _t42(script: list[tuple[int, int]], luck: int = 50, **opts: object):
    t = std("T", "B", (11, 11), luck=luck)
    enc = encounter(std("A", "A", (0, 0), dex=60), std("Z", "B", (11, 0), dex=50), t,
                    options=dict(opts) or None,
                    start={"phase": "cast", "combatants": {"T": {"hp": -1, "conditions": ["dying", "prone"],
                                                                 "dying_since": 1}}})
    return play(enc, script)


def _to_round_end(c, rnd: int) -> None:
    while not c.over and c.round <= rnd:
        end_turns(c, limit=1)


@pytest.mark.rule("INV-T42")
def test_INV_T42_dying_luck_and_hp_loss() -> None:
    """INV-T42 / INV-11.6: a grace round, then Luck spent as points, then unconsciousness and HP loss."""
    c = _t42([(100, 30), (100, 45)])
    _to_round_end(c, 1)
    t = fighter(c, "T")
    assert c.round == 2 and t.hp == -1 and c.dice.remaining == 0 or c.dice.position == 0  # type: ignore[attr-defined]
    assert c.dice.position == 0  # type: ignore[attr-defined]
    _to_round_end(c, 2)
    assert t.luck == 20 and t.hp == -1 and not t.unconscious
    _to_round_end(c, 3)
    assert t.unconscious and t.hp == -2 and t.luck == 20
    _to_round_end(c, 4)
    assert t.dead and c.dice.remaining == 0  # type: ignore[attr-defined]
    c = _t42([], luck=0)
    _to_round_end(c, 2)
    t = fighter(c, "T")
    assert t.unconscious and t.hp == -2
    c = _t42([(100, 30)], dying_grace_round=False)
    _to_round_end(c, 1)
    assert fighter(c, "T").luck == 20


@pytest.mark.rule("INV-T47")
def test_INV_T47_dying_deadline() -> None:
    """INV-T47 / INV-11.7 with dying_deadline: still dying a round later means death, no die."""
    c = _t42([], dying_deadline=True)
    _to_round_end(c, 2)
    assert fighter(c, "T").dead and c.dice.remaining == 0  # type: ignore[attr-defined]


def _t43(script: list[tuple[int, int]], wound: bool = True, **opts: object):
    conds = ["dying", "unconscious", "prone", "major_wound"] + (["untreated_wound"] if wound else [])
    enc = encounter(std("A", "A", (5, 5), dex=60), std("T", "A", (6, 5), dex=50), options=dict(opts) or None,
                    start={"round": 2, "phase": "general",
                           "combatants": {"T": {"hp": -2, "conditions": conds, "dying_since": 1}}})
    c = play(enc, script)
    at_turn(c, "A")
    return c


@pytest.mark.rule("INV-T43")
def test_INV_T43_first_aid_on_the_dying() -> None:
    """INV-T43 / INV-11.7 / INV-8.12: stabilise at 1 HP and wake; the patient's turn still comes this round."""
    c = _t43([(100, 20)])
    c.act(act("first_aid", "T"))
    t = fighter(c, "T")
    assert t.hp == 1 and not t.dying and not t.unconscious and t.prone and t.major_wound and not t.untreated_wound
    c.act(END)
    assert c.decision is not None and c.decision.actor == "T" and Action("stand_up") in c.legal_actions()
    c = _t43([(100, 20)], first_aid_dying_hp="plus_1")
    c.act(act("first_aid", "T"))
    t = fighter(c, "T")
    assert t.hp == -1 and not t.dying and t.unconscious
    end_turns(c, limit=3)
    assert c.round == 3 and fighter(c, "T").hp == -1
    c = _t43([(100, 60)])
    c.act(act("first_aid", "T"))
    t = fighter(c, "T")
    assert t.hp == -2 and t.dying and t.untreated_wound
    c = _t43([], wound=False)
    assert act("first_aid", "T") not in c.legal_actions()


@pytest.mark.rule("INV-T22")
def test_INV_T22_first_aid() -> None:
    """INV-T22 / INV-8.12: only visible, untreated wounds; one success treats them; a failure may be retried."""
    def setup(script: list[tuple[int, int]]):
        enc = encounter(std("A", "A", (5, 5), dex=60), std("X", "A", (6, 5)), std("Y", "A", (4, 5)),
                        start={"phase": "cast", "combatants": {"X": {"hp": 6, "conditions": ["untreated_wound"]},
                                                               "Y": {"hp": 7}}})
        c = play(enc, script)
        at_turn(c, "A")
        return c

    c = setup([(100, 30)])
    leg = legal(c)
    assert act("first_aid", "X") in leg and act("first_aid", "Y") not in leg and act("first_aid", "A") not in leg
    c.act(act("first_aid", "X"))
    assert fighter(c, "X").hp == 7 and not fighter(c, "X").untreated_wound
    c.act(END)
    end_turns(c, until="A")
    assert c.round == 2 and act("first_aid", "X") not in c.legal_actions()
    c = setup([(100, 60)])
    c.act(act("first_aid", "X"))
    assert fighter(c, "X").hp == 6 and fighter(c, "X").untreated_wound
    c.act(END)
    end_turns(c, until="A")
    assert act("first_aid", "X") in c.legal_actions()


@pytest.mark.rule("INV-T26")
def test_INV_T26_several_reactors() -> None:
    """INV-T26 / INV-10.3 / INV-10.4: windows in initiative order for eligible hostiles only; a hit stops the rest."""
    def setup(script: list[tuple[int, int]]):
        enc = encounter(std("A", "A", (5, 5), dex=70), std("X", "A", (5, 6)), std("B1", "B", (6, 5), dex=60),
                        std("B2", "B", (4, 6), dex=40), std("B3", "B", (4, 4), dex=50), std("B4", "B", (6, 4), dex=45),
                        std("Z2", "A", (6, 6), dex=30),
                        start={"phase": "cast", "combatants": {
                            "X": {"hp": 5, "conditions": ["untreated_wound"]}, "B3": {"opportunity_used": True},
                            "B4": {"conditions": ["unconscious", "prone"]}}})
        c = play(enc, script)
        at_turn(c, "A")
        c.act(act("first_aid", "X"))
        assert c.decision is not None and c.decision.actor == "B1"
        return c

    c = setup([(100, 10)])
    c.act(act("opportunity_attack", "A"))
    c.act(NO_DEFENSE)
    assert fighter(c, "A").hp == 9 and fighter(c, "X").hp == 5
    assert [e.actor for e in events(c, "window_open")] == ["B1"]
    c = setup([(100, 90), (100, 30)])
    c.act(act("opportunity_attack", "A"))
    c.act(NO_DEFENSE)
    assert c.decision is not None and c.decision.actor == "B2"
    c.act(DECLINE)
    assert fighter(c, "X").hp == 6 and [e.actor for e in events(c, "window_open")] == ["B1", "B2"]


@pytest.mark.rule("INV-T21")
def test_INV_T21_pass_and_pick_up() -> None:
    """INV-T21 / INV-8.11: pass to an adjacent ally; pick up from the nine-grid only."""
    enc = encounter(std("A", "A", (5, 5), dex=60, weapons=["knife"]), std("X", "A", (6, 6)),
                    std("B", "B", (5, 6)),
                    map={"ground_items": [{"at": [4, 4], "weapon": "club"}, {"at": [3, 5], "weapon": "tknife"}]})
    c = play(enc)
    at_turn(c, "A")
    leg = legal(c)
    assert act("pass_item", "X", "A.knife") in leg
    assert not [a for a in leg if a.verb == "pass_item" and a.target == "B"]
    assert Action("pick_up", None, "NW", "ground0.club") in leg
    assert not [a for a in leg if a.verb == "pick_up" and "tknife" in a.option]
    c.act(act("pass_item", "X", "A.knife"))
    x = fighter(c, "X")
    assert [w.id for w in x.weapons] == ["A.knife"] and x.wielded == "unarmed"
    assert fighter(c, "A").standard_used == 1 and "pick_up" not in verbs(c)


@pytest.mark.rule("INV-T44")
def test_INV_T44_end_of_combat_and_fleeing() -> None:
    """INV-T44 / INV-12.1 / INV-12.2 / INV-12.3: elimination, the round cap, fleeing through an exit."""
    c = play(encounter(_gun(), std("B", "B", (3, 0), dex=40), start={"phase": "cast",
                                                                       "combatants": {"B": {"hp": 4}}}),
             [(100, 40), (10, 7)])
    c.act(shoot("B"))
    assert c.over and c.result == "A" and events(c, "combat_end") and c.decision is None
    c = play(encounter(std("A", "A", (0, 0), dex=60), std("B", "B", (11, 11)), options={"round_cap": 2}))
    end_turns(c)
    assert c.over and c.result == "draw" and c.round == 2
    assert events(c, "round_end")[-1].seq < events(c, "combat_end")[0].seq
    exits = {"exits": [[0, y] for y in range(12)]}
    c = play(encounter(std("A", "A", (0, 5), dex=60), std("B", "B", (11, 11)), map=exits))
    at_turn(c, "A")
    assert Action("flee") in c.legal_actions()
    c.act(Action("flee"))
    assert fighter(c, "A").fled and c.over and c.result == "B"
    c = play(encounter(std("A", "A", (1, 5), dex=60), std("B", "B", (11, 11)), map=exits))
    at_turn(c, "A")
    assert Action("flee") not in c.legal_actions()


@pytest.mark.rule("INV-11.7")
def test_INV_11_7_first_aid_on_a_dying_patient_at_zero_hp_cites_the_dying_rule() -> None:
    """INV-11.7: the first aid that stabilises a dying patient at exactly 0 HP is logged under INV-11.7."""
    enc = encounter(std("C", "A", (1, 0), dex=60), std("A", "A", (0, 0), dex=55), std("B", "B", (11, 11), dex=40),
                    start={"combatants": {"A": {"hp": 0, "dying_since": 1, "conditions": [
                        "dying", "prone", "major_wound", "untreated_wound", "unconscious"]}}})
    c = play(enc, [(100, 20)])
    at_turn(c, "C")
    c.act(act("first_aid", "A"))
    (aid,) = events(c, "first_aid")
    assert aid.rule == "INV-11.7" and aid.data["hp_before"] == 0
