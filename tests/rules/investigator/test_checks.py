"""Resolution core: success levels, bonus/penalty dice, derived characteristics, damage (INV-0.x)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.rules.investigator.helpers import NO_DEFENSE, at_turn, encounter, fighter, melee, play, std
from trpg_arena.rules import ScriptedDice
from trpg_arena.rules.investigator.rolls import (
    CRITICAL,
    EXTREME,
    FAILURE,
    FUMBLE,
    HARD,
    REGULAR,
    derived,
    dice_reasons,
    level_of,
    parse_expr,
    roll_d100,
)


@pytest.mark.rule("INV-T1")
@pytest.mark.parametrize("v,r,lvl", [
    (50, 1, CRITICAL), (50, 10, EXTREME), (50, 11, HARD), (50, 25, HARD), (50, 26, REGULAR), (50, 50, REGULAR),
    (50, 51, FAILURE), (50, 99, FAILURE), (50, 100, FUMBLE), (40, 95, FAILURE), (40, 96, FUMBLE), (30, 6, EXTREME),
    (30, 15, HARD), (0, 1, CRITICAL), (0, 2, FAILURE), (120, 99, REGULAR), (120, 100, FUMBLE)])
def test_INV_T1_success_levels(v: int, r: int, lvl: int) -> None:
    """INV-T1 / INV-0.2: level of result r against value v."""
    assert level_of(v, r) == lvl


@pytest.mark.rule("INV-T2")
@pytest.mark.parametrize("bonus,penalty,script,r", [
    (1, 0, [(100, 73), (10, 3)], 33),
    (0, 1, [(100, 33), (10, 8)], 83),
    (1, 0, [(100, 100), (10, 5)], 50),
    (1, 0, [(100, 40), (10, 10)], 40),
    (0, 1, [(100, 50), (10, 10)], 100),
    (3, 0, [(100, 88), (10, 9), (10, 4)], 48),
    (1, 1, [(100, 57)], 57),
    (0, 2, [(100, 41), (10, 2), (10, 7)], 71),
])
def test_INV_T2_bonus_and_penalty_dice(bonus: int, penalty: int, script: list[tuple[int, int]], r: int) -> None:
    """INV-T2 / INV-0.4 / INV-0.1: tens dice, the cap of two, net zero draws one die."""
    dice = ScriptedDice(script)
    got, drawn = roll_d100(SimpleNamespace(dice=dice), bonus, penalty)  # type: ignore[arg-type]
    assert got == r
    assert dice.remaining == 0
    assert len(drawn) == len(script)


@pytest.mark.rule("INV-T3")
@pytest.mark.parametrize("chars,expect", [
    ((65, 65, 60, 60, 50), (12, 10, 8, "1D4", 1)),
    ((40, 50, 70, 45, 55), (12, 11, 7, "0", 0)),
    ((80, 65, 65, 70, 65), (13, 13, 9, "1D4", 1)),
    ((30, 40, 30, 50, 40), (7, 8, 8, "-2", -2)),
    ((200, 100, 200, 60, 50), (30, 10, 8, "4D6", 5)),
])
def test_INV_T3_derived_characteristics(chars: tuple[int, ...], expect: tuple[object, ...]) -> None:
    """INV-T3 / INV-0.6: HP, MP, MOV, DB and Build."""
    hp, mp, mov, db, build = derived(*chars)
    assert (hp, mp, mov, str(db), build) == expect


def test_INV_T3_default_dodge() -> None:
    """INV-0.6: default Dodge is half DEX."""
    enc = encounter(std("A", "A", (0, 0), dex=45, skills={}))
    del enc["combatants"][0]["skills"]["Dodge"]
    c = play(enc)
    from trpg_arena.rules.investigator.compiled import compile_setup

    assert compile_setup(c.encounter).prof("A").skill("Dodge") == 22  # type: ignore[arg-type]


def test_dice_expressions() -> None:
    """INV-0.1: expressions term (+|- term)* and their maxima."""
    e = parse_expr("2D6+4")
    assert e.maximum == 16 and str(e) == "2D6+4"
    assert parse_expr("1D4+1D6-1").maximum == 9


def _t8(wield: str, script: list[tuple[int, int]], **opts: object) -> int:
    a = std("A", "A", (5, 5), dex=60, str=65, siz=60, weapons=[wield], wielded=wield)
    b = std("B", "B", (6, 5), dex=39, tough=True, armour=1)
    c = play(encounter(a, b, options=dict(opts) or None), script)
    at_turn(c, "A")
    c.act(melee("B"))
    c.act(NO_DEFENSE)
    assert c.dice.remaining == 0  # type: ignore[attr-defined]
    return int(fighter(c, "B").hp)


@pytest.mark.rule("INV-T8")
def test_INV_T8_damage_bonus_extreme_damage_armour() -> None:
    """INV-T8 / INV-0.7 / INV-0.8: DB dice after weapon dice, extreme maxima, impale roll, armour."""
    assert _t8("club", [(100, 40), (8, 6), (4, 3)]) == 22
    assert _t8("club", [(100, 9)]) == 19
    assert _t8("knife", [(100, 9), (4, 2)]) == 21
    assert _t8("knife", [(100, 9), (4, 2), (4, 1)], extreme_damage=False) == 28


@pytest.mark.rule("INV-T2")
def test_dice_reasons_write_a_reason_giving_several_dice_once() -> None:
    """INV-0.4: each entry is one die; the Build difference can give two penalty dice."""
    assert dice_reasons("bonus", ["flanking"]) == "1 bonus die: flanking"
    assert (dice_reasons("penalty", ["target's bigger Build", "target's bigger Build", "prone attacker"])
            == "3 penalty dice: target's bigger Build x2, prone attacker")
