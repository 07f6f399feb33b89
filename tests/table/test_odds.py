"""The odds a GM sees for a person's attacks read each action's option by its type, whatever its origin.

A legal set from the engine carries typed options (kiai's `AttackOption`); one a caller read back from
JSON carries plain tuples. Both give the same odds, and an attack that spends a damage ability is rated
with the ability's dice, not the weapon's.
"""

from __future__ import annotations

import json

from trpg_arena.agents import RandomAgent
from trpg_arena.rules import Action, Combat
from trpg_arena.rules.kiai.verbs import Verb
from trpg_arena.table.odds import action_odds


def _first_ability_attack(encounter: str, seed: int) -> Combat:
    """A kiai fight played at random up to its first decision offering an attack that spends an ability."""
    c = Combat(encounter, seed=seed)
    agent = RandomAgent(seed=seed)
    while not any(a.verb == Verb.ATTACK and a.option.ability for a in c.legal_actions()):
        c.act(agent.act(c))
    return c


def test_kiai_odds_are_the_same_for_typed_and_plain_options() -> None:
    c = _first_ability_attack("kiai/skirmish", 0)
    legal = c.legal_actions()
    plain = [Action.from_json(json.loads(json.dumps(a.to_json()))) for a in legal]
    typed_odds = action_odds(c, legal)
    plain_odds = action_odds(c, plain)
    assert typed_odds and plain_odds == typed_odds
    assert any(type(a.option) is tuple for a in plain if a.verb == Verb.ATTACK)
    assert all(plain_odds[a] == typed_odds[a] for a in plain if a in typed_odds)  # the caller's keys find them


def test_an_ability_attack_is_rated_with_the_ability_not_the_weapon() -> None:
    c = _first_ability_attack("kiai/duel", 0)  # flash_cut: more damage dice than the sword
    odds = action_odds(c)
    ability = next(a for a in odds if a.verb == Verb.ATTACK and a.option.ability)
    plain = next(a for a in odds if a.verb == Verb.ATTACK and a.target == ability.target
                 and a.option == (ability.option.technique, ability.option.all_out, ""))
    assert "wound on average" in odds[ability] and "wound on average" in odds[plain]
    # the same hit, other damage dice: the part after the chance to land differs
    assert odds[ability].split(", about")[0] == odds[plain].split(", about")[0]
    assert odds[ability].split(", about")[1] != odds[plain].split(", about")[1]
