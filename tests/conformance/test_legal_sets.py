"""Legal sets on 1,000 recorded random states per system equal the record (see `legal_record.py`)."""

from __future__ import annotations

import json

import pytest

from tests.conformance.legal_record import RECORD, play
from tests.conftest import SYSTEMS


@pytest.mark.parametrize("rid", SYSTEMS)
def test_legal_sets_equal_the_record(rid: str) -> None:
    rows = json.loads(RECORD.read_text()).get(rid)
    if rows is None:
        pytest.skip(f"{rid} has no recorded legal sets (a system added after the record)")
    assert sum(len(r["digests"]) for r in rows) >= 1000
    for r in rows:
        got = play(r["encounter"], r["seed"])[: len(r["digests"])]
        first = next((i for i, (a, b) in enumerate(zip(got, r["digests"], strict=False)) if a != b), None)
        assert got == r["digests"], f"{r['encounter']} seed {r['seed']}: legal set differs at state {first}"
