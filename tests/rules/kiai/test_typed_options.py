"""An attack's option is typed (`AttackOption`, `ReattackOption`) and still reads as the plain tuple.

The legal set carries the typed option; an action read back from JSON carries a plain tuple, equal to
it. `Combat.act` applies the legal set's own action, so both play the same and the rules read the
option by name.
"""

from __future__ import annotations

import json

from trpg_arena.agents import RandomAgent
from trpg_arena.rules import Action, Combat
from trpg_arena.rules.kiai.verbs import AttackOption, ReattackOption, Verb


def _first_attack(seed: int) -> Combat:
    """A kiai skirmish played at random up to its first decision that offers an attack."""
    c = Combat("kiai/skirmish", seed=seed)
    agent = RandomAgent(seed=seed)
    while not any(a.verb == Verb.ATTACK for a in c.legal_actions()):
        c.act(agent.act(c))
    return c


def test_attacks_carry_typed_options_that_read_as_the_wire_tuple() -> None:
    c = _first_attack(3)
    attacks = [a for a in c.legal_actions() if a.verb == Verb.ATTACK]
    for a in attacks:
        assert type(a.option) is AttackOption
        plain = Action.from_json(json.loads(json.dumps(a.to_json())))
        assert type(plain.option) is tuple and plain == a and hash(plain) == hash(a)
        assert repr(plain) == repr(a) and str(plain) == str(a) and plain.to_json() == a.to_json()
        assert (a.option.technique, a.option.all_out, a.option.ability) == tuple(a.option)
        # the GM's sentence is read through the option's type, also for the plain tuple
        assert c.system.describe(c, plain) == c.system.describe(c, a) and a.target in c.system.describe(c, a)


def test_an_attack_read_back_from_json_plays_as_the_legal_one() -> None:
    for seed in range(3):
        typed = _first_attack(seed)
        plain = typed.clone()
        a = next(a for a in typed.legal_actions() if a.verb == Verb.ATTACK and a.option.all_out)
        events = typed.act(a)
        again = plain.act(Action.from_json(json.loads(json.dumps(a.to_json()))))
        assert [e.to_json() for e in again] == [e.to_json() for e in events]
        same = {k: v for k, v in typed.snapshot().items() if k not in ("log", "log_start")}  # a clone trims its log
        assert {k: v for k, v in plain.snapshot().items() if k in same} == same


def test_reattacks_carry_their_own_option_type() -> None:
    seen = 0
    for seed in range(12):
        c = Combat("kiai/duel", seed=seed)
        agent = RandomAgent(seed=seed)
        while not c.over and not seen:
            for a in c.legal_actions():
                if a.verb == Verb.REATTACK:
                    assert type(a.option) is ReattackOption and len(a.option) == 2
                    seen += 1
            c.act(agent.act(c))
    assert seen, "no reattack was offered in twelve random duels"
