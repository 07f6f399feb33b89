"""reincarnator details: hidden enemies in the way, grapple chains, bull rush, knockback, pull-back, totals."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.reincarnator.helpers import (
    PISTOL,
    F,
    H,
    act,
    at_turn,
    combat,
    defaults,
    encounter,
    has,
    kinds,
    rolls,
)
from trpg_arena.rules import Action

CORRIDOR = [{"area": [[0, 4], [11, 4]], "terrain": "wall"}, {"area": [[0, 6], [11, 6]], "terrain": "wall"}]
DRIVER = {"attributes": {"str": 3, "dex": 3, "int": 3, "com": 2, "sta": 3},
          "skills": {"martial": 3, "athletics": 2, "lore": 1, "tools": 2, "stealth": 1, "insight": 1},
          "specialties": {"brawl": 2, "swords": 2, "martial_mastery": 1, "ballistics": 1, "pistols": 2,
                          "throwing": 1, "reflex": 1, "sneak": 1, "vehicle_operation": 2, "precision_operation": 1}}
BUGGY = {"use": "buggy", "id": "buggy", "position": [0, 5], "driver": "V"}


def cells_taken(c: Any) -> list[tuple[int, int]]:
    """The cells of the active combatants outside vehicles."""
    return [f.cell for f in c.state.fighters.values() if f.cell is not None and f.in_vehicle is None
            and f.status == "active"]


# --- 1: a stop before a hidden enemy lands where the mover may end ------------------------------------------------
def corridor(*allies: tuple[str, tuple[int, int]], hidden_at: tuple[int, int]) -> Any:
    """A at (0,5) in a one-cell corridor, its allies, hidden enemy S and enemy D at (9,5); A's turn."""
    people = [H("A", "P", (0, 5)), *(H(cid, "P", cell) for cid, cell in allies), H("S", "N", hidden_at),
              H("D", "N", (9, 5))]
    order = ["A", *(cid for cid, _ in allies), "S", "D"]
    return combat(encounter(*people, cells=CORRIDOR, start=at_turn(order, S={"hidden": True})))


@pytest.mark.rule("REI-5.6")
def test_hidden_bump_never_ends_on_an_ally() -> None:
    """Section 5, REI-5.6: stopped by a hidden enemy, the mover falls back to the last cell it may end on."""
    c = corridor(("B", (1, 5)), hidden_at=(2, 5))
    act(c, "move", dest=(3, 5))
    assert F(c, "A").cell == (0, 5) and not F(c, "S").hidden  # B's cell is only passable: A stays
    assert kinds(c, "movement_stopped") and not kinds(c, "movement")
    c = corridor(("B", (2, 5)), hidden_at=(3, 5))
    act(c, "move", dest=(4, 5))
    assert F(c, "A").cell == (1, 5)  # the free cell before the ally's
    assert kinds(c, "movement")[-1].data["path"] == [[0, 5], [1, 5]]
    assert len(set(cells_taken(c))) == len(cells_taken(c))


@pytest.mark.rule("REI-5.6")
def test_bumped_charge_never_ends_on_an_ally() -> None:
    """REI-5.6: a charge stopped by a hidden enemy behind an ally stays off the ally's cell and is cancelled."""
    c = corridor(("B", (1, 5)), hidden_at=(2, 5))
    assert has(c, "charge", "D", (-1, 0), "unarmed")
    act(c, "charge", "D", (-1, 0), "unarmed")
    assert F(c, "A").cell == (0, 5) and F(c, "B").cell == (1, 5) and not F(c, "S").hidden
    assert kinds(c, "attack_cancelled") and not rolls(c)


@pytest.mark.rule("REI-7.6")
@pytest.mark.parametrize(("faces", "a_cell", "d_cell"), [((8, 8, 1, 8, 1, 1), (5, 5), (6, 5)),
                                                         ((8, 8, 8, 1, 1, 1), (2, 5), (3, 5))])
def test_grapple_move_never_ends_on_an_ally(faces: tuple[int, ...], a_cell: tuple[int, int],
                                            d_cell: tuple[int, int]) -> None:
    """REI-7.6, section 5: neither the mover nor the partner it drags ends on an ally's cell (B at 4,5)."""
    held = [{"holder": "A", "held": "D", "state": "hold", "hold_margin": 1}]
    people = [H("A", "P", (5, 5)), H("D", "N", (6, 5)), H("B", "P", (4, 5))]
    c = combat(encounter(*people, cells=CORRIDOR, start={**at_turn(["A", "D", "B"]), "grapples": held}), *faces)
    act(c, "grapple_move", dest=(2, 5))  # margin 1 would end A on B; margin 3 would not, nor D
    assert (F(c, "A").cell, F(c, "D").cell, F(c, "B").cell) == (a_cell, d_cell, (4, 5))


# --- 2: vehicles stop before hidden enemies too --------------------------------------------------------------------
def driving(d_cell: tuple[int, int] = (11, 11), hidden: bool = True, *faces: int) -> Any:
    """V drives the buggy from (0,5); S at (4,5) (hidden unless told), D elsewhere; V's turn."""
    people = [H("V", "P", None, in_vehicle="buggy", **DRIVER), H("S", "N", (4, 5)), H("D", "N", d_cell)]
    return combat(encounter(*people, vehicles=[BUGGY], start=at_turn(["V", "S", "D"], actor="V",
                                                                      S={"hidden": hidden})), *faces)


@pytest.mark.rule("REI-2.15")
@pytest.mark.parametrize("dest", [(6, 5), (4, 5)])
def test_drive_stops_before_a_hidden_enemy(dest: tuple[int, int]) -> None:
    """Section 5: a drive through or onto a hidden enemy's cell stops in the previous cell and reveals it."""
    c = driving()
    act(c, "drive", dest=dest)
    assert c.state.vehicles["buggy"].cell == (3, 5) and F(c, "V").cell == (3, 5)  # type: ignore[attr-defined]
    assert F(c, "S").cell == (4, 5) and not F(c, "S").hidden
    moved = kinds(c, "movement")[-1].data
    assert moved["path"] == [[0, 5], [1, 5], [2, 5], [3, 5]] and moved["cost"] == 3


@pytest.mark.rule("REI-4.13")
def test_crush_stopped_by_a_hidden_enemy_is_cancelled() -> None:
    """REI-4.13 with section 5 and REI-5.6: the crush's movement stops short; its attack is cancelled."""
    c = driving((7, 5))
    act(c, "vehicle_crush", "D", (-1, 0), "normal")
    assert c.state.vehicles["buggy"].cell == (3, 5) and not F(c, "S").hidden  # type: ignore[attr-defined]
    assert kinds(c, "attack_cancelled") and not rolls(c)


# --- 9: the crush's wording and rule ---------------------------------------------------------------------------
@pytest.mark.rule("REI-4.13")
def test_crush_reads_its_speed_and_cites_its_rule() -> None:
    """REI-4.13: the decision names the speed (not a weapon); the crush's movement cites REI-4.13."""
    c = driving((7, 5), False, *[1] * 8)
    act(c, "vehicle_crush", "D", (-1, 0), "normal")
    assert kinds(c, "decision")[-1].text == "V: vehicle crush D (end 6,5) at normal speed"
    assert kinds(c, "movement")[-1].rule == "REI-4.13"


# --- 3: a third party and a grapple chain ----------------------------------------------------------------------
@pytest.mark.rule("REI-7.7")
def test_third_party_in_a_chain_denies_base_defence() -> None:
    """REI-3.6, REI-7.7: A holds D, E holds D; E is not part of A's grapple, so A's base defence is denied."""
    g = [{"holder": "A", "held": "D", "state": "hold", "hold_margin": 1},
         {"holder": "E", "held": "D", "state": "hold", "hold_margin": 1}]
    people = [H("A", "P", (5, 5)), H("D", "N", (6, 5)), H("E", "N", (5, 4), hands=4)]
    c = combat(encounter(*people, start={**at_turn(["E", "A", "D"], actor="E"), "grapples": g}), *[1] * 10)
    act(c, "melee_attack", "A", option="sword")
    assert rolls(c)[0].data["defence_parts"]["base"] == 0 and rolls(c)[0].data["defence"] == 1  # dodge only


# --- 4: shooting into the own grapple ---------------------------------------------------------------------------
def shooter_held(*faces: Any, by_two: bool = False) -> Any:
    """D (with a pistol) is held by A (and by E too with `by_two`); D's turn."""
    g = [{"holder": "A", "held": "D", "state": "hold", "hold_margin": 1}]
    more = []
    if by_two:
        g.append({"holder": "E", "held": "D", "state": "hold", "hold_margin": 1})
        more.append(H("E", "P", (7, 5), hands=4))
    enc = encounter(*defaults(*more, d={"items": [PISTOL]}),
                    start={**at_turn(["D", "A", *(["E"] if by_two else [])], actor="D"), "grapples": g})
    return combat(enc, *faces)


@pytest.mark.rule("REI-7.17")
def test_shot_at_the_own_holder_is_a_plain_shot() -> None:
    """REI-7.17 decision: the shooter is never its own victim; its holder alone is no group to shoot into."""
    c = shooter_held(*[1] * 8)
    shots = {a.option for a in c.legal_actions() if a.verb == "ranged_attack" and a.target == "A"}
    assert shots == {"pistol"}
    act(c, "ranged_attack", "A", option="pistol")
    assert not kinds(c, "random_victim") and "mod_into_grapple" not in rolls(c)[0].data["parts"]


@pytest.mark.rule("REI-7.17")
def test_shot_into_the_own_grapple_counts_only_the_others() -> None:
    """REI-7.17 decision: the group is the others (A and E): careful is -2 x 2, the victim die has their 10 faces."""
    c = shooter_held(*[1] * 4, by_two=True)
    act(c, "ranged_attack", "A", option=("pistol", "careful"))
    assert rolls(c)[0].data["parts"]["mod_into_grapple"] == -4
    c = shooter_held((10, 8), *[1] * 8, by_two=True)  # A owns faces 1-5, E 6-10; D owns none
    act(c, "ranged_attack", "A", option=("pistol", "random"))
    assert kinds(c, "random_victim")[0].data["victim"] == "E"


# --- 5: bull rush with defences pushes by the total -------------------------------------------------------------
@pytest.mark.rule("REI-3.4")
def test_bull_rush_with_defences_pushes_by_the_total() -> None:
    """REI-3.4, REI-7.2: knockback = attacker total t - save total, also with `bull_rush_defenses_apply`."""
    enc = encounter(*defaults(d={"base_defense_es": 1}), options={"bull_rush_defenses_apply": True},
                    start=at_turn(["A", "D"]))
    c = combat(enc, 8, 8, 8, 1, 1, 1, 1, 1, 8, 1, 1, 1, 1, 1)  # 8 dice: t = 3; save 6 dice: 1
    act(c, "bull_rush", "D", option="sword")
    assert rolls(c)[0].data["t"] == 3 and F(c, "D").cell == (8, 5)


# --- 6: knockback does not end hiding ---------------------------------------------------------------------------
@pytest.mark.rule("REI-6.6")
def test_knockback_keeps_hidden() -> None:
    """REI-6.4, REI-6.6, section 5: only voluntary movement ends `hidden`; a knockback is forced."""
    c = combat(encounter(*defaults(), start=at_turn(["A", "D"], D={"hidden": True})),
               8, 9, 10, 1, 1, 1, 1, 1, 1, 1, 1, 2, 8, 1, 1, 1, 1, 1)
    act(c, "bull_rush", "D", option="sword")
    assert F(c, "D").cell == (8, 5) and F(c, "D").hidden


# --- 7: a grapple contact pulls back only a target that stepped out of reach --------------------------------------
def stepping(*faces: int) -> Any:
    """A at (5,5) about to grapple D at (6,5), who has a 2 m reflex step ready."""
    enc = encounter(*defaults(d={"abilities": [{"kind": "reflex_step", "distance_m": 2}]}),
                    start=at_turn(["A", "D"], D={"reflex_available": True, "has_had_turn": True}))
    return combat(enc, *faces)


@pytest.mark.rule("REI-5.7")
def test_grapple_contact_pulls_back_only_out_of_reach() -> None:
    """REI-5.7 decision: a step that stays within reach is not undone; a step out of reach is."""
    contest = (8, 8, 1, 1, 1, 1, 1, 1, 8, 1, 1, 1, 1, 1, 1, 1)  # A 2, D 1: a hold forms
    c = stepping(8, 1, 1, 1, 1, *contest)  # 8 - 3 defence = 5 dice
    act(c, "grapple", "D")
    act(c, "reflex_step", dest=(6, 6))
    act(c, "grapple_resist", option="break")
    assert F(c, "D").cell == (6, 6) and c.state.grapples  # type: ignore[attr-defined]
    c = stepping(8, 1, 1, 1, *contest)  # out of reach: dodge doubled, 8 - 4 = 4 dice
    act(c, "grapple", "D")
    act(c, "reflex_step", dest=(7, 5))
    act(c, "grapple_resist", option="break")
    assert F(c, "D").cell == (6, 5) and c.state.grapples  # type: ignore[attr-defined]


# --- 8: a negative bonus never takes a total below 0 --------------------------------------------------------------
@pytest.mark.rule("REI-3.3")
def test_negative_bonus_es_stops_at_zero() -> None:
    """REI-3.3, REI-3.4: a total is never below 0, so an escape with no success does not beat a cursed 1 - 2."""
    held = [{"holder": "A", "held": "D", "state": "hold", "hold_margin": 1}]
    curse = {"name": "Curse", "duration": "combat", "modifiers": {"bonus_es": -2}}
    enc = encounter(*defaults(), start={**at_turn(["D", "A"], actor="D", A={"effects": [curse]}), "grapples": held})
    c = combat(enc, *[1] * 6, 8, *[1] * 7)
    c.act(Action("escape_grapple", "A", None, "escape"))
    holder = rolls(c)[1].data
    assert (holder["r"], holder["es"], holder["t"]) == (1, -1, 0)
    assert c.state.grapples and kinds(c, "contest_lost")  # type: ignore[attr-defined]
