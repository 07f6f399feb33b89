"""Pools, extra successes, defences and the health track (REI groups 3 and 4.11; scenarios T1-T8, T62)."""

from __future__ import annotations

import pytest

from tests.rules.reincarnator import helpers
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
from trpg_arena.rules.reincarnator.data import es
from trpg_arena.rules.reincarnator.pools import overlap

STANDARD = {"melee_attack", "ranged_attack", "throw", "cast", "bull_rush", "grapple", "full_defense", "charge"}


def duel(a=None, d=None, options=None, **per):
    return encounter(*defaults(a=a, d=d), options=options, start=at_turn(["A", "D"], **per))


@pytest.mark.rule("REI-3.1")
def test_REI_T1_basic_melee_hit_explosions_lethal() -> None:
    """REI-T1: REI-3.1, REI-3.8, REI-3.9, REI-4.4, REI-2.17 - pool 11 - 3, two explosion batches, 4 lethal."""
    c = combat(duel(), 8, 3, 10, 2, 1, 5, 9, 4, 10, 3)
    act(c, "melee_attack", "D", option="sword")
    r = rolls(c)[-1].data
    assert (r["pool"], r["defence"], r["dice"]) == (11, 3, [[8, 3, 10, 2, 1, 5, 9, 4], [10], [3]])
    assert (r["r"], r["t"], r["n"]) == (4, 4, 4)
    assert kinds(c, "hit") and (F(c, "D").lethal, F(c, "D").bashing, F(c, "D").status) == (4, 0, "active")
    assert not (verbs(c) & STANDARD) and "move" in verbs(c)
    assert c.dice.remaining == 0


def test_REI_T2_chance_die() -> None:
    """REI-T2: REI-3.2, REI-3.12 - pool 9 - defence 9 = 0 rolls one chance die; only a 10 succeeds."""
    d = {"base_defense": 6, "dodge_defense": 3}
    c = combat(duel(d=d), 10)
    act(c, "melee_attack", "D", option="unarmed")
    assert rolls(c)[-1].data["dice"] == [[10]] and F(c, "D").bashing == 1 and c.dice.remaining == 0
    c = combat(duel(d=d), 9)
    act(c, "melee_attack", "D", option="unarmed")
    assert kinds(c, "miss") and F(c, "D").bashing == 0


def test_REI_T3_extra_successes() -> None:
    """REI-T3: REI-3.3 - ES table; ES added only to a success; option extra_successes."""
    assert [es(v) for v in (5, 6, 10, 11, 15, 16, 21)] == [0, 1, 1, 2, 2, 3, 4]
    a = {"attributes": {"str": 6, "dex": 3, "int": 2, "com": 2, "sta": 3}}
    c = combat(duel(a=a), 8, *[1] * 8)
    act(c, "melee_attack", "D", option="unarmed")
    assert rolls(c)[-1].data["pool"] == 12 and rolls(c)[-1].data["t"] == 2 and F(c, "D").bashing == 2
    c = combat(duel(a=a), *[1] * 9)
    act(c, "melee_attack", "D", option="unarmed")
    assert rolls(c)[-1].data["t"] == 0 and kinds(c, "miss")
    c = combat(duel(a=a, options={"extra_successes": False}), 8, *[1] * 8)
    act(c, "melee_attack", "D", option="unarmed")
    assert F(c, "D").bashing == 1


def test_REI_T4_base_defence_extra_successes_and_penetration() -> None:
    """REI-T4: REI-3.6, REI-5.8 - base-defence ES kept while bd_eff >= 1 or under full defence."""
    d = {"base_defense_es": 1}
    c = combat(duel(d=d), 8, 9, *[1] * 6)
    act(c, "melee_attack", "D", option="sword")
    assert rolls(c)[-1].data["n"] == 1 and F(c, "D").lethal == 1
    pen2 = {"items": [item(SWORD, penetration=2)]}
    c = combat(duel(a=pen2, d=d), 8, 9, *[1] * 8)
    act(c, "melee_attack", "D", option="sword")
    assert rolls(c)[-1].data["defence"] == 1 and rolls(c)[-1].data["n"] == 2 and F(c, "D").lethal == 2
    c = combat(duel(a=pen2, d=d, D={"full_defense": True}), 8, 9, *[1] * 7)
    act(c, "melee_attack", "D", option="sword")
    assert rolls(c)[-1].data["defence"] == 2 and rolls(c)[-1].data["n"] == 1
    c = combat(duel(a={"items": [item(SWORD, penetration=1)]}, d=d), 8, 9, *[1] * 7)
    act(c, "melee_attack", "D", option="sword")
    assert rolls(c)[-1].data["defence"] == 2 and rolls(c)[-1].data["n"] == 1


def test_REI_T5_health_track_upgrade_incapacitation() -> None:
    """REI-T5: REI-3.10, REI-2.19 - bashing upgrades, unconscious ends the combat, dying, dead."""
    c = combat(duel(D={"lethal": 2, "bashing": 5}), 8, 8, 8, 1, 1, 1)
    act(c, "melee_attack", "D", option="unarmed")
    assert (F(c, "D").lethal, F(c, "D").bashing, F(c, "D").status) == (4, 4, "unconscious")
    assert c.over and c.result == "P"
    c = combat(duel(D={"lethal": 7}), 8, 8, *[1] * 6)
    act(c, "melee_attack", "D", option="sword")
    assert F(c, "D").status == "dead" and F(c, "D").overkill == 1
    c = combat(duel(D={"lethal": 6, "bashing": 1}), 8, 8, *[1] * 6)
    act(c, "melee_attack", "D", option="sword")
    assert (F(c, "D").lethal, F(c, "D").bashing, F(c, "D").status) == (8, 0, "dying")


def test_REI_T6_wound_penalties() -> None:
    """REI-T6: REI-3.11 - -1 / -2 on own pools with two / one empty boxes; not on initiative."""
    for lethal, opts, n in ((6, None, 7), (7, None, 6), (7, {"wound_penalties": False}, 8)):
        enc = encounter(*defaults(), options=opts, start=at_turn(["A", "D"], actor="D", D={"lethal": lethal}))
        c = combat(enc, *[1] * n)
        act(c, "melee_attack", "A", option="sword")
        assert len(rolls(c)[-1].data["dice"][0]) == n
    c = combat(encounter(*defaults(d={"start": {"lethal": 7}})), 10, 4)
    assert F(c, "D").init_total == 9


def test_REI_T7_attack_classes_and_high_speed() -> None:
    """REI-T7: REI-3.5, REI-4.11 - which defences and how much high speed each class meets."""
    bow = {"id": "bow", "kind": "bow", "damage": 2, "specialty": "bows", "size": 2, "range_m": 40,
           "ammo": {"capacity": 1, "loaded": 1, "spares": 0, "reload_kind": "bow"}}
    gauss = {"id": "gauss", "kind": "gauss", "damage": 4, "specialty": "rifles", "size": 3, "hands": 2,
             "range_m": 100, "ammo": {"capacity": 5, "loaded": 5, "reload_kind": "magazine"}}
    spell = {"id": "bolt", "power": 2, "range_m": 30}

    def defence(action, weapons, pos=(10, 5), options=None, **kw):
        a = {"items": weapons, "spells": [spell], "hands": 4}
        d = {"dodge_defense": 6, "start": {"in_cover": [pos[0] + 1, pos[1]]}}
        enc = encounter(H("A", "P", (5, 5), **a), H("D", "N", pos, **d), options=options,
                        cells=[{"at": [pos[0] + 1, pos[1]], "object": {"name": "crate", "cover": 3}}],
                        start=at_turn(["A", "D"]))
        c = combat(enc, *[1] * 30)
        act(c, action, "D", option=kw["option"])
        helpers.CREATED.remove(c)  # this scenario checks defence values only; the pools vary
        return rolls(c)[-1].data["defence"]

    assert defence("melee_attack", [SWORD], pos=(6, 5), option="sword") == 8
    assert defence("ranged_attack", [PISTOL], option="pistol") == 6
    assert defence("ranged_attack", [bow], option="bow") == 8
    assert defence("throw", [TKNIFE], option=("tknife", "dex")) == 10
    assert defence("throw", [TKNIFE], option=("tknife", "dex", "fast")) == 7
    assert defence("ranged_attack", [gauss], option="gauss") == 5
    assert defence("cast", [], option="bolt") == 11
    assert defence("ranged_attack", [PISTOL], option="pistol", options={"high_speed_rule": "off"}) == 11
    assert defence("ranged_attack", [PISTOL], option="pistol", options={"base_defense_vs_ranged": False}) == 4


def test_REI_T8_order_of_dodge_modifiers() -> None:
    """REI-T8: REI-3.7, REI-6.6 - doubled, then halved (off-guard), then minus high speed."""
    for weapon, n in (("sword", 8), ("pistol", 11)):
        enc = encounter(H("S", "P", (5, 5), items=[SWORD, PISTOL], start={"hidden": True}),
                        H("D", "N", (6, 5), dodge_defense=3),
                        start={"round": 1, "order": ["S", "D"], "actor": "S", "fresh_turn": False,
                               "combatants": {"D": {"full_defense": True}}})
        c = combat(enc, *[1] * n)
        act(c, "melee_attack" if weapon == "sword" else "ranged_attack", "D", option=weapon)
        assert len(rolls(c)[-1].data["dice"][0]) == n and c.dice.remaining == 0


def test_REI_T62_overlap_formula() -> None:
    """REI-T62: REI-8.2 - the overlap of simultaneous explosives."""
    cases = {(6, 6): 8, (6, 6, 6): 8, (6, 6, 6, 6): 10, (10, 4, 4, 4): 13, (6, 3): 6, (3,) * 10: 6, (2, 2, 2): 2}
    for ratings, want in cases.items():
        assert overlap(list(ratings)) == want, ratings
    assert has  # keep helper import used
