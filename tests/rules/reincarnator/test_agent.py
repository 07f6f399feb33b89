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


def test_a_turn_that_ends_rather_than_throw_its_own_weapon_says_so() -> None:
    # the skirmish's skulker opens hidden with only its knife to throw: the policy keeps its weapon (an
    # improvised throw deals bashing damage without the knife's damage), and says that rather than calling an
    # 88 % throw worth nothing; each throw in the runners-up says what it would cost
    c = Combat("reincarnator/skirmish", seed=3)
    assert c.decision is not None and c.decision.actor == "skulker"
    p = make_agent("scripted", "reincarnator", seed=0).propose(c)
    assert p.action.verb == "end_turn"
    assert p.reasons[0].startswith("skulker's only attacks from here would throw its knife away")
    throws = [a for a in p.alternatives if a.action.verb == "throw"]
    assert throws and all(a.reason == "would throw skulker's knife away (an improvised throw, bashing, no weapon "
                                       "damage)" for a in throws)
