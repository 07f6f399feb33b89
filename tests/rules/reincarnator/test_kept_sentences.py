"""Sentences kept across decisions (an action's GM sentence, a roll's named parts) against fresh ones in play."""

from __future__ import annotations

from typing import Any

from tests.rules.reincarnator.helpers import own_turn_states
from trpg_arena.rules import Action, Combat
from trpg_arena.rules.reincarnator import attack, catalogue
from trpg_arena.rules.reincarnator.catalogue import RELATIVE_DEST, describe_action


def test_kept_sentences_equal_fresh_ones() -> None:
    checked = relative = rolls = 0
    games: dict[int, Any] = {}
    for c, _d in own_turn_states():
        games[id(c)] = c
        for a in c.legal_actions():
            assert describe_action(c, a) == catalogue._sentence(c, a), a  # worked out afresh in this state
            checked += 1
            relative += a.verb in RELATIVE_DEST
    assert checked > 10_000 and relative > 500  # a charge's end cell reads its target's cell: never kept
    for c in games.values():
        for e in c.log:
            if e.kind == "roll" and "defence_parts" in e.data:  # an attack's roll: both its parts named
                data = e.data
                head = (f"{e.actor} rolls {data['pool']}{attack._named(dict(data['parts']))} - {data['defence']} "
                        f"defence{attack._named(dict(data['defence_parts']))} = ")
                assert e.text.startswith(head), e.text
                rolls += 1
    assert len(games) == 6 and rolls > 50


def test_an_action_with_a_list_is_worded_as_it_is() -> None:
    c = Combat("reincarnator/skirmish", seed=0)
    kept = Action("move", dest=(3, 4))
    loose = Action._make(("move", None, [3, 4], None))  # a caller's action read from JSON: unhashable
    assert describe_action(c, loose) == describe_action(c, kept) == "move to 3,4"
