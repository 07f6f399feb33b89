"""Aim, all-out, charge, reactive steps, full defence, parry, cover, prone, crouch, stealth, terrain (T38-T49)."""

from __future__ import annotations

import pytest

from tests.rules.reincarnator.helpers import (
    PISTOL,
    SWORD,
    F,
    H,
    act,
    at_turn,
    combat,
    defaults,
    encounter,
    has,
    item,
    kinds,
    rolls,
    verbs,
)

CORRIDOR = [{"area": [[0, 4], [29, 4]], "terrain": "wall"}, {"area": [[0, 6], [29, 6]], "terrain": "wall"}]
CRATE = [{"at": [7, 5], "object": {"name": "crate", "cover": 3}}]
STEP = {"abilities": [{"kind": "reflex_step", "distance_m": 2}]}


def dice_of(c):
    return len(rolls(c)[-1].data["dice"][0])


@pytest.mark.rule("REI-5.1")
def test_REI_T38_aim_progression_and_resets() -> None:
    """REI-T38: REI-5.1, REI-5.2 - +1 per consecutive aim up to 3; resets by not aiming, moving, attacking."""
    enc = encounter(*defaults(a={"items": [PISTOL]}, d={"position": [10, 5]}), start=at_turn(["A", "D"]))
    c = combat(enc, *[1] * 12)
    for want in (1, 2, 3):
        act(c, "aim", "D")
        assert F(c, "A").aim_count == want
        act(c, "end_turn")
        act(c, "end_turn")
    act(c, "aim", "D")
    assert F(c, "A").aim_count == 3
    act(c, "ranged_attack", "D", option="pistol")
    assert dice_of(c) == 12 and F(c, "A").aim_count == 0 and c.dice.remaining == 0
    c = combat(enc)
    act(c, "aim", "D")
    act(c, "end_turn")
    act(c, "end_turn")
    act(c, "end_turn")  # round 2 without aiming
    assert F(c, "A").aim_count == 0
    act(c, "end_turn")
    act(c, "aim", "D")
    assert F(c, "A").aim_count == 1
    c = combat(enc)
    act(c, "aim", "D")
    act(c, "end_turn")
    act(c, "end_turn")
    act(c, "move", dest=(4, 5))
    assert F(c, "A").aim_count == 0 and "aim" not in verbs(c)
    c = combat(enc, *[1] * 10)
    act(c, "aim", "D")
    act(c, "end_turn")
    act(c, "end_turn")
    act(c, "ranged_attack", "D", option="pistol")
    assert dice_of(c) == 10
    enc = encounter(*defaults(H("S", "N", (5, 8), start={"hidden": True}), a={"items": [PISTOL]}),
                    start=at_turn(["A", "D", "S"]))
    assert not has(combat(enc), "aim", "S")


def test_REI_T39_all_out_attack() -> None:
    """REI-T39: REI-5.3 - +2 DP, then -2 base defence until the next own turn; melee standard attacks only."""
    enc = encounter(*defaults(a={"items": [SWORD, PISTOL, {"id": "tk", "kind": "thrown", "damage": 1, "size": 1}]}),
                    start=at_turn(["A", "D"]))
    c = combat(enc, *[1] * 10, *[1] * 10)
    assert not any(isinstance(a.option, tuple) and "all_out" in a.option for a in c.legal_actions()
                   if a.verb in ("ranged_attack", "throw", "charge", "acro_charge", "acro_fire", "grapple_strike"))
    act(c, "melee_attack", "D", option=("sword", "all_out"))
    assert dice_of(c) == 10 and F(c, "A").bd_loss == 2
    act(c, "end_turn")
    act(c, "melee_attack", "A", option="sword")
    assert rolls(c)[-1].data["defence"] == 1 and dice_of(c) == 10
    act(c, "end_turn")
    assert F(c, "A").bd_loss == 0


def test_REI_T40_charge() -> None:
    """REI-T40: REI-5.4, REI-5.5 - bonus = cells entered, capped by base defence, lost afterwards."""
    c = combat(encounter(H("A", "P", (0, 5)), H("D", "N", (6, 5)), width=30, start=at_turn(["A", "D"])),
               8, 8, 8, *[1] * 7)
    act(c, "charge", "D", (-1, 0), "sword")
    assert F(c, "A").cell == (5, 5) and dice_of(c) == 10 and F(c, "D").lethal == 3 and F(c, "A").bd_loss == 2
    c = combat(encounter(H("A", "P", (0, 5)), H("D", "N", (24, 5)), width=30, start=at_turn(["A", "D"])))
    assert not has(c, "charge", "D", (-1, 0), "sword")
    c = combat(encounter(H("A", "P", (0, 5), acrobatic_actions=1), H("D", "N", (24, 5)), width=30,
                         start=at_turn(["A", "D"])))
    assert has(c, "acro_charge", "D", (-1, 0), "sword")


def test_REI_T41_charge_stopped_by_a_hidden_combatant() -> None:
    """REI-T41: REI-5.6, REI-6.6 - a hidden body in the way stops the charge and cancels the attack."""
    enc = encounter(H("A", "P", (0, 5)), H("S", "N", (3, 5), start={"hidden": True}), H("D", "N", (6, 5)),
                    width=30, cells=CORRIDOR, start=at_turn(["A", "S", "D"]))
    c = combat(enc)
    assert has(c, "charge", "D", (-1, 0), "sword")
    act(c, "charge", "D", (-1, 0), "sword")
    assert F(c, "A").cell == (2, 5) and not F(c, "S").hidden and not rolls(c) and F(c, "A").bd_loss == 0
    assert kinds(c, "attack_cancelled") and [e.data["slot"] for e in kinds(c, "slot_spent")] == ["standard", "move"]


def test_REI_T42_reactive_step_during_an_attack() -> None:
    """REI-T42: REI-5.7 - stepping out of reach doubles dodge; a charge's target stepping away cancels it."""
    enc = encounter(*defaults(d=STEP), start=at_turn(["A", "D"], D={"reflex_available": True}))
    c = combat(enc, 8, *[1] * 6)
    act(c, "melee_attack", "D", option="sword")
    act(c, "reflex_step", dest=(8, 5))
    assert rolls(c)[-1].data["defence"] == 4 and dice_of(c) == 7 and F(c, "D").lethal == 1
    assert F(c, "D").cell == (8, 5)
    c = combat(enc, *[1] * 8)
    act(c, "melee_attack", "D", option="sword")
    act(c, "reflex_step", dest=(6, 6))
    assert rolls(c)[-1].data["defence"] == 3
    enc = encounter(H("A", "P", (0, 5)), H("D", "N", (6, 5), **STEP), width=30, cells=CORRIDOR,
                    start=at_turn(["A", "D"], D={"reflex_available": True}))
    c = combat(enc)
    act(c, "charge", "D", (-1, 0), "sword")
    assert c.decision.step == "attack_declared"
    act(c, "reflex_step", dest=(8, 5))
    assert kinds(c, "attack_cancelled") and not rolls(c) and F(c, "A").bd_loss == 0


def test_REI_T43_full_defence() -> None:
    """REI-T43: REI-5.8 - dodge doubled until the defender's next turn."""
    for weapon, verb, n in (("sword", "melee_attack", 7), ("pistol", "ranged_attack", 9)):
        enc = encounter(*defaults(a={"items": [SWORD, PISTOL]}),
                        start=at_turn(["A", "D"], round=2, D={"full_defense": True}))
        c = combat(enc, *[1] * n)
        act(c, verb, "D", option=weapon)
        assert dice_of(c) == n
    act(c, "end_turn")
    assert c.decision.actor == "D" and not F(c, "D").full_defense


def test_REI_T44_parry_and_acrobatic_parry() -> None:
    """REI-T44: REI-5.9, REI-5.10 - parry defence vs melee; the acrobatic parry adds dodge."""
    def run(verb, weapon, n, **d):
        enc = encounter(*defaults(a={"items": [SWORD, PISTOL]}, d=d), start=at_turn(["A", "D"], actor="D"))
        c = combat(enc, *[1] * n)
        act(c, verb)
        assert "parry" not in verbs(c) and "acro_parry" not in verbs(c)
        act(c, "end_turn")
        act(c, "melee_attack" if weapon == "sword" else "ranged_attack", "D", option=weapon)
        return c

    assert dice_of(run("parry", "sword", 6)) == 6
    assert dice_of(run("parry", "pistol", 9)) == 9
    assert dice_of(run("acro_parry", "sword", 5, acrobatic_actions=1)) == 5
    assert dice_of(run("acro_parry", "pistol", 9, acrobatic_actions=1)) == 9
    enc = encounter(*defaults(d={"items": [], "specialties": {"brawl": 0}}), start=at_turn(["A", "D"], actor="D"))
    c = combat(enc)
    act(c, "parry")
    assert F(c, "D").parry_value == 1


def test_REI_T45_taking_cover() -> None:
    """REI-T45: REI-5.11 - object and ally cover; cover ends when the source leaves; directional option."""
    def c_(apos=(1, 5), options=None, n=0, extra=(), cells=CRATE):
        enc = encounter(H("A", "P", apos, items=[SWORD, PISTOL]), H("D", "N", (6, 5)), *extra, cells=cells,
                        options=options, start=at_turn(["D", "A"] + [e["id"] for e in extra], actor="D"))
        return combat(enc, *[1] * n)

    c = c_(n=6)
    act(c, "take_cover", dest=(7, 5))
    act(c, "end_turn")
    act(c, "ranged_attack", "D", option="pistol")
    assert rolls(c)[-1].data["defence"] == 5 and dice_of(c) == 6
    c = c_(apos=(5, 5), n=8)
    act(c, "take_cover", dest=(7, 5))
    act(c, "end_turn")
    act(c, "melee_attack", "D", option="sword")
    assert rolls(c)[-1].data["defence"] == 3
    c = c_(extra=[H("B", "N", (6, 6))], cells=[])
    act(c, "take_cover", "B")
    assert F(c, "D").cover_value == 3
    act(c, "end_turn")
    act(c, "end_turn")
    act(c, "move", dest=(10, 10))
    assert any(e.data["condition"] == "in_cover" for e in kinds(c, "condition_removed"))
    for apos, want in (((1, 5), 2), ((11, 5), 5)):
        c = c_(apos=apos, options={"cover_directional": True}, n=11 - want)
        act(c, "take_cover", dest=(7, 5))
        act(c, "end_turn")
        act(c, "ranged_attack", "D", option="pistol")
        assert rolls(c)[-1].data["defence"] == want


def test_REI_T46_prone_and_standing_up() -> None:
    """REI-T46: REI-6.1, REI-6.3, REI-3.12 - prone: -2 DP to melee attackers, +2 cover, crawl only."""
    def c_(options=None, n=0):
        enc = encounter(*defaults(a={"items": [SWORD, PISTOL]}), options=options,
                        start=at_turn(["D", "A"], actor="D"))
        return combat(enc, *[1] * n)

    c = c_(n=6)
    act(c, "go_prone")
    act(c, "end_turn")
    act(c, "melee_attack", "D", option="sword")
    assert dice_of(c) == 6
    c = c_(n=7)
    act(c, "go_prone")
    act(c, "end_turn")
    act(c, "ranged_attack", "D", option="pistol")
    assert dice_of(c) == 7
    act(c, "end_turn")
    assert "move" not in verbs(c) and has(c, "crawl", dest=(7, 5)) and "stand_from_prone" in verbs(c)
    act(c, "crawl", dest=(7, 5))
    assert "stand_from_prone" in verbs(c)
    c = c_(options={"tier_substitution": False})
    act(c, "go_prone")
    act(c, "end_turn")
    act(c, "end_turn")
    act(c, "crawl", dest=(7, 5))
    assert "stand_from_prone" not in verbs(c)
    enc = encounter(*defaults(), options={"prone_attacker_melee_penalty": 2},
                    start=at_turn(["D", "A"], actor="D", D={"prone": True}))
    c = combat(enc, *[1] * 6)
    act(c, "melee_attack", "A", option="sword")
    assert rolls(c)[-1].data["pool"] == 9


def test_REI_T47_crouching() -> None:
    """REI-T47: REI-6.2, REI-6.3, REI-3.6 - crouching adds 2 cover and keeps base-defence extra successes."""
    def c_(weapon, faces, crouch=True):
        enc = encounter(H("A", "P", (1, 5), items=[weapon]), H("D", "N", (6, 5), base_defense_es=1), cells=CRATE,
                        start=at_turn(["D", "A"], actor="D"))
        c = combat(enc, *faces)
        assert not has(c, "crouch")
        act(c, "take_cover", dest=(7, 5))
        if crouch:
            act(c, "crouch")
            assert "move" not in verbs(c) and has(c, "stand_from_crouch")
        act(c, "end_turn")
        act(c, "ranged_attack", "D", option="pistol")
        return c

    c = c_(PISTOL, [1] * 4)
    assert rolls(c)[-1].data["defence"] == 7
    pen = item(PISTOL, penetration=2)
    c = c_(pen, [8, 8, 1, 1, 1, 1])
    assert rolls(c)[-1].data["n"] == 1
    c = c_(pen, [8, 8, *[1] * 6], crouch=False)
    assert rolls(c)[-1].data["n"] == 2


def test_REI_T48_stealth_walking() -> None:
    """REI-T48: REI-6.4, REI-6.5, REI-6.6 - the stealth check, the half-speed walk, the off-guard first attack."""
    enc = encounter(H("S", "P", (2, 5), start={"hidden": True}), H("D", "N", (8, 5), items=[SWORD, PISTOL]),
                    start=at_turn(["S", "D"], actor="S"))
    c = combat(enc, 8, 1, 1, 1, 9, 1, 1, 8, 8, *[1] * 9, *[1] * 7, 1, 1, 1, 1, 8, 1, 1)
    assert F(c, "S").hidden and kinds(c, "stealth_check")
    assert has(c, "stealth_walk", dest=(7, 5)) and not has(c, "stealth_walk", dest=(2, 11)) and "move" in verbs(c)
    act(c, "stealth_walk", dest=(7, 5))
    act(c, "melee_attack", "D", option="sword")
    assert rolls(c)[-1].data["defence"] == 0 and F(c, "D").lethal == 2 and F(c, "S").hidden
    act(c, "end_turn")
    assert not has(c, "aim", "S") and not any(a.verb == "charge" and a.target == "S" for a in c.legal_actions())
    act(c, "ranged_attack", "S", option="pistol")
    assert rolls(c)[-1].data["defence"] == 4 and dice_of(c) == 7
    act(c, "end_turn")
    assert kinds(c, "detected") and not F(c, "S").hidden and c.dice.remaining == 0
    enc = encounter(H("S", "P", (2, 5), start={"hidden": True}), H("D", "N", (8, 5)),
                    cells=[{"area": [[5, 0], [5, 11]], "terrain": "wall"}], start=at_turn(["S", "D"], actor="S"))
    c = combat(enc)
    assert not kinds(c, "stealth_check")


def test_REI_T49_difficult_terrain() -> None:
    """REI-T49: REI-6.7 - difficult cells cost 2 to enter; the ability ignores that; forced movement too."""
    diff = [*CORRIDOR, {"area": [[1, 5], [2, 5]], "terrain": "difficult"}]

    def c_(**a):
        return combat(encounter(H("A", "P", (0, 5), speed_m=4, **a), H("D", "N", (20, 5)), width=30, cells=diff,
                                start=at_turn(["A", "D"])))

    c = c_()
    assert has(c, "move", dest=(2, 5)) and not has(c, "move", dest=(3, 5))
    c = c_(abilities=[{"kind": "ignore_difficult_terrain"}])
    assert has(c, "move", dest=(4, 5))
    enc = encounter(H("X", "P", (0, 5)), H("D", "N", (1, 5)), width=30, cells=diff, start=at_turn(["X", "D"],
                                                                                                    actor="X"))
    c = combat(enc, 8, 8, 8, *[1] * 8, 8, *[1] * 5)
    act(c, "bull_rush", "D", option="sword")
    assert F(c, "D").cell == (3, 5)
