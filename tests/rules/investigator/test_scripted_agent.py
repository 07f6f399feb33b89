"""The scripted investigator agent: registered, always legal, and clearly better than random play."""

from __future__ import annotations

from trpg_arena.agents import RandomAgent, make_agent
from trpg_arena.rules import Combat, load_encounter
from trpg_arena.table.session import play


def test_scripted_agent_beats_random_on_skirmish() -> None:
    enc = load_encounter("investigator/skirmish")
    wins = 0
    games = 20
    for g in range(games):
        scripted = make_agent("scripted", "investigator", seed=g)
        c = Combat(enc, seed=g)
        me = c.sides[g % 2]
        agents = [scripted, RandomAgent(seed=100 + g)] if g % 2 == 0 else [RandomAgent(seed=100 + g), scripted]
        wins += play(c, agents).winner == me
    assert wins >= 14


def test_scripted_agent_plays_itself_on_every_builtin() -> None:
    for name in ("investigator/duel", "investigator/brawl"):
        c = Combat(name, seed=4)
        out = play(c, [make_agent("scripted", "investigator", seed=1), make_agent("scripted", "investigator", seed=2)])
        assert out.result is not None
