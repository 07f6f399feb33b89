"""The scripted policy's attack values, kept per encounter under the fields they read: equal to fresh ones in play."""

from __future__ import annotations

from typing import Any

from tests.rules.reincarnator.helpers import own_turn_states
from trpg_arena.rules.core.ranking import grouped_by_verb
from trpg_arena.rules.reincarnator import tactics
from trpg_arena.rules.reincarnator.tactics import ATTACKS, ReincarnatorTactics


def _values_kept(c: Any) -> int:
    """How many attack values the encounter's table holds (per attacker and target with their fields)."""
    return sum(map(len, c.tables.memo.get(tactics._VALUES, {}).values()))


def test_kept_attack_values_equal_fresh_ones() -> None:
    policy = ReincarnatorTactics("reincarnator")
    checked = kept = 0
    for c, d in own_turn_states():
        by = grouped_by_verb(c.legal_actions())
        before = _values_kept(c)
        values = policy.attack_values(c, d.actor, by)
        assert [a for _, a in values] == [a for v in ATTACKS for a in by.get(v, [])]
        for value, a in values:
            assert value == policy.expected(c, d.actor, a), a  # worked out afresh in this state
            checked += 1
        kept += _values_kept(c) == before and any(a.target for _, a in values)
    assert checked > 1000
    assert kept > 20  # decisions whose every targeted value came from the table
