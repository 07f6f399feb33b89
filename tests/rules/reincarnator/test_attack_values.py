"""The scripted policy's attack values, kept per encounter under the fields they read: equal to fresh ones in play."""

from __future__ import annotations

from trpg_arena.agents import RandomAgent, make_agent
from trpg_arena.rules import Combat
from trpg_arena.rules.core.ranking import grouped_by_verb
from trpg_arena.rules.reincarnator import tactics
from trpg_arena.rules.reincarnator.tactics import ATTACKS, ReincarnatorTactics


def test_kept_attack_values_equal_fresh_ones() -> None:
    policy = ReincarnatorTactics("reincarnator")
    checked = kept = 0
    for name, seeds in (("reincarnator/skirmish", range(4)), ("reincarnator/brawl", range(2))):
        for seed in seeds:
            c = Combat(name, seed=seed)
            agents = {s: (make_agent("scripted", "reincarnator", seed=seed + i) if i % 2 == 0 else RandomAgent(seed=i))
                      for i, s in enumerate(c.sides)}
            while not c.over:
                d = c.decision
                assert d is not None
                if d.step not in ("attack_declared", "grapple_resist"):
                    by = grouped_by_verb(c.legal_actions())
                    table = c.tables.memo.get(tactics._VALUES, {})
                    before = len(table)
                    values = policy.attack_values(c, d.actor, by)
                    assert [a for _, a in values] == [a for v in ATTACKS for a in by.get(v, [])]
                    for value, a in values:
                        assert value == policy.expected(c, d.actor, a), a  # worked out afresh in this state
                        checked += 1
                    kept += len(c.tables.memo.get(tactics._VALUES, {})) == before and any(a.target for _, a in values)
                c.act(agents[c.side_of(d.actor)].act(c))
    assert checked > 1000
    assert kept > 20  # decisions whose every targeted value came from the table
