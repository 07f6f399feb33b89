"""Weapon breaking, disarming, unarmed strikes, picking up and readying weapons (KIA-4.3, KIA-18, KIA-19, KIA-24.2)."""

from __future__ import annotations

import pytest

from tests.rules.kiai.helpers import DODGE, NO_REACTION, atk, fixture, play, wounds
from trpg_arena.rules import Action

BREAK = Action("break_weapon", "B")
DISARM = Action("disarm", "B")


def _sword(level: int = 1, magic: bool = False) -> list[dict]:
    return [{"id": "sword", "level": level, "category": "sword", "hands": 1, "reach": 1, "magic": magic}]


@pytest.mark.rule("KIA-T38")
def test_KIA_T38_weapon_breaking() -> None:
    """KIA-T38: KIA-18.1, KIA-18.2 - hit halved; damage above level x 50 + dexterity + strength breaks."""
    b = {"weapons": _sword(1), "dexterity": 5, "strength": 5}
    c = play(fixture(a={"attack": 45}, b=b), "d100=20 d100=50 d10=8 d10=9", BREAK)
    chk = [e for e in c.log if e.kind == "check"][0].data
    assert (chk["V"], chk["C"]) == (30, 3) and c.legal_actions() == [DODGE, NO_REACTION]
    c.act(DODGE)
    bf = c.state.fighters["B"]
    assert bf.main == "" and "B/sword" not in bf.carried and wounds(c, "B") == {}
    assert any(e.kind == "weapon_broken" for e in c.log) and c.dice.remaining == 0
    c = play(fixture(a={"attack": 45}, b=b), "d100=20 d100=50 d10=7 d10=8", BREAK, DODGE)
    assert c.state.fighters["B"].main == "B/sword" and c.dice.remaining == 0


@pytest.mark.rule("KIA-T39")
@pytest.mark.parametrize("b_attack, broken", [(104, True), (103, False)])
def test_KIA_T39_breaking_back(b_attack, broken) -> None:
    """KIA-T39: KIA-18.3 - a surviving weapon breaks back automatically."""
    c = play(fixture(a={"attack": 10}, b={"attack": b_attack}), "d100=20 d10=8 d10=9 d10=9 d10=8", BREAK,
             NO_REACTION)
    assert c.state.fighters["B"].main == "B/sword"
    assert (c.state.fighters["A"].main == "") is broken and c.dice.remaining == 0


@pytest.mark.rule("KIA-T40")
def test_KIA_T40_what_cannot_be_broken() -> None:
    """KIA-T40: KIA-18.4 - magic or higher-level weapons, unless `break_restrictions` is false."""
    def verbs(enc):
        return {(a.verb, a.target) for a in play(enc, "").legal_actions()}
    assert ("break_weapon", "B") not in verbs(fixture(b={"weapons": _sword(2, magic=True)}))
    assert ("break_weapon", "B") not in verbs(fixture(b={"weapons": _sword(3)}))
    assert ("break_weapon", "B") in verbs(fixture(b={"weapons": _sword(3)}, options={"break_restrictions": False}))
    assert ("break_weapon", "B") in verbs(fixture(b={"weapons": _sword(2, magic=True)},
                                                  options={"break_restrictions": False}))
    v = verbs(fixture(b={"weapons": [], "main": None}))
    assert ("break_weapon", "B") not in v and ("disarm", "B") not in v
    v = verbs(fixture(a={"weapons": [], "main": None}))
    assert ("break_weapon", "B") not in v and ("disarm", "B") in v


@pytest.mark.rule("KIA-T41")
def test_KIA_T41_disarm_catch_unarmed_pick_up() -> None:
    """KIA-T41: KIA-4.3, KIA-19.1, KIA-19.2, KIA-19.3, KIA-24.2."""
    c = play(fixture(), "d100=25 d100=90 d100=30", DISARM, DODGE)
    chk = [e for e in c.log if e.kind == "check"]
    assert chk[0].data["V"] == 30 and chk[-1].data["V"] == 24
    assert c.state.fighters["B"].main == "" and c.state.ground == [((3, 0), "B/sword")]
    assert c.decision.actor == "B"
    legal = c.legal_actions()
    assert Action("pick_up", option="B/sword") in legal and atk("A") in legal
    alt = c.clone()
    alt.dice = type(c.dice)([(100, 30), (10, 1)])
    alt.act(atk("A"))
    alt.act(NO_REACTION)
    dmg = [e for e in alt.log if e.kind == "damage_rolled"][-1].data
    assert dmg["total"] == 10 and dmg["dice"] == [] and wounds(alt, "A") == {}
    c.dice = type(c.dice)([(10, 10), (10, 1)])
    c.act(Action("pick_up", option="B/sword"))
    assert c.state.fighters["B"].main == "B/sword" and c.state.ground == []
    assert c.round == 2 and c.decision.actor == "A" and c.decision.step == "D1" and c.dice.remaining == 0
    c = play(fixture(), "d100=25 d100=90 d100=24", DISARM, DODGE)
    assert c.state.fighters["B"].main == "B/sword" and c.state.ground == []


@pytest.mark.rule("KIA-T54")
def test_KIA_T54_readying_a_weapon() -> None:
    """KIA-T54: KIA-24.2 - a two-handed weapon empties the off hand; the old main weapon is carried."""
    c = play(fixture(a={"extra_weapons": ["dagger", "axe"], "off_hand": "dagger"}), "",
             Action("ready_weapon", option="A/axe"))
    a = c.state.fighters["A"]
    assert a.main == "A/axe" and a.off == "" and sorted(a.carried) == ["A/dagger", "A/sword"]
    assert c.decision.actor == "B" and c.decision.step == "D1"
