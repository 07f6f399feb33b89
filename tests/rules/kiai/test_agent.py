"""The scripted kiai agent: legal choices, sensible reactions, and it beats random play."""

from __future__ import annotations

from tests.rules.kiai.helpers import atk, fixture, play
from trpg_arena.agents import RandomAgent, make_agent
from trpg_arena.rules import Action, Combat
from trpg_arena.table.session import play as play_to_end


def test_scripted_agent_beats_random_on_skirmish() -> None:
    wins = 0
    for g in range(12):
        sc, rd = make_agent("scripted", "kiai", seed=g), RandomAgent(seed=100 + g)
        c = Combat("kiai/skirmish", seed=g)
        out = play_to_end(c, [rd, sc] if g % 2 else [sc, rd])
        wins += out.winner == c.sides[g % 2]
    assert wins >= 9


def test_scripted_agent_dodges_area_and_counter_strikes() -> None:
    c = play(fixture(), "d100=30", atk("B"))
    a = make_agent("scripted", "kiai", seed=0)
    assert a.act(c) in c.legal_actions()
    c = play(fixture(), "")
    assert a.act(c).verb in {"attack", "feint", "two_weapon_attack"}


def test_scripted_agent_closes_in() -> None:
    c = play(fixture(a={"position": [0, 0]}, b={"position": [6, 0]}), "")
    act = make_agent("scripted", "kiai", seed=0).act(c)
    assert act.verb == "move" and act.dest is not None
    c.act(act)
    assert c.decision.actor == "A" and Action("attack", "B", None, (0, False, "")) in c.legal_actions()
