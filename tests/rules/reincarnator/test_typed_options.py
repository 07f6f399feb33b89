"""An option with flags is typed per verb (`AllOut`, `IntoGrapple`, `SoftGrapple`, `ThrowOption`): the wire tuple.

The catalogue and the legal sets carry the typed option; an action read back from JSON carries a plain
tuple, equal to it. `Combat.act` applies the legal set's own action, so both play the same and the rules
read the option by name. A bare item, weapon or spell id stays its plain string.
"""

from __future__ import annotations

import copy
import json
import pickle

from tests.rules.reincarnator.helpers import at_turn, defaults, encounter
from trpg_arena.agents import RandomAgent
from trpg_arena.rules import RULESETS, Action, Combat, builtin_encounters, load_encounter
from trpg_arena.rules.reincarnator.verbs import AllOut, IntoGrapple, SoftGrapple, ThrowOption, Verb, typed_option

TYPES = {AllOut, IntoGrapple, SoftGrapple, ThrowOption}
# the type each tuple-shaped option of a verb has (a grapple's is AllOut or SoftGrapple)
BY_VERB = {Verb.MELEE_ATTACK: {AllOut}, Verb.BULL_RUSH: {AllOut}, Verb.PIN_STRIKE: {AllOut},
           Verb.GRAPPLE: {AllOut, SoftGrapple}, Verb.RANGED_ATTACK: {IntoGrapple}, Verb.ACRO_FIRE: {IntoGrapple},
           Verb.CAST: {IntoGrapple}, Verb.VEHICLE_ATTACK: {IntoGrapple}, Verb.THROW: {ThrowOption}}


def _wire(a: Action) -> Action:
    return Action.from_json(json.loads(json.dumps(a.to_json())))


def test_every_tuple_option_of_the_catalogue_is_typed_and_reads_as_the_wire_tuple() -> None:
    seen: set[type] = set()
    for name in builtin_encounters(RULESETS["reincarnator"]):
        for a in RULESETS["reincarnator"].action_catalogue(load_encounter(name)):
            if not isinstance(a.option, tuple):
                continue
            assert type(a.option) in BY_VERB[a.verb], f"{name}: {a.describe()} has {type(a.option).__name__}"
            seen.add(type(a.option))
            plain = _wire(a)
            assert type(plain.option) is tuple and plain == a and hash(plain) == hash(a)
            assert repr(plain) == repr(a) and str(plain) == str(a) and plain.to_json() == a.to_json()
            assert pickle.loads(pickle.dumps(a)) == a and type(copy.deepcopy(a).option) is type(a.option)
    assert seen == TYPES - {SoftGrapple}  # no built-in encounter arms anyone with a soft item: see below


def test_a_soft_item_grapple_is_typed() -> None:
    whip = {"id": "whip", "kind": "melee", "soft": True, "damage": 1, "specialty": "whips", "size": 3}
    a = {"items": [whip], "specialties": {"brawl": 2, "whips": 3, "reflex": 1}}
    c = Combat(encounter(*defaults(a=a), start=at_turn(["A", "D"])), seed=0)
    grapples = {a.option: type(a.option) for a in c.legal_actions() if a.verb == Verb.GRAPPLE}
    assert grapples == {("whip",): SoftGrapple, ("whip", "all_out"): AllOut}


def test_the_named_reads_are_the_wire_parts() -> None:
    assert AllOut("sword") == ("sword", "all_out")
    assert IntoGrapple("pistol", "careful") == ("pistol", "careful")
    assert SoftGrapple("net") == ("net",)
    throw = ThrowOption(("knife", "dex", "fast", "random"))
    assert (throw.item, throw.attr, throw.fast, throw.into) == ("knife", "dex", True, "random")
    plain = ThrowOption(("rock", "str"))
    assert plain == ("rock", "str") and not plain.fast and plain.into is None
    careful = ThrowOption(("rock", "str", "careful"))
    assert careful.into == "careful" and not careful.fast


def test_a_wire_option_gets_the_type_of_its_shape() -> None:
    cases = [(Verb.MELEE_ATTACK, ("sword", "all_out"), AllOut), (Verb.GRAPPLE, ("net", "all_out"), AllOut),
             (Verb.GRAPPLE, ("net",), SoftGrapple), (Verb.RANGED_ATTACK, ("pistol", "random"), IntoGrapple),
             (Verb.CAST, ("bolt", "careful"), IntoGrapple), (Verb.THROW, ("rock", "str"), ThrowOption),
             (Verb.THROW, ("knife", "dex", "fast", "careful"), ThrowOption)]
    for verb, wire, kind in cases:
        typed = typed_option(verb, wire)
        assert type(typed) is kind and typed == wire, (verb, wire)
    assert typed_option(Verb.MELEE_ATTACK, "sword") == "sword" and typed_option(Verb.GRAPPLE, None) is None


def test_legal_sets_carry_typed_options_and_a_plain_one_plays_the_same() -> None:
    played: dict[type, int] = {}
    for name in builtin_encounters(RULESETS["reincarnator"]):
        for seed in range(4):
            c = Combat(name, seed=seed)
            agent = RandomAgent(seed=seed)
            while not c.over and c.decision_count < 300:
                legal = c.legal_actions()
                typed = [a for a in legal if isinstance(a.option, tuple)]
                assert all(type(a.option) in TYPES for a in typed), [a.describe() for a in typed]
                fresh = [a for a in typed if played.get(type(a.option), 0) < 2]
                if fresh:
                    a = fresh[0]
                    played[type(a.option)] = played.get(type(a.option), 0) + 1
                    twin = c.clone()
                    events = c.act(a)
                    again = twin.act(_wire(a))
                    assert [e.to_json() for e in again] == [e.to_json() for e in events], a.describe()
                else:
                    c.act(agent.act(c))
    assert {AllOut, ThrowOption} <= set(played), played
