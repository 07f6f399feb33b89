"""Scenarios of the basic strike: hit, dodge, criticals, damage, defense (KIA-T1 to KIA-T9)."""

from __future__ import annotations

import pytest

from tests.rules.kiai.helpers import DODGE, END, NO_REACTION, atk, fixture, play, wounds
from trpg_arena.rules import Action


@pytest.mark.rule("KIA-T1")
def test_KIA_T1_basic_hit_against_failed_dodge() -> None:
    """KIA-T1: KIA-0.1, KIA-2.1, KIA-2.3, KIA-3.1, KIA-3.4, KIA-4.1, KIA-6.1, KIA-7.1, KIA-7.2, KIA-7.3,
    KIA-7.5, KIA-7.6."""
    c = play(fixture(), "d100=35 d100=70 d10=7 d10=5 d10=4", atk("B"))
    assert c.decision.actor == "B" and c.decision.kind == "R1"
    assert c.legal_actions() == [DODGE, Action("attack_defense"), Action("counter"), NO_REACTION]
    c.act(DODGE)
    assert wounds(c, "B") == {"moderate": 1}
    assert c.decision.actor == "A" and c.decision.kind == "D2"
    assert c.legal_actions() == [Action("consecutive_attack", "B"), END]
    assert c.dice.remaining == 0
    dmg = [e for e in c.log if e.kind == "damage_rolled"][0]
    assert dmg.data["total"] == 22
    assert [e for e in c.log if e.kind == "defense_rolled"][0].data["total"] == 9
    # B's hit V is now 50 and dodge 30 (moderate, KIA-7.6)
    c.act(END)
    c2 = c.clone()
    c2.dice = __import__("trpg_arena.rules", fromlist=["ScriptedDice"]).ScriptedDice([(100, 51)])
    c2.act(atk("A"))
    chk = [e for e in c2.log if e.kind == "check"][-1]
    assert chk.data["V"] == 50 and chk.data["C"] == 5


@pytest.mark.rule("KIA-T2")
def test_KIA_T2_miss_and_boundary() -> None:
    """KIA-T2: KIA-2.1, KIA-2.3 - a miss rolls nothing else; V itself succeeds."""
    c = play(fixture(), "d100=61", atk("B"))
    assert c.decision.actor == "A" and c.decision.kind == "D2" and c.dice.remaining == 0
    c = play(fixture(), "d100=60", atk("B"))
    assert c.decision.actor == "B" and c.decision.kind == "R1"
