"""Bull rush and grappling (T50-T61)."""

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
    kinds,
    rolls,
    verbs,
)

GREATSWORD = {"id": "greatsword", "kind": "melee", "damage": 3, "specialty": "swords", "size": 3, "hands": 2}
MOVES = {"move", "acro_move", "climb_jump", "crawl", "stealth_walk", "charge", "acro_charge", "grapple_move",
         "leave_battlefield"}


def held(margin=1, state="hold", pin=0, **kw):
    return [{"holder": "A", "held": "D", "state": state, "hold_margin": margin, "pin_margin": pin, **kw}]


def dice_of(c, i=-1):
    return len(rolls(c)[i].data["dice"][0])


@pytest.mark.rule("REI-7.2")
def test_REI_T50_bull_rush() -> None:
    """REI-T50: REI-7.1, REI-7.2 - the normal pool with no defence against a reflex save; no damage."""
    def c_(*faces, cells=None, options=None):
        return combat(encounter(*defaults(), cells=cells, options=options, start=at_turn(["A", "D"])), *faces)

    c = c_(8, 9, 10, *[1] * 8, 2, 8, *[1] * 5)
    act(c, "bull_rush", "D", option="sword")
    assert rolls(c)[0].data["t"] == 3 and F(c, "D").cell == (8, 5) and F(c, "D").lethal == 0 and c.dice.remaining == 0
    c = c_(8, 9, 10, *[1] * 8, 2, 8, *[1] * 5, cells=[{"at": [8, 5], "terrain": "wall"}])
    act(c, "bull_rush", "D", option="sword")
    assert F(c, "D").cell == (7, 5)
    c = c_(*[1] * 13, *[1] * 6)
    act(c, "bull_rush", "D", option=("sword", "all_out"))
    assert dice_of(c, 0) == 13
    c = c_(*[1] * 8, *[1] * 6, options={"bull_rush_defenses_apply": True})
    act(c, "bull_rush", "D", option="sword")
    assert dice_of(c, 0) == 8
    assert not any(a.verb == "charge" and isinstance(a.option, tuple) for a in c_().legal_actions())


def test_REI_T51_grapple_contact_and_contest() -> None:
    """REI-T51: REI-7.3, REI-7.5, REI-3.4 - contact, the defender's choice of pool, the contest."""
    def c_(*faces, options=None):
        return combat(encounter(*defaults(), options=options, start=at_turn(["A", "D"])), *faces)

    c = c_(8, 1, 1, 1, 1, 8, 8, *[1] * 6, 8, *[1] * 7)
    act(c, "grapple", "D")
    assert dice_of(c) == 5 and c.decision.step == "grapple_resist" and c.decision.actor == "D"
    assert has(c, "grapple_resist", option="break") and has(c, "grapple_resist", option="escape")
    act(c, "grapple_resist", option="break")
    g = c.state.grapples[0]
    assert (g.holder, g.held, g.hold_margin) == ("A", "D", 1) and c.dice.remaining == 0
    c = c_(8, 1, 1, 1, 1, 8, 8, *[1] * 6, 8, 8, *[1] * 6)
    act(c, "grapple", "D")
    act(c, "grapple_resist", option="break")
    assert not c.state.grapples
    c = c_(8, 1, 1, 1, 1, *[1] * 8, *[1] * 6)
    act(c, "grapple", "D")
    act(c, "grapple_resist", option="escape")
    assert dice_of(c) == 6 and c.dice.remaining == 0
    c = c_(*[1] * 5)
    act(c, "grapple", "D")
    assert kinds(c, "miss") and c.decision.step == "turn"
    c = c_(8, 1, 1, 1, 1, *[1] * 8, *[1] * 8, options={"grapple_resist_choice": "policy"})
    act(c, "grapple", "D")
    assert c.decision.step == "turn" and dice_of(c) == 8 and c.dice.remaining == 0


def test_REI_T52_what_a_grappler_may_hold_and_immunity() -> None:
    """REI-T52: REI-7.4, REI-7.8 - big items in hand forbid grappling; immune_immobilize forbids it too."""
    c = combat(encounter(*defaults(a={"items": [GREATSWORD]}), start=at_turn(["A", "D"])))
    assert not has(c, "grapple", "D")
    act(c, "drop_item", option="greatsword")
    assert has(c, "grapple", "D")
    immune = {"abilities": [{"kind": "immune_immobilize"}]}
    c = combat(encounter(*defaults(d=immune), start={**at_turn(["A", "D"]), "grapples": held()}))
    assert not has(c, "grapple", "D") and not has(c, "pin", "D")


def test_REI_T53_moving_in_a_hold() -> None:
    """REI-T53: REI-7.6, REI-3.4 - a STR contest drags the partner one metre per success of margin."""
    enc = encounter(*defaults(), start={**at_turn(["A", "D"]), "grapples": held()})
    c = combat(enc, 8, 8, 1, 1, 1, 1)
    assert "move" not in verbs(c) and "grapple_move" in verbs(c)
    act(c, "grapple_move", dest=(2, 5))
    assert (F(c, "A").cell, F(c, "D").cell) == ((3, 5), (4, 5)) and c.dice.remaining == 0
    c = combat(enc, 8, 1, 1, 8, 1, 1)
    act(c, "grapple_move", dest=(2, 5))
    assert (F(c, "A").cell, F(c, "D").cell) == ((5, 5), (6, 5)) and F(c, "A").slots["move"] == 0
    act(c, "end_turn")
    assert "move" not in verbs(c) and "grapple_move" in verbs(c)


def test_REI_T54_third_parties_and_the_losers_penalty() -> None:
    """REI-T54: REI-7.7 - no base defence against outsiders; the loser's penalty on attacks and parry."""
    base = [H("A", "P", (5, 5)), H("D", "N", (6, 5)), H("E", "P", (7, 5)), H("F", "N", (4, 5))]
    g = held(margin=2)
    c = combat(encounter(*base, start={**at_turn(["E", "D", "F", "A"], actor="E"), "grapples": g}), *[1] * 10)
    act(c, "melee_attack", "D", option="sword")
    assert rolls(c)[-1].data["defence"] == 1 and dice_of(c) == 10
    c.dice.script.extend([(10, 1)] * 6)
    act(c, "end_turn")
    act(c, "melee_attack", "E", option="sword")
    assert dice_of(c) == 6
    act(c, "parry")
    assert F(c, "D").parry_value == 2
    c = combat(encounter(*base, start={**at_turn(["F", "A", "E", "D"], actor="F"), "grapples": g}), *[1] * 10)
    act(c, "melee_attack", "A", option="sword")
    assert dice_of(c) == 10
    c = combat(encounter(*base, start={**at_turn(["D", "A"], actor="D", D={"parry_value": 2}), "grapples": g}),
               *[1] * 6, *[1] * 8)
    act(c, "escape_grapple", "A", option="escape")
    assert [len(r.data["dice"][0]) for r in rolls(c)] == [6, 8]
    c = combat(encounter(*base, start={**at_turn(["A", "D"], D={"parry_value": 2}), "grapples": g}), *[1] * 8)
    act(c, "melee_attack", "D", option="sword")
    assert rolls(c)[-1].data["defence_parts"]["parry"] == 0


def test_REI_T55_striking_in_a_grapple() -> None:
    """REI-T55: REI-7.9 - a contest first, then STR + martial + R undefended, always bashing."""
    enc = encounter(*defaults(), start={**at_turn(["A", "D"]), "grapples": held()})
    c = combat(enc, 8, 8, *[1] * 6, 8, *[1] * 7, 8, 8, 8, *[1] * 5)
    act(c, "grapple_strike", "D", option="sword")
    assert [e.data["slot"] for e in kinds(c, "slot_spent")] == ["standard", "move"]
    act(c, "grapple_resist", option="break")
    assert rolls(c)[-1].data["pool"] == 8 and F(c, "D").bashing == 3 and F(c, "D").lethal == 0
    c = combat(enc, *[1] * 8, *[1] * 8)
    act(c, "grapple_strike", "D", option="sword")
    act(c, "grapple_resist", option="break")
    assert len(rolls(c)) == 2 and c.dice.remaining == 0
    c = combat(encounter(*defaults(a={"items": [GREATSWORD]}), start={**at_turn(["A", "D"]), "grapples": held()}))
    assert not has(c, "grapple_strike", "D", option="greatsword") and has(c, "grapple_strike", "D", option="unarmed")
    c = combat(encounter(*defaults(), start={**at_turn(["D", "A"], actor="D"), "grapples": held()}),
               8, 8, *[1] * 6, *[1] * 8, *[1] * 7)
    act(c, "grapple_strike", "A", option="unarmed")
    act(c, "grapple_resist", option="break")
    assert rolls(c)[-1].data["pool"] == 7


def test_REI_T56_escape_and_release() -> None:
    """REI-T56: REI-7.10, REI-3.4 - the escaper rolls first; ties keep the hold; release is free."""
    enc = encounter(*defaults(), start={**at_turn(["D", "A"], actor="D"), "grapples": held()})
    c = combat(enc, 8, 8, 1, 1, 1, 1, 8, *[1] * 7)
    act(c, "escape_grapple", "A", option="escape")
    assert not c.state.grapples and "move" in verbs(c)
    c = combat(enc, 8, 1, 1, 1, 1, 1, 8, *[1] * 7)
    act(c, "escape_grapple", "A", option="escape")
    assert c.state.grapples
    c = combat(encounter(*defaults(), start={**at_turn(["A", "D"]), "grapples": held()}))
    act(c, "release_grapple", "D")
    assert not c.state.grapples and kinds(c, "slot_spent") == []


def test_REI_T57_pin_cover_from_the_pinned_body_two_escapes() -> None:
    """REI-T57: REI-7.11, REI-7.12, REI-7.13 - pin, take cover behind the pinned, half-speed drag, escapes."""
    enc = encounter(*defaults(), start={**at_turn(["A", "D"]), "grapples": held()})
    c = combat(enc, 8, 8, 8, 8, 8, 1, 1, 1, 8, *[1] * 7)
    act(c, "pin", "D")
    act(c, "grapple_resist", option="break")
    g = c.state.grapples[0]
    assert (g.state, g.pin_margin) == ("pin", 4) and has(c, "take_cover", "D")
    act(c, "take_cover", "D")
    assert F(c, "A").cover_value == 3
    c = combat(encounter(*defaults(), start={**at_turn(["A", "D"]), "grapples": held(state="pin", pin=3)}))
    assert not has(c, "take_cover", "D")
    assert has(c, "move", dest=(0, 5)) and not has(c, "move", dest=(5, 11))
    act(c, "move", dest=(1, 5))
    assert F(c, "D").cell == (2, 5)
    act(c, "end_turn")
    assert not verbs(c) & MOVES and has(c, "escape_grapple", "A", option="break")
    c.dice.script.extend([(10, 8)] * 8 + [(10, 1)] * 8)
    act(c, "escape_grapple", "A", option="break")
    assert c.state.grapples[0].state == "hold" and c.state.grapples[0].hold_margin == 1
    act(c, "end_turn")
    act(c, "end_turn")
    c.dice.script.extend([(10, 8)] * 8 + [(10, 1)] * 8)
    act(c, "escape_grapple", "A", option="break")
    assert not c.state.grapples


def test_REI_T58_hands() -> None:
    """REI-T58: REI-7.14 - a hold of a similar-sized target takes two hands, a small one one hand."""
    def c_(hands, third):
        return combat(encounter(*defaults(third, a={"hands": hands, "items": []}),
                                start={**at_turn(["A", "D", third["id"]]), "grapples": held()}))

    e = H("E", "N", (4, 5))
    assert not has(c_(2, e), "grapple", "E") and has(c_(4, e), "grapple", "E")
    t = H("T", "N", (4, 5), size=2)
    assert has(c_(3, t), "grapple", "T") and not has(c_(3, e), "grapple", "E")


def test_REI_T59_soft_weapon_grapple() -> None:
    """REI-T59: REI-7.15 - a soft weapon replaces brawl with its specialty in contact, contests and strikes."""
    whip = {"id": "whip", "kind": "melee", "soft": True, "damage": 1, "specialty": "whips", "size": 3}
    a = {"items": [whip], "specialties": {"brawl": 2, "whips": 3, "reflex": 1}}
    c = combat(encounter(*defaults(a=a), start=at_turn(["A", "D"])), 8, *[1] * 5, *[1] * 9, *[1] * 8)
    assert not has(c, "grapple", "D") and has(c, "grapple", "D", option=("whip",))
    act(c, "grapple", "D", option=("whip",))
    assert dice_of(c) == 6
    act(c, "grapple_resist", option="break")
    assert dice_of(c, 1) == 9
    c = combat(encounter(*defaults(a=a), start={**at_turn(["A", "D"]), "grapples": held(with_="whip")}),
               *[1] * 9)
    c.state.grapples[0].with_ = "whip"
    c.state.grapples[0].state = "pin"
    c._legal = None
    act(c, "pin_strike", "D", option="unarmed")
    assert rolls(c)[-1].data["pool"] == 9


def test_REI_T60_striking_a_pinned_opponent() -> None:
    """REI-T60: REI-7.16 - no contest, STR + martial + R, bashing; all-out allowed."""
    enc = encounter(*defaults(), start={**at_turn(["A", "D"]), "grapples": held(state="pin", pin=2)})
    c = combat(enc, 8, 8, *[1] * 6)
    act(c, "pin_strike", "D", option="unarmed")
    assert rolls(c)[-1].data["pool"] == 8 and F(c, "D").bashing == 2 and c.dice.remaining == 0
    c = combat(enc, *[1] * 10)
    act(c, "pin_strike", "D", option=("unarmed", "all_out"))
    assert dice_of(c) == 10 and F(c, "A").bd_loss == 2


def test_REI_T61_shooting_into_a_grapple() -> None:
    """REI-T61: REI-7.17 - careful shots lose 2 DP per member; random shots pick the victim by size."""
    def c_(*faces, **e):
        enc = encounter(H("A", "P", (5, 5)), H("D", "N", (6, 5)), H("E", "N", (5, 10), items=[PISTOL], **e),
                        start={**at_turn(["E", "A", "D"], actor="E"), "grapples": held()})
        return combat(enc, *faces)

    c = c_(*[1] * 7)
    act(c, "ranged_attack", "A", option=("pistol", "careful"))
    assert rolls(c)[-1].data["defence"] == 0 and dice_of(c) == 7
    c = c_((10, 7), 8, *[1] * 10)
    act(c, "ranged_attack", "A", option=("pistol", "random"))
    assert kinds(c, "random_victim")[0].data["victim"] == "D" and dice_of(c) == 11 and F(c, "D").lethal == 1
    c = c_(*[1] * 10, called_shot_reduction=3)
    act(c, "ranged_attack", "A", option=("pistol", "careful"))
    assert dice_of(c) == 10
    assert SWORD
