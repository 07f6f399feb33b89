"""Kernel tests register the toy rule system for their duration only."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.kernel.toy import TOY
from trpg_arena.rules import RULESETS


@pytest.fixture()
def toy() -> Iterator[None]:
    RULESETS.register(TOY)
    try:
        yield
    finally:
        RULESETS._systems.pop("toy", None)
