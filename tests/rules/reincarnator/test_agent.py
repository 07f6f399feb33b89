"""The scripted reincarnator agent beats random play and always answers with a legal action."""

from __future__ import annotations

from trpg_arena.agents import RandomAgent, make_agent
from trpg_arena.rules import Combat, load_encounter
from trpg_arena.table.session import play


def test_scripted_agent_beats_random_on_skirmish() -> None:
    enc = load_encounter("reincarnator/skirmish")
    wins = 0
    for s in range(12):
        c = Combat(enc, seed=s)
        me = c.sides[s % 2]
        other = [x for x in c.sides if x != me][0]
        out = play(c, {me: make_agent("scripted", "reincarnator", seed=s), other: RandomAgent(seed=100 + s)})
        wins += out.winner == me
    assert wins >= 10


def test_scripted_self_play_finishes_on_every_builtin() -> None:
    for name in ("duel", "skirmish", "brawl"):
        c = Combat(f"reincarnator/{name}", seed=4)
        agents = [make_agent("scripted", "reincarnator", seed=i) for i in range(2)]
        assert play(c, agents).result is not None
