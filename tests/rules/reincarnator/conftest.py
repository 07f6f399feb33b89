"""Every scenario consumes exactly its scripted dice (BCDice-style golden checks of dice consumption)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.rules.reincarnator import helpers


@pytest.fixture(autouse=True)
def _dice_used_up() -> Iterator[None]:
    helpers.CREATED.clear()
    yield
    left = [(c, c.dice.remaining) for c in helpers.CREATED if c.dice.remaining]  # type: ignore[attr-defined]
    helpers.CREATED.clear()
    assert not left, f"scripted dice left unrolled: {[n for _, n in left]}"
