"""What the log says agrees with the rule that acted: the cause of each level up, a counter without a
comparison, and the rule a resisted spell or a missed technique cites (KIA-9.4, 10.2, 10.3, 22.2, 23.1)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rules.kiai.helpers import DODGE, NO_REACTION, atk, fixture, play
from trpg_arena.rules import Action, Combat


def _last(c: Combat, kind: str) -> Any:
    return [e for e in c.log if e.kind == kind][-1]


@pytest.mark.rule("KIA-9.4")
@pytest.mark.parametrize(("reaction", "cause"), [("attack_defense", "the failed attack-defense"),
                                                 ("counter", "the failed counter")])
def test_KIA_9_4_a_level_up_names_the_failed_defence(reaction: str, cause: str) -> None:
    """KIA-9.4 / KIA-10.3: a normal hit whose attack-defense (or counter) fails goes up a level for that."""
    c = play(fixture(), "d100=30 d100=90 d10=1 d10=2 d10=1", atk("B"), Action(reaction))
    wound = _last(c, "wound_recorded")
    assert wound.data["rises"] == 1
    assert f"1 level up for {cause}:" in wound.text and "critical" not in wound.text


@pytest.mark.rule("KIA-10.2")
def test_KIA_10_2_without_the_comparison_flag_no_winner_is_named() -> None:
    """KIA-10.2, `counter_requires_winning: false`: every successful counter strikes back, no comparison is won."""
    c = play(fixture(options={"counter_requires_winning": False}),
             "d100=30 d100=10 d10=9 d10=8 d10=1 d10=2 d10=1", atk("B"), Action("counter"), NO_REACTION)
    assert not [e for e in c.log if e.kind == "comparison"]
    unopposed = _last(c, "counter_unopposed")
    assert unopposed.rule == "KIA-10.2" and "without a comparison" in unopposed.text
    resolved = [e.text for e in c.log if e.kind == "strike_resolved"]
    assert resolved == ["A's melee strike at B: blocked by counter (SUCCESS)",
                        "B's counter strike at A: lands (SUCCESS)"]


@pytest.mark.rule("KIA-22.2")
def test_KIA_22_2_a_resisted_spell_cites_the_spell_rule() -> None:
    """KIA-22.2: magic defence resists a spell; the `resisted` event cites KIA-22.2, not the techniques' KIA-23.2."""
    c = play(fixture(a={"knows": ["sleep"]}, b={"position": [6, 0]}), "d100=30 d100=15",
             Action("use_ability", "B", None, "sleep"))
    assert _last(c, "resisted").rule == "KIA-22.2"


@pytest.mark.rule("KIA-23.1")
def test_KIA_23_1_a_dodged_melee_technique_missed_its_blow() -> None:
    """KIA-23.1: a melee technique dodged fails; it was a blow, not a touch."""
    c = play(fixture(a={"knows": ["stunning_blow"]}), "d100=30 d100=10",
             Action("use_ability", "B", None, "stunning_blow"), DODGE)
    failed = _last(c, "ability_failed")
    assert failed.rule == "KIA-23.1" and failed.text.endswith("fails (the blow missed)")
