"""Melee, defense, maneuvers, flanking, throws, switching weapons, pursue and outnumbered (INV-7, INV-8, 9.2)."""

from __future__ import annotations

import pytest

from tests.rules.investigator.helpers import (
    DECLINE,
    DODGE,
    END,
    FIGHT_BACK,
    NO_DEFENSE,
    act,
    at_turn,
    checks,
    encounter,
    end_turns,
    events,
    fighter,
    legal,
    melee,
    move,
    play,
    std,
    step,
    turn_order,
    verbs,
)
from trpg_arena.rules import Action


def _t6(script: list[tuple[int, int]]) -> int:
    c = play(encounter(std("A", "A", (5, 5), dex=60, weapons=["knife"], wielded="knife"),
                       std("B", "B", (6, 5), tough=True)), script)
    at_turn(c, "A")
    c.act(melee("B"))
    assert legal(c) == {DODGE, FIGHT_BACK, NO_DEFENSE}
    c.act(DODGE)
    assert c.dice.remaining == 0
    return int(fighter(c, "B").hp)


@pytest.mark.rule("INV-T6")
def test_INV_T6_melee_attack_and_dodge() -> None:
    """INV-T6 / INV-8.1 / INV-8.3 / INV-0.1: the dodge wins ties; both dice are always drawn."""
    assert _t6([(100, 20), (100, 12)]) == 30
    assert _t6([(100, 20), (100, 25), (4, 3)]) == 27
    assert _t6([(100, 60), (100, 90)]) == 30
    assert _t6([(100, 1), (100, 5), (4, 2)]) == 24


def _t7(script: list[tuple[int, int]]):
    c = play(encounter(std("A", "A", (5, 5), dex=60, tough=True, weapons=["knife"], wielded="knife"),
                       std("B", "B", (6, 5), tough=True, weapons=["club"], wielded="club")), script)
    at_turn(c, "A")
    c.act(melee("B"))
    c.act(FIGHT_BACK)
    assert c.dice.remaining == 0
    return fighter(c, "A").hp, fighter(c, "B").hp


@pytest.mark.rule("INV-T7")
def test_INV_T7_fighting_back() -> None:
    """INV-T7 / INV-8.4: the defender wins only by a higher level; ties go to the attacker."""
    assert _t7([(100, 45), (100, 20), (8, 5)]) == (25, 30)
    assert _t7([(100, 20), (100, 22), (4, 2)]) == (30, 28)
    assert _t7([(100, 70), (100, 80)]) == (30, 30)


def _t14(b: dict, script: list[tuple[int, int]], terrain: dict | None = None):
    c = play(encounter(std("A", "A", (5, 5), dex=60), b, map={"terrain": terrain or {}}), script)
    at_turn(c, "A")
    return c


@pytest.mark.rule("INV-T14")
def test_INV_T14_combat_maneuvers() -> None:
    """INV-T14 / INV-7.1 / INV-7.2 / INV-7.3: Build penalty dice, knock down, push, the Build limit."""
    c = _t14(std("B", "B", (6, 5), str=70, siz=70, max_hp=30), [(100, 20), (10, 5), (100, 40)])
    assert melee("B", man="knock_down") in c.legal_actions()
    c.act(melee("B", man="knock_down"))
    c.act(DODGE)
    assert fighter(c, "B").prone and fighter(c, "B").hp == 30 and c.dice.remaining == 0
    c = _t14(std("B", "B", (6, 5), str=100, siz=100), [(100, 10), (10, 3), (10, 6)])
    c.act(melee("B", man="knock_down"))
    c.act(NO_DEFENSE)
    assert not fighter(c, "B").prone and checks(c)[-1].data["result"] == 60
    c = _t14(std("B", "B", (6, 5), str=120, siz=120), [])
    assert melee("B") in c.legal_actions()
    assert not [a for a in c.legal_actions() if a.verb == "melee" and a.option
                and any(m in a.option for m in ("knock_down", "disarm", "push"))]
    c = _t14(std("B", "B", (6, 5), tough=True), [(100, 30)])
    c.act(melee("B", man="push"))
    c.act(NO_DEFENSE)
    assert fighter(c, "B").pos == (7, 5) and not events(c, "window_open")
    c = _t14(std("B", "B", (6, 5), tough=True), [(100, 30)], terrain={"wall": [[7, 5]]})
    c.act(melee("B", man="push"))
    c.act(NO_DEFENSE)
    assert fighter(c, "B").pos == (6, 5) and events(c, "push_blocked")


def _t17(apos: tuple[int, int], xpos: tuple[int, int], script: list[tuple[int, int]], x_start: dict | None = None,
         **opts: object) -> int:
    b = std("B", "B", (5, 5), tough=True)
    start = {"phase": "cast", "combatants": {"X": x_start}} if x_start else None
    c = play(encounter(b, std("A", "A", apos, dex=60), std("X", "A", xpos), options=dict(opts) or None,
                       start=start), script)
    at_turn(c, "A")
    c.act(melee("B"))
    c.act(NO_DEFENSE)
    assert c.dice.remaining == 0
    return int(fighter(c, "B").hp)


@pytest.mark.rule("INV-T17")
def test_INV_T17_flanking() -> None:
    """INV-T17 / INV-8.6: an able ally on the opposite square gives a bonus die (diagonal_only: diagonals only)."""
    assert _t17((4, 5), (6, 5), [(100, 66), (10, 1), (3, 1)]) == 29
    assert _t17((4, 5), (6, 4), [(100, 66)]) == 30
    assert _t17((4, 4), (6, 6), [(100, 66), (10, 1), (3, 1)]) == 29
    assert _t17((4, 5), (6, 5), [(100, 66)], x_start={"conditions": ["unconscious", "prone"]}) == 30
    assert _t17((4, 5), (6, 5), [(100, 66)], flanking_geometry="diagonal_only") == 30
    assert _t17((4, 4), (6, 6), [(100, 66), (10, 1), (3, 1)], flanking_geometry="diagonal_only") == 29


def _t18(bx: int, extra: list[dict], script: list[tuple[int, int]], moves: bool = False):
    k = std("K", "A", (0, 0), dex=60, str=65, siz=60, weapons=["tknife"], wielded="tknife")
    enc = encounter(k, std("B", "B", (bx, 0), tough=True), *extra)
    enc["weapons"]["tknife"]["count"] = 2
    c = play(enc, script)
    at_turn(c, "K")
    if moves:
        c.act(move(3, 0))
    return c


def _knives(c) -> list:
    return [(g.pos, g.item.count) for g in c.state.ground]


@pytest.mark.rule("INV-T18")
def test_INV_T18_throw() -> None:
    """INV-T18 / INV-8.8 / INV-0.7: 10 squares, dodge only, half DB, obstruction, the unit lands either way."""
    c = _t18(10, [], [(100, 30), (4, 3), (4, 3)])
    assert act("throw", "B") in c.legal_actions()
    c.act(act("throw", "B"))
    assert legal(c) == {DODGE, NO_DEFENSE}
    c.act(NO_DEFENSE)
    k = fighter(c, "K")
    assert fighter(c, "B").hp == 26 and k.weapon(k.wielded).count == 1 and _knives(c) == [((10, 0), 1)]
    c = _t18(11, [], [])
    assert act("throw", "B") not in c.legal_actions()
    x = std("X", "A", (5, 0))
    c = _t18(10, [x], [(100, 8), (4, 1)])
    c.act(act("throw", "B"))
    c.act(NO_DEFENSE)
    assert checks(c)[-1].data["required"] == "Extreme" and fighter(c, "B").hp == 23
    c = _t18(10, [x], [(100, 9)])
    c.act(act("throw", "B"))
    c.act(NO_DEFENSE)
    assert fighter(c, "B").hp == 30 and _knives(c) == [((10, 0), 1)]


@pytest.mark.rule("INV-T19")
def test_INV_T19_moving_throw() -> None:
    """INV-T19 / INV-8.9 / INV-0.3: a throw after a long move is one step harder; obstruction makes it Extreme."""
    c = _t18(10, [], [(100, 30)], moves=True)
    c.act(act("throw", "B"))
    c.act(NO_DEFENSE)
    assert fighter(c, "B").hp == 30 and _knives(c) == [((10, 0), 1)]
    c = _t18(10, [], [(100, 15), (4, 2), (4, 2)], moves=True)
    c.act(act("throw", "B"))
    c.act(NO_DEFENSE)
    assert fighter(c, "B").hp == 27
    c = _t18(10, [std("X", "A", (5, 0))], [(100, 15)], moves=True)
    c.act(act("throw", "B"))
    c.act(NO_DEFENSE)
    assert checks(c)[-1].data["required"] == "Extreme" and fighter(c, "B").hp == 30


@pytest.mark.rule("INV-T32")
def test_INV_T32_switching_weapons() -> None:
    """INV-T32 / INV-4.2: switching uses the prepare slot; aim needs a ranged weapon."""
    c = play(encounter(std("A", "A", (5, 5), dex=60, weapons=["knife"]), std("B", "B", (6, 5), tough=True)),
             [(100, 30), (4, 4)])
    at_turn(c, "A")
    assert act("switch_weapon", option="A.knife") in c.legal_actions() and "prepare" not in verbs(c)
    c.act(act("switch_weapon", option="A.knife"))
    assert "switch_weapon" not in verbs(c)
    c.act(melee("B"))
    c.act(NO_DEFENSE)
    assert fighter(c, "B").hp == 26


@pytest.mark.rule("INV-T45")
def test_INV_T45_pursuit_as_a_turn_action() -> None:
    """INV-T45 / INV-9.2: pursue costs the target its coming turn; no pursuit windows exist."""
    c = play(encounter(std("B", "B", (6, 5), dex=60), std("A", "A", (5, 5), dex=40),
                       options={"pursuit_mode": "turn_action"}), [(100, 25), (3, 2)])
    at_turn(c, "B")
    assert act("pursue", "A") in c.legal_actions()
    c.act(act("pursue", "A"))
    c.act(NO_DEFENSE)
    assert fighter(c, "A").hp == 8
    c.act(END)
    at_turn(c, "B")
    assert c.round == 2 and turn_order(c) == ["B", "B"]
    c.act(END)
    at_turn(c, "A")
    c.act(step(4, 5))
    assert not events(c, "window_open")


@pytest.mark.rule("INV-8.5")
def test_INV_8_5_a_pursuit_after_a_long_move_is_no_moving_attack() -> None:
    """INV-8.5: pursuit attacks never count as moving; `pursue` after a long move needs a Regular success."""
    c = play(encounter(std("B", "B", (8, 5), dex=60), std("A", "A", (5, 5), dex=40),
                       options={"pursuit_mode": "turn_action"}), [(100, 40), (3, 2)])  # Brawl 50: 40 is Regular
    at_turn(c, "B")
    c.act(move(6, 5))  # two squares: a long move, ending beside A
    assert fighter(c, "B").moved_long
    c.act(DECLINE)  # A's opportunity window as B enters its nine-grid
    c.act(act("pursue", "A"))
    c.act(NO_DEFENSE)
    (check,) = checks(c)
    assert "moved far" not in check.text and "Regular" in check.text and fighter(c, "A").hp == 8


@pytest.mark.rule("INV-T46")
def test_INV_T46_outnumbered() -> None:
    """INV-T46 / INV-8.7: after the target has defended once, further melee attacks get a bonus die."""
    c = play(encounter(std("B", "B", (5, 5), tough=True), std("A1", "A", (4, 5), dex=60),
                       std("A2", "A", (5, 4), dex=55), options={"outnumbered": True}),
             [(100, 70), (100, 50), (100, 70), (10, 2), (3, 3)])
    at_turn(c, "A1")
    c.act(melee("B"))
    c.act(DODGE)
    c.act(END)
    at_turn(c, "A2")
    c.act(melee("B"))
    c.act(NO_DEFENSE)
    assert fighter(c, "B").hp == 27 and c.dice.remaining == 0


def test_fight_back_option_off() -> None:
    """INV-8.4 with fight_back = false: only dodge and no_defense."""
    c = play(encounter(std("A", "A", (5, 5), dex=60), std("B", "B", (6, 5)), options={"fight_back": False}))
    at_turn(c, "A")
    c.act(melee("B"))
    assert legal(c) == {DODGE, NO_DEFENSE}


def test_dodge_thrown_off_gives_no_defense_decision() -> None:
    """INV-8.8 with dodge_thrown = false: a throw opens no defense decision."""
    k = std("K", "A", (0, 0), dex=60, weapons=["tknife"], wielded="tknife")
    c = play(encounter(k, std("B", "B", (5, 0), tough=True), options={"dodge_thrown": False}), [(100, 90)])
    at_turn(c, "K")
    c.act(act("throw", "B"))
    assert fighter(c, "K").wielded == "unarmed" and c.dice.remaining == 0
    end_turns(c, limit=1)
    assert Action("throw", "B") not in c.legal_actions()
