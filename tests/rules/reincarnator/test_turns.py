"""Scenes, the surprise round, initiative, delaying, joining and the end of combat (T9-T16, T27, T28)."""

from __future__ import annotations

import pytest

from tests.rules.reincarnator.helpers import PISTOL, SWORD, F, H, act, at_turn, combat, defaults, encounter, has, kinds
from trpg_arena.rules import Action

FOCUS = {"name": "Focus", "duration": "scene"}


def order_of(c):
    return list(c.state.order)


@pytest.mark.rule("REI-0.2")
def test_REI_T9_scene_change_and_surprise_round() -> None:
    """REI-T9: REI-0.2, REI-0.3, REI-0.6, REI-1.1, REI-1.2, REI-1.3, REI-1.5, REI-2.1, REI-2.6."""
    ward = {"name": "Ward", "duration": "scene", "modifiers": {"base_defense": 1}}
    enc = encounter(*defaults(a={"items": [SWORD, {**PISTOL, "location": "reachable"}]}, d={"effects": [ward]}),
                    surprise={"side": "P"})
    c = combat(enc, 8, 8, *[1] * 9, 7, 3)
    names = [e.kind for e in c.log]
    i = names.index("scene_change")
    assert names[i:i + 4] == ["scene_change", "effect_ended", "scene_started", "surprise_round_start"]
    assert c.log[i].data["reason"] == "combat_start" and c.log[i + 1].data["effect"] == "Ward"
    assert c.decision.actor == "A"
    for a in (("melee_attack", "D", None, "sword"), ("melee_attack", "D", None, ("sword", "all_out")),
              ("melee_attack", "D", None, "unarmed"), ("bull_rush", "D", None, "sword"), ("grapple", "D", None, None),
              ("end_turn", None, None, None)):
        assert has(c, *a), a
    verbs = {a.verb for a in c.legal_actions()}
    assert not verbs & {"move", "aim", "draw", "reload", "parry", "take_cover", "charge", "full_defense", "delay"}
    act(c, "melee_attack", "D", option="sword")
    roll = kinds(c, "roll")[0].data
    assert roll["defence"] == 0 and len(roll["dice"][0]) == 11 and F(c, "D").lethal == 2
    assert order_of(c) == ["A", "D"] and F(c, "A").init_total == 12 and F(c, "D").init_total == 8
    assert c.round == 1 and c.decision.actor == "A" and c.dice.remaining == 0
    assert len(kinds(c, "surprise_round_start")) == 1


def test_REI_T10_alert_defender() -> None:
    """REI-T10: REI-1.4 - an alert defender keeps its base defence; dodge still halved."""
    enc = encounter(*defaults(), surprise={"side": "P", "alert": ["D"]})
    c = combat(enc, *[1] * 9, 7, 3)
    act(c, "melee_attack", "D", option="sword")
    assert kinds(c, "roll")[0].data["defence"] == 2 and len(kinds(c, "roll")[0].data["dice"][0]) == 9


def test_REI_T11_several_ambushers() -> None:
    """REI-T11: REI-1.2 - ambushers act by base initiative; the single-attacker option."""
    b = H("B", "P", (6, 4), base_initiative=7)
    c = combat(encounter(*defaults(b), surprise={"side": "P"}), 7, 3, 2)
    assert c.decision.actor == "B"
    act(c, "end_turn")
    assert c.decision.actor == "A"
    act(c, "end_turn")
    starts = [e.actor for e in kinds(c, "turn_start") if e.data.get("surprise")]
    assert starts == ["B", "A"]
    c = combat(encounter(*defaults(b), surprise={"side": "P"}, options={"surprise_single_attacker": True}), 7, 3, 2)
    assert c.decision.actor == "B"
    act(c, "end_turn")
    assert [e.actor for e in kinds(c, "turn_start") if e.data.get("surprise")] == ["B"]
    assert kinds(c, "initiative_order")


def test_REI_T12_initiative_ties_between_sides() -> None:
    """REI-T12: REI-2.1, REI-2.2 - side dice are rerolled until they differ."""
    c = combat(encounter(H("A", "P", (5, 5)), H("B", "P", (5, 7)), H("D", "N", (6, 5))), 6, 4, 6, 4, 4, 7, 3)
    assert order_of(c) == ["A", "D", "B"] and c.dice.remaining == 0
    assert len(kinds(c, "initiative_tiebreak")) == 2


def test_REI_T13_initiative_tie_within_a_side() -> None:
    """REI-T13: REI-2.2 - same side: higher base first, no die."""
    c = combat(encounter(H("A", "P", (5, 5), base_initiative=6), H("B", "P", (5, 7)), H("D", "N", (6, 5))), 5, 6, 2)
    assert order_of(c) == ["A", "B", "D"] and not kinds(c, "initiative_tiebreak") and c.dice.remaining == 0


def test_REI_T14_initiative_change_after_the_round() -> None:
    """REI-T14: REI-2.3, REI-2.12 - a Haste draught re-sorts the order at the end of the round."""
    c = combat(encounter(*defaults(d={"items": [SWORD, "haste"]})), 6, 3)
    act(c, "end_turn")
    assert c.decision.actor == "D" and has(c, "consume", option="haste")
    act(c, "consume", option="haste")
    assert kinds(c, "slot_spent")[-1].data["slot"] == "swift"
    act(c, "end_turn")
    ev = kinds(c, "initiative_reordered")
    assert ev and ev[0].data["totals"]["D"] == 13 and order_of(c) == ["D", "A"] and c.decision.actor == "D"


def test_REI_T15_delay() -> None:
    """REI-T15: REI-2.4 - delay after a later combatant, resume with the same slots."""
    c = combat(encounter(H("A", "P", (5, 5)), H("B", "P", (5, 7)), H("D", "N", (6, 5))), 6, 4, 6, 4, 4, 7, 3)
    assert has(c, "delay", "D") and has(c, "delay", "B")
    act(c, "delay", "B")
    assert c.decision.actor == "D"
    act(c, "end_turn")
    assert c.decision.actor == "B" and has(c, "delay", "A")
    act(c, "end_turn")
    assert c.decision.actor == "A"
    n = len(kinds(c, "turn_start"))
    assert F(c, "A").slots["standard"] == 1 and F(c, "A").slots["move"] == 1 and F(c, "A").slots["swift"] == 1
    assert not has(c, "delay", "D") and not any(a.verb == "delay" for a in c.legal_actions())
    act(c, "end_turn")
    assert len(kinds(c, "turn_start")) == n + 1  # D's round-2 turn, no repeat for A
    assert order_of(c) == ["D", "B", "A"] and c.decision.actor == "D"
    act(c, "go_prone")
    assert not any(a.verb == "delay" for a in c.legal_actions())


def test_REI_T16_joining_a_combat() -> None:
    """REI-T16: REI-2.5, REI-1.5 - joiners roll and are appended after the last combatant."""
    rein = [{"round": 2, "combatants": [H("J1", "N", (0, 0)), H("J2", "N", (0, 11))]}]
    c = combat(encounter(*defaults(), reinforcements=rein), 10, 1, 3, 8)
    act(c, "end_turn")
    act(c, "end_turn")
    assert order_of(c) == ["A", "D", "J2", "J1"] and F(c, "J1").init_total == 8 and F(c, "J2").init_total == 13
    assert not kinds(c, "surprise_round_start") and c.dice.remaining == 0


def test_REI_T27_turn_progression_combat_end_round_cap() -> None:
    """REI-T27: REI-2.18, REI-2.19, REI-0.2, REI-0.3 - skipped incapacitated, scene end, draw at the cap."""
    enc = encounter(*defaults(H("E", "N", (9, 9), start={"lethal": 8})),
                    start=at_turn(["A", "D"], A={"effects": [FOCUS]}, D={"lethal": 2, "bashing": 5}))
    c = combat(enc, 8, 8, 8, 1, 1, 1)
    act(c, "end_turn")
    assert c.decision.actor == "D"
    act(c, "end_turn")
    assert c.decision.actor == "A" and c.round == 2
    act(c, "melee_attack", "D", option="unarmed")
    tail = [e.kind for e in c.log if e.kind in ("scene_change", "effect_ended", "combat_end")]
    assert tail[-3:] == ["scene_change", "effect_ended", "combat_end"]
    assert kinds(c, "combat_end")[0].data["winner"] == "P" and c.result == "P"
    c = combat(encounter(*defaults(), options={"round_cap": 1}, start=at_turn(["A", "D"])))
    act(c, "end_turn")
    act(c, "end_turn")
    end = kinds(c, "combat_end")[0].data
    assert c.result == "draw" and end["result"] == "draw" and end["reason"] == "timeout"


def test_REI_T28_leaving_the_battlefield() -> None:
    """REI-T28: REI-0.2, REI-0.3 - leaving is a scene change for the leaver; its side has nobody left."""
    enc = encounter(H("A", "P", (0, 5)), H("D", "N", (5, 5)), start=at_turn(["A", "D"], A={"effects": [FOCUS]}))
    c = combat(enc)
    act(c, "leave_battlefield")
    sc = [e for e in kinds(c, "scene_change") if e.data["reason"] == "left_location"]
    assert F(c, "A").status == "fled" and sc and sc[0].data["combatants"] == ["A"]
    assert any(e.data["effect"] == "Focus" for e in kinds(c, "effect_ended"))
    assert c.result == "N"
    assert Action("end_turn") not in c.legal_actions()
