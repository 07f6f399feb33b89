"""Every verb a system can produce is a member of its `Verb` enum (``rules/<id>/verbs.py``).

The rules build actions from the members (so the type check catches a misspelt verb) while the wire
format stays the plain strings: the catalogue of every built-in encounter, the canonical action
layout's blocks and the legal actions of random play carry members.
"""

from __future__ import annotations

import ast
import enum
import importlib
import inspect
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from tests.conftest import SYSTEMS
from trpg_arena.rules import RULESETS, Combat, builtin_encounters, load_encounter
from trpg_arena.rules.core.action_layout import action_layout_for, read_spec
from trpg_arena.rules.core.errors import TrpgArenaError
from trpg_arena.rules.core.values import Action, PlainStrEnum

GAMES = 3  # random games per built-in encounter
DECISIONS = 400  # at most, per game (the legal lists of a long game repeat themselves)


def verbs_module(rid: str) -> ModuleType:
    """The system's ``verbs`` module, beside its ``system`` module."""
    module = type(RULESETS[rid]).__module__
    package = module if hasattr(sys.modules[module], "__path__") else module.rsplit(".", 1)[0]
    return importlib.import_module(f"{package}.verbs")


def members_of(rid: str, actions: list[Action], verb: type[enum.Enum]) -> None:
    for a in actions:
        assert type(a.verb) is verb, f"{rid}: '{a.describe()}' names its verb with {type(a.verb).__name__}"


@pytest.mark.parametrize("rid", SYSTEMS)
def test_verbs_and_conditions_are_plain_string_enums(rid: str) -> None:
    module = verbs_module(rid)
    for name in ("Verb", "Condition"):
        cls = getattr(module, name)
        assert issubclass(cls, PlainStrEnum) and len(cls) > 0, f"{rid}: {name}"
        for member in cls:
            # the wire format: what JSON, logs, action strings and model fingerprints read
            assert member == member.value and str(member) == member.value and repr(member) == repr(member.value)
            assert hash(member) == hash(member.value) and f"{member}" == member.value


@pytest.mark.parametrize("text", ["map_limit: [4, 4]\nblocks: [pass, {verb: fly}]\n",
                                  "map_limit: [4, 4]\nblocks: [{verb: pass, wings: 2}]\n",
                                  "map_limit: [4, 4]\nblocks: [{verb: pass, options: 0}]\n"])
def test_a_wrong_action_layout_file_is_one_line_naming_it(tmp_path: Path, text: str) -> None:
    """A layout's data file with a verb the system lacks, an unknown field or a bad count names the file."""
    path = tmp_path / "actions.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TrpgArenaError, match=r"actions\.yaml: not an action layout of .*\.Verb") as e:
        read_spec(path, verbs_module(SYSTEMS[0]).Verb)
    assert "\n" not in str(e.value).strip()


@pytest.mark.parametrize("rid", SYSTEMS)
def test_the_canonical_layout_declares_every_verb_with_the_enum(rid: str) -> None:
    verb = verbs_module(rid).Verb
    spec = action_layout_for(rid).spec
    for block in spec.blocks:
        assert type(block.verb) is verb, f"{rid}: block {block.verb!r} is not declared with {verb.__name__}"
    for name in spec.dest_in_option:
        assert type(name) is verb, f"{rid}: dest_in_option {name!r}"
    assert {block.verb for block in spec.blocks} <= set(verb)


@pytest.mark.parametrize("rid", SYSTEMS)
def test_catalogue_and_random_play_offer_only_members(rid: str) -> None:
    verb = verbs_module(rid).Verb
    offered: set[str] = set()
    for name in builtin_encounters(RULESETS[rid]):
        catalogue = RULESETS[rid].action_catalogue(load_encounter(name))
        members_of(rid, catalogue, verb)
        for seed in range(GAMES):
            c = Combat(name, seed=seed)
            rng = np.random.default_rng(seed)
            for _ in range(DECISIONS):
                if c.over:
                    break
                legal = c.legal_actions()
                members_of(rid, legal, verb)
                offered.update(a.verb for a in legal)
                c.act(legal[int(rng.integers(len(legal)))])
    assert offered <= set(verb)


def _verb_literals(tree: ast.AST) -> list[int]:
    """Lines where a verb is compared with, or an `Action` built from, a string literal instead of a member."""
    def is_verb(node: ast.expr) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "verb") or (isinstance(node, ast.Name)
                                                                              and node.id == "verb")

    def literal(node: ast.expr) -> bool:
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(literal(e) for e in node.elts)
        return isinstance(node, ast.Constant) and isinstance(node.value, str)

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(is_verb(s) for s in sides) and any(literal(s) for s in sides):
                lines.append(node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Action"
              and node.args and literal(node.args[0])):
            lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("rid", SYSTEMS)
def test_the_tactics_name_verbs_with_the_enum(rid: str) -> None:
    # a misspelt literal in a policy is a silently dead branch; a misspelt member is a type error
    package = verbs_module(rid).__name__.rsplit(".", 1)[0]
    tactics = importlib.import_module(f"{package}.tactics")
    source = inspect.getsource(tactics)
    assert _verb_literals(ast.parse(source)) == [], f"{rid}: tactics.py compares verbs with string literals"
