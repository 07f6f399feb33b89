"""A long move stopped on a held square, first aid with `plus_1`, GM edits at 0 HP and mid-move, the words
and rule ids of defended attacks, and the stat block's bounds (INV-4.5, INV-11.5, INV-11.7, INV-8.3, INV-8.4,
spec 4.1).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.investigator.helpers import (
    DECLINE,
    DODGE,
    END,
    FIGHT_BACK,
    NO_DEFENSE,
    act,
    at_turn,
    d100,
    encounter,
    events,
    fighter,
    melee,
    move,
    play,
    std,
)
from trpg_arena.rules import Combat, EncounterError, ScriptedDice
from trpg_arena.rules.core.edits import EditError, edit_combatant, fields_of

# A walks east along a corridor (row 5) through ally X's square (3,5); B, beside the corridor at (4,6), has
# already acted, so its opportunity attack is the only reaction, and it comes as A enters (3,5)
CORRIDOR = {"width": 12, "height": 12,
            "terrain": {"wall": [[x, 4] for x in range(9)] + [[x, 6] for x in range(9) if x != 4]}}


def _corridor(b_hp: int | None = None) -> dict[str, Any]:
    b_start: dict[str, Any] = {"standard_used": 1} if b_hp is None else {"standard_used": 1, "hp": b_hp}
    return encounter(std("A", "A", (0, 5), dex=60, tough=True), std("X", "A", (3, 5)), std("B", "B", (4, 6)),
                     map=CORRIDOR, start={"combatants": {"B": b_start}})


def _shared_squares(c: Combat) -> list[Any]:
    """Squares held by two combatants that are neither dead nor fled (section 5 allows one)."""
    seen = [f.pos for f in c.state.fighters if f.pos is not None and f.present]  # type: ignore[attr-defined]
    return [sq for sq in set(seen) if seen.count(sq) > 1]


def _opportunity_on_x_square(c: Combat) -> None:
    at_turn(c, "A")
    c.act(move(6, 5))
    assert (c.decision.actor, fighter(c, "A").pos) == ("B", (3, 5))  # type: ignore[union-attr]
    c.act(act("opportunity_attack", "A"))


@pytest.mark.rule("INV-4.5")
def test_INV_4_5_a_mover_stopped_on_an_ally_square_stops_on_the_square_before() -> None:
    """INV-4.5 / section 5: the hit that ends A's move on X's square leaves A on the last square it may end on."""
    c = play(_corridor(), d100(30) + [(3, 2)])  # B's Brawl 30: a hit; 1D3 = 2, halved
    _opportunity_on_x_square(c)
    c.act(NO_DEFENSE)
    assert events(c, "action_cancelled")
    assert (fighter(c, "A").pos, fighter(c, "X").pos) == ((2, 5), (3, 5))
    assert events(c, "move_stopped")[-1].data["dest"] == (2, 5)
    assert _shared_squares(c) == []
    assert fighter(c, "A").move_spent == 3  # the cost A spent walking still counts


@pytest.mark.rule("INV-4.5")
def test_INV_4_5_a_combat_ending_mid_move_leaves_nobody_on_a_shared_square() -> None:
    """INV-4.5 / INV-12.2: A fights back and takes the last hostile out while standing on X's square."""
    c = play(_corridor(b_hp=1), d100(80, 10, 99))  # B misses; A fights back Extreme: max 1D3, B is dying
    _opportunity_on_x_square(c)
    c.act(FIGHT_BACK)
    assert (c.over, c.result) == (True, "A")
    assert fighter(c, "A").pos == (2, 5)
    assert _shared_squares(c) == []


@pytest.mark.rule("INV-11.7")
def test_INV_11_7_plus_1_leaves_a_conscious_patient_below_1_hp_unconscious() -> None:
    """INV-11.7 `plus_1`: hp −2 → −1 ends dying, and the patient, awake while dying, is now out but stable."""
    enc = encounter(std("A", "A", (5, 5), dex=60), std("T", "A", (6, 5), dex=50), std("Z", "B", (11, 11), dex=1),
                    options={"first_aid_dying_hp": "plus_1"},
                    start={"round": 2, "combatants": {"T": {"hp": -2, "dying_since": 1, "conditions": [
                        "dying", "prone", "untreated_wound", "major_wound"]}}})
    c = play(enc, d100(20))  # A's First Aid 20: a success
    at_turn(c, "A")
    c.act(act("first_aid", "T"))
    t = fighter(c, "T")
    assert (t.hp, t.dying, t.unconscious, t.able) == (-1, False, True, False)
    c.act(END)
    assert c.decision.actor == "Z"  # type: ignore[union-attr]  # T, next by DEX, takes no turn


@pytest.mark.rule("INV-11.5")
@pytest.mark.parametrize(("wound", "dying", "unconscious"), [(True, True, False), (False, False, True)])
def test_INV_11_5_gm_hp_zero_follows_the_major_wound(wound: bool, dying: bool, unconscious: bool) -> None:
    """INV-11.5 by GM edit (no roll): 0 HP with a major wound is dying, without one a prone knock-out."""
    conditions = ["major_wound"] if wound else []
    c = play(encounter(std("A", "A", (0, 0), dex=60), std("T", "B", (5, 5)), std("U", "B", (8, 8)),
                       start={"round": 2, "combatants": {"T": {"hp": 4, "conditions": conditions}}}))
    at_turn(c, "A")
    edit_combatant(c, "T", {"hp": 0})
    t = fighter(c, "T")
    assert (t.hp, t.prone, t.dying, t.unconscious, t.able) == (0, True, dying, unconscious, False)
    assert t.dying_since == (2 if dying else None)


def test_gm_cannot_move_a_combatant_whose_move_is_in_progress() -> None:
    """A square edit of the mover while its move's window is open is refused; its move goes on as planned."""
    c = play(encounter(std("A", "A", (5, 5), dex=60), std("B", "B", (6, 5))))
    at_turn(c, "A")
    c.act(move(1, 5))
    logged = len(c.log)
    with pytest.raises(EditError, match="A cannot be moved now: its move is being resolved") as err:
        edit_combatant(c, "A", {"pos": [10, 10]})
    assert err.value.where == "changes.pos"
    assert (fighter(c, "A").pos, len(c.log)) == ((5, 5), logged)
    c.act(DECLINE)
    assert [e.data["src"] for e in events(c, "step")][0] == (5, 5)
    assert fighter(c, "A").pos == (1, 5)
    edit_combatant(c, "A", {"pos": [10, 10]})  # once the move is over, the edit is made
    assert fighter(c, "A").pos == (10, 10)


@pytest.mark.rule("INV-8.3")
def test_INV_8_3_a_dodged_throw_is_logged_as_dodged() -> None:
    """INV-8.8 / INV-8.3: a Regular throw met by an Extreme dodge is "dodged", as for a melee attack."""
    c = play(encounter(std("K", "A", (0, 0), dex=60, weapons=["tknife"], wielded="tknife"),
                       std("B", "B", (5, 0), tough=True)), d100(30, 5))
    at_turn(c, "K")
    c.act(act("throw", "B"))
    c.act(DODGE)
    result = events(c, "attack_result")[-1]
    assert (result.data["result"], result.rule, result.text) == ("dodged", "INV-8.3", "K's throw at B: dodged")


@pytest.mark.rule("INV-8.4")
def test_INV_8_4_a_fought_back_attack_cites_fighting_back() -> None:
    """INV-8.4: the attack_result of a melee attack that was fought back cites INV-8.4."""
    c = play(encounter(std("A", "A", (5, 5), dex=60, tough=True), std("B", "B", (6, 5), tough=True)),
             d100(45, 20) + [(3, 2)])  # A's Brawl 45 Regular, B's 20 Hard: B wins, 1D3 = 2
    at_turn(c, "A")
    c.act(melee("B"))
    c.act(FIGHT_BACK)
    result = events(c, "attack_result")[-1]
    assert (result.data["result"], result.rule) == ("fought back", "INV-8.4")


@pytest.mark.parametrize(("field", "value", "ok"), [("dex", 200, True), ("dex", 201, False), ("pow", 400, False),
                                                    ("mov", 20, True), ("mov", 21, False)])
def test_stat_block_bounds(field: str, value: int, ok: bool) -> None:
    """Spec 4.1: characteristics run 1–200; `mov` is capped at 20 squares by the engine."""
    a = std("A", "A", (0, 0), dex=60)
    a[field] = value
    enc = encounter(a, std("B", "B", (5, 5)))
    if ok:
        Combat(enc, seed=1)
        return
    with pytest.raises(EncounterError) as err:
        Combat(enc, seed=1)
    assert err.value.path == f"combatants[0] (id 'A').{field}"


def test_INV_11_9_an_unconscious_combatants_square_is_no_place_for_a_gm_move() -> None:
    """X was offered and put on T's square (T unconscious there): two combatants on one square."""
    down = {"combatants": {"T": {"hp": 0, "conditions": ["unconscious", "prone"]}}}
    enc = encounter(std("A", "A", (0, 0), dex=60), std("X", "A", (3, 3)), std("T", "B", (5, 5)),
                    std("U", "B", (8, 8)), start=down)
    c = Combat(enc, dice=ScriptedDice([]))
    at_turn(c, "A")
    (pos,) = [f for f in fields_of(c, "X") if f.name == "pos"]
    assert "5,5" not in pos.choices and "4,4" in pos.choices
    with pytest.raises(EditError):
        edit_combatant(c, "X", {"pos": [5, 5]})
