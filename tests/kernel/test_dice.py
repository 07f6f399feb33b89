"""Dice: seeded streams, scripted faces and loud scripted failures."""

from __future__ import annotations

import json

import numpy as np
import pytest

from trpg_arena.rules import Dice, DiceExpr, DiceScriptError, ScriptedDice


def test_scripted_dice_force_faces_in_order() -> None:
    d = ScriptedDice([(6, 4), (10, 8), (100, 37)])
    assert [d.roll(6), d.roll(10), d.roll(100)] == [4, 8, 37]
    assert d.remaining == 0


def test_scripted_dice_reject_wrong_die_size() -> None:
    d = ScriptedDice.d(6, 3)
    with pytest.raises(DiceScriptError, match="d6 but the engine rolled a d10"):
        d.roll(10)


def test_scripted_dice_run_out_loudly() -> None:
    d = ScriptedDice.d(6, 3)
    d.roll(6)
    with pytest.raises(DiceScriptError, match="ran out"):
        d.roll(6)


@pytest.mark.parametrize("pair", [(6, 0), (6, 7), (1, 1)])
def test_scripted_dice_reject_impossible_faces(pair: tuple[int, int]) -> None:
    with pytest.raises(DiceScriptError):
        ScriptedDice([pair])


def test_seeded_dice_repeat_and_restore_through_json() -> None:
    a, b = Dice(7), Dice(7)
    assert a.roll_many(20, 6) == b.roll_many(20, 6)
    state = json.loads(json.dumps(a.state()))
    c = Dice.from_state(state)
    assert c.roll_many(50, 10) == a.roll_many(50, 10)
    assert all(1 <= f <= 100 for f in Dice(1).roll_many(200, 100))


def test_scripted_state_round_trips() -> None:
    d = ScriptedDice.d(6, 1, 2, 3)
    d.roll(6)
    e = Dice.from_state(json.loads(json.dumps(d.state())))
    assert isinstance(e, ScriptedDice) and e.roll(6) == 2


def test_dice_never_touch_the_global_rng() -> None:
    np.random.seed(0)  # noqa: NPY002 - checking the global RNG is left alone
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    Dice(3).roll_many(100, 6)
    assert (np.random.get_state()[1] == before).all()  # noqa: NPY002


@pytest.mark.parametrize(("text", "expr"), [("2D6", DiceExpr(2, 6, 0)), ("1d100", DiceExpr(1, 100, 0)),
                                            ("3D10+2", DiceExpr(3, 10, 2)), ("D6-1", DiceExpr(1, 6, -1)),
                                            ("4", DiceExpr(0, 6, 4))])
def test_dice_notation_parses(text: str, expr: DiceExpr) -> None:
    assert DiceExpr.parse(text) == expr


def test_bad_dice_notation_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="not dice notation"):
        DiceExpr.parse("two dice")
