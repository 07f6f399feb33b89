"""Compiled encounters: built once per content, shared by equal encounters, derived values built once."""

from __future__ import annotations

import pytest

from tests.kernel.toy import TOY_ENCOUNTER
from trpg_arena.rules import Combat, load_encounter
from trpg_arena.rules.core.compiled import compiled

pytestmark = pytest.mark.usefixtures("toy")


def test_equal_contents_share_one_compiled_form_and_combats_share_its_tables() -> None:
    a, b = load_encounter(dict(TOY_ENCOUNTER)), load_encounter(dict(TOY_ENCOUNTER))
    assert a is not b and compiled(a) is compiled(b)
    other = load_encounter({**TOY_ENCOUNTER, "options": {"round_cap": 3}})
    assert compiled(other) is not compiled(a)
    c, d = Combat(a, seed=1), Combat(b, seed=2)
    assert c.battlefield is d.battlefield is compiled(a).battlefield and c.tables is compiled(a).tables
    assert c.clone().tables is c.tables


def test_a_derived_value_may_be_built_from_another() -> None:
    """An env's codec is derived from the catalogue, itself derived: nested builds must not deadlock."""
    built = compiled(load_encounter({**TOY_ENCOUNTER, "description": "nested derive"}))
    calls = []

    def inner() -> int:
        calls.append("inner")
        return 1

    assert built.derive("outer", lambda: built.derive("inner", inner) + 1) == 2
    assert built.derive("outer", lambda: 0) == 2 and built.derive("inner", inner) == 1 and calls == ["inner"]
