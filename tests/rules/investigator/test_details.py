"""Rule details beyond the acceptance scenarios: interruptions, expiries, items, lost targets."""

from __future__ import annotations

from tests.rules.investigator.helpers import (
    DODGE,
    END,
    NO_DEFENSE,
    WAIT,
    act,
    at_turn,
    cast,
    encounter,
    end_turns,
    events,
    fighter,
    melee,
    play,
    std,
)
from trpg_arena.rules import Action


def test_defending_interrupts_channeling() -> None:
    """INV-5.5: a channeling caster that dodges loses its ritual (and its paid MP)."""
    cc = std("C", "B", (5, 5), dex=20, spells=["Rapture"])
    a = std("A", "A", (6, 5), dex=60)
    c = play(encounter(cc, a, start={"phase": "general", "combatants": {
        "C": {"mp": 4, "channeling": {"spell": "Rapture", "target": "A", "done": 1}, "had_turn": True}}}),
        [(100, 90), (100, 90)])
    at_turn(c, "A")
    c.act(melee("C"))
    assert c.decision is not None and c.decision.actor == "C"
    c.act(DODGE)
    assert not fighter(c, "C").channel_spell and events(c, "cast_interrupted")


def test_channeling_caster_gets_no_opportunity_attack() -> None:
    """INV-5.5 / INV-10.4: a channeling combatant is never offered opportunity or pursuit attacks."""
    cc = std("C", "B", (5, 5), dex=20, spells=["Rapture"])
    a = std("A", "A", (6, 5), dex=60)
    c = play(encounter(cc, a, start={"phase": "general", "combatants": {
        "C": {"mp": 4, "channeling": {"spell": "Rapture", "target": "A", "done": 1}, "had_turn": True}}}))
    at_turn(c, "A")
    c.act(Action("move", dest=(9, 5)))
    assert not events(c, "window_open") and fighter(c, "A").pos == (9, 5)


def test_start_of_next_turn_bonus_lasts_through_the_round() -> None:
    """INV-4.1: a brace bonus survives the turn end and helps a later dodge; it lapses at the next turn."""
    w = std("W", "A", (5, 5), dex=60, techniques=["brace"])
    b = std("B", "B", (6, 5), dex=40)
    enc = encounter(w, b)
    enc["techniques"] = {"brace": {"skill": "Dodge", "bonus_to": ["dodge"], "expires": "start_of_next_turn"}}
    c = play(enc, [(100, 20), (100, 90), (100, 80), (10, 1)])
    at_turn(c, "W")
    c.act(act("prepare", option="brace"))
    c.act(END)
    at_turn(c, "B")
    c.act(melee("W"))
    c.act(DODGE)
    assert events(c, "check")[-1].data["bonus"] == 1 and fighter(c, "W").bonus_to is None


def test_picked_up_thrown_units_join_the_stack() -> None:
    """INV-8.11: thrown units picked up join a carried stack of the same template."""
    k = std("K", "A", (5, 5), dex=60, weapons=["tknife"], wielded="tknife")
    enc = encounter(k, std("B", "B", (11, 11)), map={"ground_items": [{"at": [5, 6], "weapon": "tknife", "count": 2}]})
    c = play(enc)
    at_turn(c, "K")
    c.act(Action("pick_up", None, "S", "ground0.tknife"))
    assert fighter(c, "K").weapon("K.tknife").count == 3 and not c.state.ground


def test_fled_side_loses_with_fled_termination() -> None:
    """INV-12.2 / INV-12.3: when the last able combatant of a side flees the other side wins (termination fled)."""
    exits = {"exits": [[0, 5]]}
    c = play(encounter(std("A", "A", (0, 5), dex=60), std("B", "B", (11, 11)), map=exits))
    at_turn(c, "A")
    c.act(Action("flee"))
    assert c.over and c.result == "B" and c.outcome is not None and c.outcome.termination.value == "fled"


def test_target_lost_when_the_target_dies_in_the_windows() -> None:
    """INV-10.4: a target killed during the action's own windows: slot spent, effect skipped (target_lost)."""
    cc = std("C", "A", (5, 5), dex=60, spells=["Bolt"], tough=True, weapons=["club"], wielded="club")
    t = std("T", "B", (6, 5), dex=40)
    c = play(encounter(cc, t, std("Z", "B", (11, 11), dex=1), start={"phase": "cast", "combatants": {"T": {"hp": 1}}}),
             [(100, 90), (100, 30), (8, 8)])
    c.act(cast("Bolt", "T"))
    c.act(act("opportunity_attack", "C"))
    c.act(Action("fight_back"))
    assert fighter(c, "T").dead and events(c, "target_lost") and fighter(c, "C").mp == 10
    assert fighter(c, "C").standard_used == 1 and c.dice.remaining == 0


def test_waiting_in_every_phase_reaches_the_general_turn() -> None:
    """INV-4.3: waiting at both offers leads to the general-phase turn with the full legal set."""
    g = std("G", "A", (0, 0), dex=60, weapons=["revolver"], wielded="revolver", spells=["Bolt"])
    c = play(encounter(g, std("B", "B", (3, 0), tough=True)))
    assert c.decision is not None and c.decision.step == "phase_offer"
    c.act(WAIT)
    assert c.decision is not None and c.decision.step == "phase_offer"
    c.act(WAIT)
    assert c.decision is not None and c.decision.step == "turn_action"
    assert {"cast", "shoot", "move", "prepare"} <= {a.verb for a in c.legal_actions()}
    end_turns(c, limit=2)
    assert c.round == 2 and NO_DEFENSE not in c.legal_actions()
