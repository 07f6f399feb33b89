"""Action slots, substitution, trick/swift/move/acrobatic/standard verbs and reflex actions (T17-T26)."""

from __future__ import annotations

import pytest

from tests.rules.reincarnator.helpers import (
    PISTOL,
    SWORD,
    TKNIFE,
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

D_FAR = {"position": [10, 5]}


def spent(c):
    return [e.data["slot"] for e in kinds(c, "slot_spent")]


@pytest.mark.rule("REI-2.7")
def test_REI_T17_slots_substitution_and_aim() -> None:
    """REI-T17: REI-2.7, REI-2.10, REI-5.1, REI-5.2 - aim is paid with swift; then the aimed shot."""
    c = combat(encounter(*defaults(a={"items": [PISTOL]}, d=D_FAR), start=at_turn(["A", "D"])), 8, *[1] * 9)
    assert F(c, "A").slots == {"trick": 0, "swift": 1, "move": 1, "acrobatic": 0, "standard": 1}
    act(c, "aim", "D")
    assert spent(c) == ["swift"] and F(c, "A").aim_count == 1
    assert "aim" not in verbs(c) and "move" not in verbs(c)
    act(c, "ranged_attack", "D", option="pistol")
    r = rolls(c)[-1].data
    assert r["pool"] - r["defence"] == 10 and F(c, "D").lethal == 1
    assert F(c, "A").aim_count == 0 and c.state.items["pistol"].loaded == 9 and c.dice.remaining == 0


def test_REI_T18_trick_and_acrobatic_slots_from_dexterity() -> None:
    """REI-T18: REI-2.8 - ES(DEX) trick and half as many acrobatic actions; option es_action_grants."""
    def slots(dex, options=None, **a):
        attrs = {"str": 3, "dex": dex, "int": 2, "com": 2, "sta": 3}
        enc = encounter(*defaults(a={"attributes": attrs, "items": [PISTOL], **a}, d=D_FAR), options=options,
                        start=at_turn(["A", "D"]))
        return combat(enc)

    c = slots(6)
    assert (F(c, "A").slots["trick"], F(c, "A").slots["acrobatic"]) == (1, 0)
    act(c, "aim", "D")
    assert spent(c) == ["trick"] and F(c, "A").slots["swift"] == 1
    c = slots(11)
    assert (F(c, "A").slots["trick"], F(c, "A").slots["acrobatic"]) == (2, 1)
    assert slots(11, acrobatic_actions=1).state.fighters["A"].slots["acrobatic"] == 2
    assert slots(6, options={"es_action_grants": False}).state.fighters["A"].slots["trick"] == 0


def test_REI_T19_full_round_actions() -> None:
    """REI-T19: REI-2.9, REI-2.10 - full-round verbs need their exact slots."""
    def start(options=None, **a):
        return combat(encounter(*defaults(a=a, d={"position": [9, 5]}), options=options, start=at_turn(["A", "D"])))

    c = start()
    assert has(c, "charge", "D", (-1, 0), "sword")
    act(c, "move", dest=(5, 6))
    assert not any(a.verb in ("charge", "acro_charge") for a in c.legal_actions()) and "move" in verbs(c)
    c = start(acrobatic_actions=1)
    act(c, "move", dest=(5, 6))
    assert "acro_charge" in verbs(c) and "charge" not in verbs(c)
    act(c, "full_defense")
    assert not {"charge", "acro_charge"} & verbs(c)
    c = start(options={"tier_substitution": False})
    act(c, "move", dest=(5, 6))
    assert "move" not in verbs(c)


def test_REI_T20_free_action_ability_once_per_turn() -> None:
    """REI-T20: REI-2.11 - release_grapple once per turn; drop_item unlimited."""
    enc = encounter(*defaults(H("E", "N", (4, 5)), a={"hands": 4, "items": [SWORD, PISTOL]}),
                    start={**at_turn(["A", "D", "E"]), "grapples": [{"holder": "A", "held": "D"},
                                                                    {"holder": "A", "held": "E"}]})
    c = combat(enc)
    act(c, "release_grapple", "D")
    assert not c.state.grapples[0].held == "D" and not has(c, "release_grapple", "E")
    act(c, "drop_item", option="sword")
    act(c, "drop_item", option="pistol")
    assert c.state.items["A.sword"].loc == "ground" and c.state.items["pistol"].loc == "ground"
    act(c, "end_turn")
    act(c, "end_turn")
    act(c, "end_turn")
    assert c.decision.actor == "A" and has(c, "release_grapple", "E")


def test_REI_T21_draw_reload_consume_and_auto_payment() -> None:
    """REI-T21: REI-2.12, REI-2.13, REI-2.10 - draw (swift), reload (move), consume (standard)."""
    pistol = item(PISTOL, location="reachable", ammo={"loaded": 0, "spares": 1})
    enc = encounter(*defaults(a={"items": [pistol, "pill"]}, d=D_FAR), start=at_turn(["A", "D"], A={"bashing": 3}))
    c = combat(enc)
    assert "ranged_attack" not in verbs(c)
    act(c, "draw", option="pistol")
    assert spent(c) == ["swift"] and "ranged_attack" not in verbs(c)
    act(c, "reload", option="pistol")
    assert spent(c)[-1] == "move" and (c.state.items["pistol"].loaded, c.state.items["pistol"].spares) == (10, 0)
    assert has(c, "ranged_attack", "D", option="pistol") and has(c, "consume", option="pill")
    act(c, "consume", option="pill")
    assert spent(c)[-1] == "standard" and F(c, "A").bashing == 1 and "ranged_attack" not in verbs(c)


def test_REI_T22_weapon_loading_kinds() -> None:
    """REI-T22: REI-2.12, REI-2.13, REI-2.15, REI-4.5 - bolt action, shells, bows, muskets."""
    rifle = {"id": "rifle", "kind": "firearm", "damage": 4, "specialty": "rifles", "size": 3, "hands": 2,
             "range_m": 100, "ammo": {"capacity": 5, "loaded": 5, "chambered": True, "spares": 1,
                                      "reload_kind": "bolt_action"}}
    c = combat(encounter(*defaults(a={"items": [rifle]}, d=D_FAR), start=at_turn(["A", "D"])), *[1] * 9)
    act(c, "ranged_attack", "D", option="rifle")
    it = c.state.items["rifle"]
    assert (it.loaded, it.chambered) == (4, False) and "ranged_attack" not in verbs(c) and c.dice.remaining == 0
    act(c, "cycle_bolt", option="rifle")
    assert spent(c)[-1] == "swift" and it.chambered
    shotgun = {"id": "shotgun", "kind": "firearm", "damage": 3, "specialty": "shotguns", "size": 3, "hands": 2,
               "range_m": 20, "ammo": {"capacity": 2, "loaded": 0, "spares": 4, "reload_kind": "shell"}}
    c = combat(encounter(*defaults(a={"items": [shotgun]}, d=D_FAR), start=at_turn(["A", "D"])))
    act(c, "reload", option="shotgun")
    assert (c.state.items["shotgun"].loaded, c.state.items["shotgun"].spares) == (1, 3)
    act(c, "reload", option="shotgun")
    assert c.state.items["shotgun"].loaded == 2 and spent(c) == ["swift", "move"]
    bow = {"id": "bow", "kind": "bow", "damage": 2, "specialty": "bows", "size": 2, "hands": 2, "range_m": 40,
           "ammo": {"capacity": 1, "loaded": 0, "spares": 10, "reload_kind": "bow"}}
    c = combat(encounter(*defaults(a={"items": [bow]}, d=D_FAR), start=at_turn(["A", "D"])), *[1] * 7)
    act(c, "reload", option="bow")
    assert c.state.items["bow"].loaded == 1
    act(c, "ranged_attack", "D", option="bow")
    assert c.state.items["bow"].loaded == 0
    musket = {"id": "musket", "kind": "firearm", "damage": 3, "specialty": "muskets", "size": 3, "hands": 2,
              "range_m": 50, "ammo": {"capacity": 1, "loaded": 0, "spares": 3, "reload_kind": "musket"}}
    c = combat(encounter(*defaults(a={"items": [musket]}, d=D_FAR), start=at_turn(["A", "D"])))
    assert not has(c, "reload", option="musket") and has(c, "reload_heavy", option="musket")
    act(c, "reload_heavy", option="musket")
    assert c.state.items["musket"].loaded == 1 and spent(c) == ["move"]


def test_REI_T23_reflex_action() -> None:
    """REI-T23: REI-2.14, REI-5.7 - an unused swift becomes a reflex action usable once out of turn."""
    step = {"abilities": [{"kind": "reflex_step", "distance_m": 2}]}
    enc = encounter(*defaults(H("B", "P", (6, 4)), d=step), start=at_turn(["A", "D", "B"]))
    c = combat(enc, *[1] * 8)
    act(c, "melee_attack", "D", option="sword")
    assert not kinds(c, "reaction_window") and c.decision.actor == "A"
    act(c, "end_turn")
    assert c.decision.actor == "D"
    act(c, "end_turn")
    assert F(c, "D").reflex
    act(c, "end_turn")  # B
    assert c.round == 2 and c.decision.actor == "A"
    c.dice.script.extend([(10, 1)] * 15)
    act(c, "melee_attack", "D", option="sword")
    assert c.decision.step == "attack_declared" and c.decision.actor == "D"
    legal = c.legal_actions()
    assert legal[0].verb == "pass" and len([a for a in legal if a.verb == "reflex_step"]) == 22
    act(c, "pass")
    assert F(c, "D").reflex and c.decision.actor == "A"
    act(c, "end_turn")
    assert c.decision.actor == "D"
    act(c, "reload" if False else "end_turn")
    act(c, "melee_attack", "D", option="sword")
    assert c.decision.step == "attack_declared"
    act(c, "reflex_step", dest=(8, 5))
    assert not F(c, "D").reflex
    enc = encounter(*defaults(d={**step, "items": [SWORD, item(PISTOL, ammo={"loaded": 5})]}),
                    start=at_turn(["A", "D"], round=1))
    c = combat(enc, *[1] * 8)
    act(c, "end_turn")
    act(c, "reload", option="pistol")
    act(c, "end_turn")
    assert not F(c, "D").reflex
    act(c, "melee_attack", "D", option="sword")
    assert not kinds(c, "reaction_window")


def test_REI_T24_climbing_gaps_and_doors() -> None:
    """REI-T24: REI-2.15 - move, climb_jump over climbable and gap cells, opening a door."""
    def c_(cells=None, pos=(0, 0)):
        return combat(encounter(H("A", "P", pos, speed_m=4), H("D", "N", (11, 11)), cells=cells,
                                start=at_turn(["A", "D"])))

    c = c_()
    assert has(c, "move", dest=(4, 4)) and not has(c, "move", dest=(5, 0))
    climb = [{"area": [[1, 0], [1, 11]], "terrain": "climbable"}]
    c = c_(climb)
    assert not has(c, "move", dest=(2, 0)) and has(c, "climb_jump", dest=(2, 0)) and has(c, "climb_jump", dest=(3, 0))
    assert not has(c, "climb_jump", dest=(4, 0))
    c = c_([{"area": [[1, 0], [1, 11]], "terrain": "gap"}])
    assert has(c, "climb_jump", dest=(2, 0)) and not has(c, "climb_jump", dest=(1, 0))
    walls = [{"area": [[2, 0], [2, 0]], "terrain": "wall"}, {"at": [2, 1], "door": "closed"},
             {"area": [[2, 2], [2, 11]], "terrain": "wall"}]
    c = c_(walls, pos=(1, 1))
    assert not has(c, "move", dest=(3, 1)) and has(c, "open_door", dest=(2, 1))
    act(c, "open_door", dest=(2, 1))
    assert has(c, "move", dest=(3, 1))
    act(c, "move", dest=(3, 1))
    assert spent(c) == ["move", "acrobatic"] or spent(c) == ["move", "standard"]


def test_REI_T25_acrobatic_actions() -> None:
    """REI-T25: REI-2.16 - 1.5 x speed acrobatic move; load-shoot-reload with a musket."""
    enc = encounter(H("A", "P", (0, 5), acrobatic_actions=1), H("D", "N", (19, 0)), width=20,
                    start=at_turn(["A", "D"]))
    c = combat(enc)
    assert has(c, "acro_move", dest=(16, 5)) and not has(c, "acro_move", dest=(17, 5))
    musket = {"id": "musket", "kind": "firearm", "damage": 3, "specialty": "muskets", "size": 3, "hands": 2,
              "range_m": 50, "ammo": {"capacity": 1, "loaded": 0, "spares": 3, "reload_kind": "musket"}}
    enc = encounter(H("A", "P", (0, 5), acrobatic_actions=1, items=[musket]), H("D", "N", (5, 5)), width=20,
                    start=at_turn(["A", "D"]))
    c = combat(enc, 8, *[1] * 7)
    act(c, "acro_fire", "D", option="musket")
    it = c.state.items["musket"]
    assert len(rolls(c)[-1].data["dice"][0]) == 8 and F(c, "D").lethal == 1
    assert (it.loaded, it.spares) == (1, 1) and has(c, "ranged_attack", "D", option="musket")


def test_REI_T26_standard_action_retrieves_a_stowed_item() -> None:
    """REI-T26: REI-2.17 - a stowed item needs a standard action."""
    c = combat(encounter(*defaults(a={"items": [SWORD, {**TKNIFE, "location": "stowed"}]}), start=at_turn(["A", "D"])))
    assert not has(c, "retrieve", option="tknife") and has(c, "retrieve_stowed", option="tknife")
    act(c, "retrieve_stowed", option="tknife")
    assert c.state.items["tknife"].loc == "held" and spent(c) == ["standard"]
