"""One of several processes racing to play the same stored session (see `test_store_race`).

``python -m tests.table.race_worker DB SESSION``: confirms proposals, answers people with their first
legal action and rolls threes, from its own copy, until the combat ends; prints how many of its
changes were stored and how many were refused as stale (another process had decided first).
"""

from __future__ import annotations

import sys

from trpg_arena.table.session import Session, StaleRevision
from trpg_arena.table.store import SessionStore, StoreBusy


def main(db: str, sid: str) -> None:
    """Play until the end, counting what was stored, refused as stale, or refused as busy."""
    s = Session.load(SessionStore(db), sid)
    stored = stale = busy = 0
    while (p := s.pending()) is not None:
        try:
            if p.dice is not None:
                s.enter_dice(" ".join(["3"] * p.dice.count))
            elif p.proposal is None:
                s.submit(0)
            else:
                s.confirm()
            stored += 1
        except StaleRevision:
            stale += 1
        except StoreBusy:
            busy += 1
    print(stored, stale, busy)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
