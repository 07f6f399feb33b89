"""Every scripted combat of an investigator test must consume its whole dice script (exact dice use)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.rules.investigator.helpers import CREATED


@pytest.fixture(autouse=True)
def _all_scripted_dice_used() -> Iterator[None]:
    CREATED.clear()
    yield
    left = [(c, c.dice.remaining) for c in CREATED if c.dice.remaining]  # type: ignore[attr-defined]
    CREATED.clear()
    assert not left, f"scripted dice left unused: {[n for _, n in left]}"
