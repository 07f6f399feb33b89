"""The attack pool's memoised part: the same pool and parts as worked out afresh, in every state met in play."""

from __future__ import annotations

from tests.rules.reincarnator.helpers import own_turn_states
from trpg_arena.rules import Combat
from trpg_arena.rules.reincarnator import attack_math
from trpg_arena.rules.reincarnator.actions import opts, uid
from trpg_arena.rules.reincarnator.attack_math import attack_dice, attack_pool
from trpg_arena.rules.reincarnator.state import Pending
from trpg_arena.rules.reincarnator.tactics import ATTACKS, ReincarnatorTactics


def _fresh(combat: Combat, p: Pending, target: str) -> tuple[int, str, dict[str, int]]:
    """`attack_pool` with nothing memoised: the parts from the specs, then this state's modifiers."""
    pool, key, parts = attack_math._pool_parts(combat, p, target)
    mods = attack_math._pool_mods(combat, p, target)
    parts.update({f"mod_{k}": m for k, m in mods.items()})
    return pool + sum(mods.values()), key, parts


def test_memoised_pools_equal_fresh_ones() -> None:
    checked = 0
    for c, d in own_turn_states():
        for a in c.legal_actions():
            if a.verb not in ATTACKS or a.target is None:
                continue
            o = tuple(uid(c, d.actor, x) for x in opts(a))
            p = ReincarnatorTactics.pending_of(c, d.actor, a, o)
            try:
                fresh = _fresh(c, p, a.target)
            except (KeyError, AssertionError, AttributeError):
                continue
            assert attack_pool(c, p, a.target) == fresh, a
            assert attack_dice(c, p, a.target) == fresh[0], a
            checked += 1
    assert checked > 300
