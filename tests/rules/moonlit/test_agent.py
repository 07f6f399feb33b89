"""The scripted agent: registered, legal, and much stronger than random play."""

from __future__ import annotations

from trpg_arena.agents import RandomAgent, make_agent
from trpg_arena.rules import Combat, load_encounter
from trpg_arena.table.session import play


def test_scripted_agent_beats_random_on_skirmish() -> None:
    enc = load_encounter("moonlit/skirmish")
    wins = 0
    n = 20
    for s in range(n):
        scripted = make_agent("scripted", "moonlit", seed=s)
        rnd = RandomAgent(seed=100 + s)
        swap = s % 2 == 1
        out = play(Combat(enc, seed=s), [rnd, scripted] if swap else [scripted, rnd])
        wins += out.result == ("B" if swap else "A")
    assert wins >= 16


def test_scripted_agent_plays_every_builtin_encounter() -> None:
    for name in ("moonlit/duel", "moonlit/brawl"):
        c = Combat(name, seed=4)
        out = play(c, [make_agent("scripted", "moonlit", seed=1), make_agent("scripted", "moonlit", seed=2)])
        assert out.result in ("A", "B", "draw")


def test_decision_sentences_are_readable() -> None:
    c = Combat("moonlit/skirmish", seed=1)
    play(c, [make_agent("scripted", "moonlit", seed=1), RandomAgent(seed=2)])
    texts = [e.text for e in c.log if e.kind in ("decision", "auto_decision")]
    assert any("attacks with" in t for t in texts)
