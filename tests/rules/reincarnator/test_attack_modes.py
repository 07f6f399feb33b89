"""Attack pools and modes: brawl, natural weapons, bows, throwing, vehicles, spells (T29-T37)."""

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
    kinds,
    rolls,
)

HUMAN_SPECS = {"brawl": 2, "swords": 2, "martial_mastery": 1, "ballistics": 1, "pistols": 2, "throwing": 1,
               "reflex": 1, "sneak": 1}


@pytest.mark.rule("REI-4.1")
def test_REI_T29_brawl_pool_and_auxiliary_specialty() -> None:
    """REI-T29: REI-4.1, REI-4.2 - STR + martial + brawl + martial_mastery (lore not added)."""
    c = combat(encounter(*defaults(), start=at_turn(["A", "D"])), *[1] * 6)
    act(c, "melee_attack", "D", option="unarmed")
    assert rolls(c)[-1].data["pool"] == 9
    c = combat(encounter(*defaults(a={"specialties": {**HUMAN_SPECS, "martial_mastery": 0}}),
                         start=at_turn(["A", "D"])), *[1] * 5)
    act(c, "melee_attack", "D", option="unarmed")
    assert rolls(c)[-1].data["pool"] == 8


def test_REI_T30_natural_weapons_bashing_and_lethal_conversion() -> None:
    """REI-T30: REI-4.3, REI-3.9 - a converted natural weapon adds its damage as bashing on a hit."""
    claws = {"id": "claws", "kind": "natural", "damage": 1, "lethal": True, "grab_suited": True, "specialty": "brawl"}
    c = combat(encounter(*defaults(a={"natural_weapons": [claws]}), start=at_turn(["A", "D"])), 8, 9, *[1] * 5)
    act(c, "melee_attack", "D", option="claws")
    assert rolls(c)[-1].data["pool"] == 10 and (F(c, "D").lethal, F(c, "D").bashing) == (2, 1)
    c = combat(encounter(*defaults(a={"natural_weapons": [claws]}), start=at_turn(["A", "D"])), *[1] * 7)
    act(c, "melee_attack", "D", option="claws")
    assert (F(c, "D").lethal, F(c, "D").bashing) == (0, 0)
    plain = {**claws, "lethal": False}
    c = combat(encounter(*defaults(a={"natural_weapons": [plain]}), start=at_turn(["A", "D"])), 8, 9, *[1] * 5)
    act(c, "melee_attack", "D", option="claws")
    assert (F(c, "D").lethal, F(c, "D").bashing) == (0, 2)


def test_REI_T31_bows_range_and_line_of_sight() -> None:
    """REI-T31: REI-4.5 - max(STR, DEX) for bows; range and line of sight limit the shot."""
    bow = {"id": "bow", "kind": "bow", "damage": 2, "specialty": "bows", "size": 2, "hands": 2, "range_m": 40,
           "ammo": {"capacity": 1, "loaded": 1, "spares": 0, "reload_kind": "bow"}}
    a = {"attributes": {"str": 4, "dex": 3, "int": 2, "com": 2, "sta": 3}, "items": [bow],
         "specialties": {**HUMAN_SPECS, "bows": 2}}
    c = combat(encounter(H("A", "P", (0, 5), **a), H("D", "N", (10, 5)), width=50, start=at_turn(["A", "D"])),
               *[1] * 10)
    act(c, "ranged_attack", "D", option="bow")
    assert rolls(c)[-1].data["pool"] == 12 and len(rolls(c)[-1].data["dice"][0]) == 10
    c = combat(encounter(H("A", "P", (0, 5), **a), H("D", "N", (41, 5)), width=50, start=at_turn(["A", "D"])))
    assert not has(c, "ranged_attack", "D", option="bow")
    c = combat(encounter(H("A", "P", (0, 5), **a), H("D", "N", (10, 5)), width=50,
                         cells=[{"at": [5, 5], "terrain": "wall"}], start=at_turn(["A", "D"])))
    assert not has(c, "ranged_attack", "D", option="bow")


def test_REI_T32_throwing_attribute_and_range() -> None:
    """REI-T32: REI-4.6, REI-4.7 - range attribute x 5 m, plus ES(STR) x 10 m for Strength."""
    def c_(dpos, n=0, **a):
        return combat(encounter(H("A", "P", (0, 5), items=[TKNIFE], **a), H("D", "N", dpos), width=20,
                                start=at_turn(["A", "D"])), *[1] * n)

    c = c_((15, 5), 6)
    assert has(c, "throw", "D", option=("tknife", "dex")) and has(c, "throw", "D", option=("tknife", "str"))
    act(c, "throw", "D", option=("tknife", "dex"))
    assert rolls(c)[-1].data["pool"] == 8
    c = c_((16, 5))
    assert not has(c, "throw", "D", option=("tknife", "dex")) and not has(c, "throw", "D", option=("tknife", "str"))
    c = c_((16, 5), 9, attributes={"str": 6, "dex": 3, "int": 2, "com": 2, "sta": 3})
    assert has(c, "throw", "D", option=("tknife", "str")) and not has(c, "throw", "D", option=("tknife", "dex"))
    act(c, "throw", "D", option=("tknife", "str"))
    assert rolls(c)[-1].data["pool"] == 11


def test_REI_T33_throwable_size_heavy_and_crushing_throws() -> None:
    """REI-T33: REI-4.6, REI-4.8, REI-4.9, REI-4.14 - lifting limits, heavy throws, crush knockback."""
    objs = [{"id": f"obj{s}", "kind": "object", "size": s, "damage": 1, "damage_type": "bashing",
             "location": [5, 6]} for s in (2, 3, 4)]
    c = combat(encounter(*defaults(), items=objs, start=at_turn(["A", "D"])))
    assert has(c, "pick_up", option="obj2") and has(c, "pick_up", option="obj3") and not has(c, "pick_up",
                                                                                             option="obj4")
    act(c, "pick_up", option="obj2")
    assert has(c, "throw", "D", option=("obj2", "dex")) and has(c, "throw", "D", option=("obj2", "str"))
    c = combat(encounter(*defaults(), items=objs, start=at_turn(["A", "D"])))
    act(c, "pick_up", option="obj3")
    assert not has(c, "throw", "D", option=("obj3", "dex")) and has(c, "throw", "D", option=("obj3", "str"))
    boulder = {"id": "boulder", "kind": "object", "size": 7, "damage": 3, "damage_type": "lethal", "hands": 2}
    strong = {"attributes": {"str": 10, "dex": 3, "int": 2, "com": 2, "sta": 3}, "items": [boulder]}
    c = combat(encounter(H("A", "P", (1, 5), **strong), H("D", "N", (5, 5)), start=at_turn(["A", "D"])),
               8, 8, 8, *[1] * 12, 8, *[1] * 5)
    opts = {a.option for a in c.legal_actions() if a.verb == "throw"}
    assert opts == {("boulder", "str")}
    act(c, "throw", "D", option=("boulder", "str"))
    r = rolls(c)[0].data
    assert (r["pool"], r["defence"], r["r"], r["t"], r["n"]) == (17, 2, 3, 4, 4)
    assert (F(c, "D").lethal, F(c, "D").bashing, F(c, "D").cell) == (0, 4, (8, 5)) and c.dice.remaining == 0
    assert kinds(c, "knockback")[0].data["distance"] == 3


def test_REI_T34_fast_throw() -> None:
    """REI-T34: REI-4.10 - the fast throw costs an extra swift (or higher) slot for high speed 4."""
    enc = encounter(H("A", "P", (5, 5), items=[TKNIFE, PISTOL]), H("D", "N", (10, 5), dodge_defense=6),
                    start=at_turn(["A", "D"]))
    c = combat(enc, 1)
    act(c, "throw", "D", option=("tknife", "dex"))
    assert rolls(c)[-1].data["defence"] == 7 and len(rolls(c)[-1].data["dice"][0]) == 1
    c = combat(enc, *[1] * 4)
    act(c, "throw", "D", option=("tknife", "dex", "fast"))
    assert rolls(c)[-1].data["defence"] == 4 and len(rolls(c)[-1].data["dice"][0]) == 4
    c = combat(enc)
    act(c, "aim", "D")
    assert has(c, "throw", "D", option=("tknife", "dex", "fast"))
    act(c, "parry")
    assert not has(c, "throw", "D", option=("tknife", "dex", "fast"))


def test_REI_T35_vehicle_weapon_ignores_driver_bonuses() -> None:
    """REI-T35: REI-4.12 - INT + tools + vehicle_operation + precision_operation + weapon damage only."""
    def c_(lethal=0, n=7):
        v = H("V", "P", None, attributes={"str": 3, "dex": 3, "int": 3, "com": 2, "sta": 3},
              skills={"martial": 3, "athletics": 2, "lore": 1, "tools": 2, "stealth": 1, "insight": 1},
              specialties={**HUMAN_SPECS, "vehicle_operation": 2, "precision_operation": 1}, items=[PISTOL],
              in_vehicle="buggy")
        rage = {"name": "Rage", "duration": "combat", "modifiers": {"attack_dp": 2}}
        enc = encounter(v, H("D", "N", (8, 5)), vehicles=[{"use": "buggy", "id": "buggy", "position": [2, 5],
                                                              "driver": "V"}],
                        start=at_turn(["V", "D"], actor="V", V={"effects": [rage], "lethal": lethal}))
        return combat(enc, *[1] * n)

    c = c_()
    act(c, "vehicle_attack", "D", option="nail_gun")
    assert rolls(c)[-1].data["pool"] == 9 and len(rolls(c)[-1].data["dice"][0]) == 7
    c = c_(lethal=6, n=6)
    act(c, "vehicle_attack", "D", option="nail_gun")
    assert len(rolls(c)[-1].data["dice"][0]) == 6
    c = c_(n=11)
    act(c, "ranged_attack", "D", option="pistol")
    assert rolls(c)[-1].data["pool"] == 13 and len(rolls(c)[-1].data["dice"][0]) == 11


def test_REI_T36_driving_and_crushing() -> None:
    """REI-T36: REI-2.15, REI-4.13, REI-4.14 - drive limits, crush pool, reflex save and knockback."""
    v = H("V", "P", None, attributes={"str": 3, "dex": 3, "int": 3, "com": 2, "sta": 3},
          skills={"martial": 3, "athletics": 2, "lore": 1, "tools": 2, "stealth": 1, "insight": 1},
          specialties={**HUMAN_SPECS, "vehicle_operation": 2, "precision_operation": 1}, in_vehicle="buggy")
    buggy = {"use": "buggy", "id": "buggy", "position": [0, 5], "driver": "V"}
    c = combat(encounter(v, H("D", "N", (39, 11)), width=40, vehicles=[buggy], start=at_turn(["V", "D"], actor="V")))
    assert has(c, "drive", dest=(16, 5)) and not has(c, "drive", dest=(17, 5))
    assert has(c, "drive_fast", dest=(32, 5)) and not has(c, "drive_fast", dest=(33, 5))
    assert has(c, "acro_drive", dest=(32, 5))
    act(c, "acro_drive", dest=(32, 5))
    assert [e.data["slot"] for e in kinds(c, "slot_spent")] == ["standard"]
    c = combat(encounter(v, H("D", "N", (6, 5)), vehicles=[buggy],
                         start=at_turn(["V", "D"], actor="V", D={"parry_value": 2})),
               8, 9, *[1] * 6, *[1] * 6)
    act(c, "vehicle_crush", "D", (-1, 0), "normal")
    assert [e.data["slot"] for e in kinds(c, "slot_spent")] == ["standard", "move"]
    assert kinds(c, "movement")[0].data["cost"] == 5
    r = rolls(c)[0].data
    assert (r["pool"], r["defence"]) == (11, 3) and F(c, "D").bashing == 2 and F(c, "D").cell == (8, 5)
    c = combat(encounter(v, H("D", "N", (6, 5), size=7), vehicles=[buggy], start=at_turn(["V", "D"], actor="V")))
    assert not any(a.verb == "vehicle_crush" for a in c.legal_actions())


def test_REI_T37_spell_attack() -> None:
    """REI-T37: REI-4.15, REI-4.1 - INT + lore + casting + best other mana specialty + power."""
    def c_(spec="casting", n=11):
        w = H("A", "P", (2, 5), attributes={"str": 3, "dex": 3, "int": 5, "com": 2, "sta": 3},
              skills={"martial": 3, "athletics": 2, "lore": 4, "tools": 0, "stealth": 1, "insight": 1},
              specialties={**HUMAN_SPECS, "casting": 3, "mana_burst": 2, "mana_sense": 1},
              spells=[{"id": "bolt", "power": 2, "range_m": 30, "damage_type": "lethal", "specialty": spec}])
        enc = encounter(w, H("D", "N", (8, 5), start={"in_cover": [9, 5]}),
                        cells=[{"at": [9, 5], "object": {"name": "barrel", "cover": 2}}], start=at_turn(["A", "D"]))
        return combat(enc, *[1] * n)

    c = c_()
    act(c, "cast", "D", option="bolt")
    assert (rolls(c)[-1].data["pool"], rolls(c)[-1].data["defence"]) == (16, 5)
    c = c_("mana_burst", 9)
    act(c, "cast", "D", option="bolt")
    assert rolls(c)[-1].data["pool"] == 14
    assert SWORD
