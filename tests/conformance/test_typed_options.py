"""A tuple option is typed per verb in every system: no catalogue hands out a bare tuple.

The rules read an option with parts by name (kiai's `AttackOption`, moonlit's `SkillChoice`,
reincarnator's `AllOut`, `IntoGrapple`, `SoftGrapple` and `ThrowOption`), which works because the
catalogue and the legal sets carry those types and `Combat.act` applies the legal set's own action.
A bare tuple built somewhere would be read by position again, or break a read by name.
"""

from __future__ import annotations

import pytest

from tests.conftest import SYSTEMS
from trpg_arena.rules import RULESETS, builtin_encounters, load_encounter


@pytest.mark.parametrize("rid", SYSTEMS)
def test_no_catalogue_hands_out_a_bare_tuple_option(rid: str) -> None:
    for name in builtin_encounters(RULESETS[rid]):
        bare = [a.describe() for a in RULESETS[rid].action_catalogue(load_encounter(name))
                if type(a.option) is tuple]
        assert not bare, f"{name}: {len(bare)} bare tuple options, e.g. {bare[:3]}"
