"""A ``use_skill`` option that names a summon or a condition is a `SkillChoice`, read as the plain tuple.

The legal set and the catalogue carry it; an action read back from JSON carries the plain tuple, equal
to it, and plays the same because `Combat.act` applies the legal set's own action.
"""

from __future__ import annotations

import json

from trpg_arena.agents import RandomAgent
from trpg_arena.rules import RULESETS, Action, Combat, builtin_encounters, load_encounter
from trpg_arena.rules.moonlit.verbs import SkillChoice, Verb


def _wire(a: Action) -> Action:
    return Action.from_json(json.loads(json.dumps(a.to_json())))


def test_every_skill_choice_is_typed_and_reads_as_the_wire_tuple() -> None:
    for name in builtin_encounters(RULESETS["moonlit"]):
        for a in RULESETS["moonlit"].action_catalogue(load_encounter(name)):
            if a.verb == Verb.USE_SKILL and isinstance(a.option, tuple):
                assert type(a.option) is SkillChoice, f"{name}: {a.describe()}"
                plain = _wire(a)
                assert type(plain.option) is tuple and plain == a and hash(plain) == hash(a)
                assert repr(plain) == repr(a) and str(plain) == str(a)


def test_a_skill_choice_read_back_from_json_plays_as_the_legal_one() -> None:
    played = 0
    for name in builtin_encounters(RULESETS["moonlit"]):
        for seed in range(6):
            c = Combat(name, seed=seed)
            agent = RandomAgent(seed=seed)
            while not c.over and played < 3:
                choices = [a for a in c.legal_actions() if a.verb == Verb.USE_SKILL and isinstance(a.option, tuple)]
                if choices:
                    assert all(type(a.option) is SkillChoice for a in choices)
                    twin = c.clone()
                    events = c.act(choices[0])
                    again = twin.act(_wire(choices[0]))
                    assert [e.to_json() for e in again] == [e.to_json() for e in events]
                    played += 1
                else:
                    c.act(agent.act(c))
    assert played, "no summon or removal skill was offered in random play"
