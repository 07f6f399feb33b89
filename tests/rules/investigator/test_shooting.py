"""Shooting: range bands, the line, point-blank, malfunction, aim, dive for cover, several shots (INV-6, 0.9, 0.10)."""

from __future__ import annotations

import pytest

from tests.rules.investigator.helpers import (
    DECLINE,
    DODGE,
    END,
    NO_DEFENSE,
    WAIT,
    act,
    at_turn,
    checks,
    encounter,
    events,
    fighter,
    legal,
    play,
    shoot,
    std,
    verbs,
)
from trpg_arena.rules import Action


def _gun(a: str, pos: tuple[int, int], side: str = "A", dex: int = 60, **kw: object) -> dict:
    return std(a, side, pos, dex=dex, weapons=["revolver"], wielded="revolver", **kw)


def _weapon(c, cid: str):  # the wielded weapon instance
    f = fighter(c, cid)
    return f.weapon(f.wielded)


@pytest.mark.rule("INV-T9")
def test_INV_T9_shooting() -> None:
    """INV-T9 / INV-6.1 / INV-6.3 / INV-6.5 / INV-0.8: shoot-phase offer, no defense, armour, ammunition."""
    c = play(encounter(_gun("A", (0, 0)), std("B", "B", (3, 0), tough=True, armour=2)), [(100, 40), (10, 7)])
    d = c.decision
    assert d is not None and d.step == "phase_offer" and d.actor == "A"
    assert shoot("B") in c.legal_actions() and WAIT in c.legal_actions()
    assert not {"move", "step", "prepare", "end_turn"} & verbs(c)
    c.act(shoot("B"))
    assert fighter(c, "B").hp == 25 and _weapon(c, "A").loaded == 5
    assert c.decision is not None and c.decision.actor == "A" and c.decision.step == "turn_action"
    leg = legal(c)
    assert "shoot" not in verbs(c)
    assert {act("prepare", option="aim"), act("switch_weapon", option="unarmed"), END} <= leg
    assert {"step", "move"} <= verbs(c)


def _t10(bx: int, script: list[tuple[int, int]], **opts: object):
    enc = encounter(_gun("A", (0, 0)), std("B", "B", (bx, 0), tough=True), options=dict(opts) or None)
    enc["weapons"]["revolver"]["base_range"] = 2
    return play(enc, script)


@pytest.mark.rule("INV-T10")
def test_INV_T10_range_bands() -> None:
    """INV-T10 / INV-6.2: Regular to base range, Hard to twice, Extreme to four times, then out of range."""
    for bx, req in ((2, "Regular"), (3, "Hard"), (4, "Hard"), (5, "Extreme"), (8, "Extreme")):
        c = _t10(bx, [(100, 100)])  # a jam: the check is recorded and nothing else is drawn
        c.act(shoot("B"))
        assert checks(c)[-1].data["required"] == req
    c = _t10(9, [])
    at_turn(c, "A")
    assert shoot("B") not in c.legal_actions()
    c = _t10(3, [(100, 30)])
    c.act(shoot("B"))
    assert fighter(c, "B").hp == 30 and _weapon(c, "A").loaded == 5
    c = _t10(3, [(100, 25), (10, 3)])
    c.act(shoot("B"))
    assert fighter(c, "B").hp == 27
    c = _t10(3, [], range_bands=False)
    at_turn(c, "A")
    assert shoot("B") not in c.legal_actions()
    c = _t10(2, [(100, 100)], range_bands=False)
    c.act(shoot("B"))
    assert checks(c)[-1].data["required"] == "Regular"


def _t11(extra: list[dict], script: list[tuple[int, int]], bpos: tuple[int, int] = (3, 0), terrain: dict | None = None,
         start: dict | None = None):
    return play(encounter(_gun("A", (0, 0)), std("B", "B", bpos, tough=True), *extra,
                          map={"terrain": terrain or {}}, start=start), script)


@pytest.mark.rule("INV-T11")
def test_INV_T11_obstruction_and_the_line() -> None:
    """INV-T11 / INV-6.6 / INV-1.4: bodies and obstacles obstruct (Extreme), walls block, prone bodies do not."""
    x = std("X", "A", (1, 0))
    c = _t11([x], [(100, 11)])
    c.act(shoot("B"))
    assert checks(c)[-1].data["required"] == "Extreme" and fighter(c, "B").hp == 30
    c = _t11([x], [(100, 10), (10, 4)])
    c.act(shoot("B"))
    assert fighter(c, "B").hp == 16
    c = _t11([], [(100, 100)], terrain={"obstacle": [[2, 0]]})
    c.act(shoot("B"))
    assert checks(c)[-1].data["required"] == "Extreme"
    c = _t11([], [], terrain={"wall": [[2, 0]]})
    at_turn(c, "A")
    assert shoot("B") not in c.legal_actions()
    c = _t11([x], [(100, 100)], start={"phase": "cast", "combatants": {"X": {"conditions": ["prone"]}}})
    c.act(shoot("B"))
    assert checks(c)[-1].data["required"] == "Regular"
    c = _t11([], [(100, 100)], bpos=(2, 2), terrain={"obstacle": [[1, 0], [0, 1]]})
    c.act(shoot("B"))
    assert checks(c)[-1].data["required"] == "Regular"


def _t12(script: list[tuple[int, int]]):
    c = play(encounter(_gun("A", (5, 5)), std("B", "B", (6, 5), dex=40, tough=True)), script)
    c.act(shoot("B"))
    d = c.decision
    assert d is not None and d.actor == "B" and d.step == "reaction"
    assert legal(c) == {act("opportunity_attack", "A"), DECLINE}
    return c


@pytest.mark.rule("INV-T12")
def test_INV_T12_point_blank_shot_provoking_an_opportunity_attack() -> None:
    """INV-T12 / INV-6.7 / INV-10.1 / INV-10.3 / INV-10.5: bonus die at point blank; a hit cancels the shot."""
    c = _t12([(100, 60), (10, 3), (10, 4)])
    c.act(DECLINE)
    assert fighter(c, "B").hp == 26 and _weapon(c, "A").loaded == 5
    c = _t12([(100, 20), (100, 50), (3, 3)])
    c.act(act("opportunity_attack", "A"))
    assert legal(c) == {DODGE, Action("fight_back"), NO_DEFENSE}
    c.act(DODGE)
    a = fighter(c, "A")
    assert a.hp == 9 and _weapon(c, "A").loaded == 6
    assert events(c, "action_cancelled")
    assert a.move_used and a.prepare_used and a.opportunity_used
    assert fighter(c, "B").opportunity_used
    assert c.decision is not None and c.decision.actor == "B"
    assert c.dice.remaining == 0


@pytest.mark.rule("INV-T14")
def test_INV_T14_shooting_maneuver_disarm() -> None:
    """INV-T14 (d) / INV-7.1 / INV-7.2: a disarming shot at point blank drops the weapon on the target's square."""
    b = std("B", "B", (6, 5), tough=True, weapons=["knife"], wielded="knife")
    c = play(encounter(_gun("A", (5, 5)), b), [(100, 70), (10, 1)])
    c.act(shoot("B", man="disarm"))
    c.act(DECLINE)
    bf = fighter(c, "B")
    assert bf.wielded == "unarmed" and bf.hp == 30 and _weapon(c, "A").loaded == 5
    assert [(g.pos, g.item.id) for g in c.state.ground] == [((6, 5), "B.knife")]


def _t20(script: list[tuple[int, int]], loaded: int = 6, ammo: dict | None = None, skill: int = 50, **opts: object):
    a = _gun("A", (0, 0), ammo=ammo or {}, skills={"Firearms (Handgun)": skill})
    enc = encounter(a, std("B", "B", (3, 0), tough=True), options=dict(opts) or None)
    enc["weapons"]["revolver"]["loaded"] = loaded
    return play(enc, script)


@pytest.mark.rule("INV-T20")
def test_INV_T20_reload_malfunction_fumble() -> None:
    """INV-T20 / INV-8.10 / INV-0.9 / INV-0.10: reload refills or clears a jam; a jam spends no round."""
    c = _t20([], loaded=0, ammo={".38": 1})
    at_turn(c, "A")
    assert "shoot" not in verbs(c) and Action("reload") in c.legal_actions()
    c.act(Action("reload"))
    assert _weapon(c, "A").loaded == 6 and fighter(c, "A").ammo[".38"] == 0
    c = _t20([])
    at_turn(c, "A")
    assert Action("reload") not in c.legal_actions()
    c = _t20([(100, 100)])
    c.act(shoot("B"))
    w = _weapon(c, "A")
    assert w.jammed and w.loaded == 6 and fighter(c, "B").hp == 30 and events(c, "weapon_jammed")
    c.act(END)
    at_turn(c, "A")
    assert c.round == 2 and "shoot" not in verbs(c) and Action("reload") in c.legal_actions()
    c.act(Action("reload"))
    assert not _weapon(c, "A").jammed and _weapon(c, "A").loaded == 6
    c = _t20([(100, 97)], skill=40)
    c.act(shoot("B"))
    assert checks(c)[-1].data["level"] == "Fumble" and _weapon(c, "A").loaded == 5 and "move" in verbs(c)
    c = _t20([(100, 97)], skill=40, fumble_policy="lose_turn")
    c.act(shoot("B"))
    assert c.decision is not None and c.decision.actor != "A"


@pytest.mark.rule("INV-T31")
def test_INV_T31_aim() -> None:
    """INV-T31 / INV-4.1 / INV-4.3: a prepared aim gives one bonus die to the next shot; a failure gives none."""
    c = play(encounter(_gun("A", (0, 0)), std("B", "B", (3, 0), tough=True)),
             [(100, 30), (100, 64), (10, 2), (10, 6)])
    c.act(WAIT)
    at_turn(c, "A")
    c.act(act("prepare", option="aim"))
    c.act(shoot("B"))
    assert fighter(c, "B").hp == 24 and c.dice.remaining == 0
    c = play(encounter(_gun("A", (0, 0)), std("B", "B", (3, 0), tough=True)), [(100, 77), (100, 64)])
    c.act(WAIT)
    at_turn(c, "A")
    c.act(act("prepare", option="aim"))
    assert "prepare" not in verbs(c)
    c.act(shoot("B"))
    assert fighter(c, "B").hp == 30 and c.dice.remaining == 0


@pytest.mark.rule("INV-T49")
def test_INV_T49_dive_for_cover() -> None:
    """INV-T49 / INV-6.3: the dodge is drawn first, a success is a penalty die, a standard action is forfeited."""
    c = play(encounter(_gun("A", (0, 0)), std("B", "B", (3, 0), dex=40, tough=True),
                       options={"dive_for_cover": True}), [(100, 10), (100, 20), (10, 7)])
    c.act(shoot("B"))
    assert legal(c) == {Action("dive_for_cover"), NO_DEFENSE}
    c.act(Action("dive_for_cover"))
    assert fighter(c, "B").hp == 30 and _weapon(c, "A").loaded == 5
    c.act(END)
    at_turn(c, "B")
    v = verbs(c)
    assert "move" in v and not {"melee", "shoot", "throw", "first_aid"} & v
    assert fighter(c, "B").standard_used == 1


@pytest.mark.rule("INV-T50")
def test_INV_T50_multiple_shots() -> None:
    """INV-T50 / INV-6.8: every shot of a multi-shot action takes a penalty die and is resolved separately."""
    enc = encounter(_gun("A", (0, 0)), std("B", "B", (3, 0), tough=True), options={"multiple_shots": True})
    enc["weapons"]["revolver"]["shots_per_action"] = 3
    c = play(enc, [(100, 20), (10, 3), (10, 5), (100, 45), (10, 9)])
    c.act(shoot("B", shots=2))
    assert fighter(c, "B").hp == 25 and _weapon(c, "A").loaded == 4 and c.dice.remaining == 0


@pytest.mark.rule("INV-T2")
def test_a_check_names_where_each_bonus_and_penalty_die_comes_from() -> None:
    """INV-0.4: the check's sentence names every source of a die; its data still only counts them."""
    c = play(encounter(_gun("A", (0, 0)), std("B", "B", (1, 0), dex=40, tough=True),
                       options={"dive_for_cover": True}), [(100, 10), (100, 20), (10, 7)])
    c.act(shoot("B"))
    c.act(DECLINE)  # no opportunity attack on the point-blank shot
    c.act(Action("dive_for_cover"))
    dodge, shot = checks(c)
    assert dodge.text == "B rolls Dodge 30: 10 -> Hard"
    assert shot.text == ("A rolls Firearms (Handgun) 50: 20 (1 bonus die: point-blank range; "
                         "1 penalty die: target dived for cover; dice [20]) -> Hard")
    assert (shot.data["bonus"], shot.data["penalty"], shot.data["dice"]) == (1, 1, [20])
