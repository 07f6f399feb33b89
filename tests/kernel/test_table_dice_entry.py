"""Faces typed at the table (`DiceRequest.parse`): an entry no die shows is refused as a `DiceEntryError`."""

from __future__ import annotations

import pytest

from trpg_arena.rules import DiceEntryError
from trpg_arena.rules.core.table_dice import DiceRequest


@pytest.mark.parametrize("entry", ["1 " + "9" * 5000, "1 " + "0" * 4999 + "3", "1 1234567"])
def test_a_number_longer_than_any_face_is_refused_before_it_is_read(entry: str) -> None:
    # int() of more than 4300 digits raises a plain ValueError, which ended the terminal table
    with pytest.raises(DiceEntryError, match=r"is not a face of this die \(1-6\)") as refused:
        DiceRequest(6, 2).parse(entry)
    assert len(str(refused.value)) < 120  # the entry is quoted cut short: one line stays one line


def test_faces_with_leading_zeros_still_read() -> None:
    assert DiceRequest(100, 1).parse("000100") == [100]
    assert DiceRequest(6, 2).parse("006 01") == [6, 1]
