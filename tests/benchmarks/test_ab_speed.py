"""tools/ab_speed.py as docs/env-speed.md runs it: two checkouts on the same games, replayed or fresh each round."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def ab_speed(*extra: str) -> str:
    """This checkout against itself on two reincarnator duels per round, two rounds; the encounter's line."""
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "ab_speed.py"), "--base", str(ROOT), "--targets",
                        "reincarnator/duel", "--games", "2", "--rounds", "2", "--first-seed", "40", *extra],
                       capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    (line,) = [x for x in r.stdout.splitlines() if x.startswith("reincarnator/duel")]
    return line


def test_rounds_replay_the_same_seeds_unless_fresh() -> None:
    replayed, fresh = ab_speed(), ab_speed("--fresh")
    assert replayed.endswith("seeds 40-41 every round"), replayed
    assert fresh.endswith("seeds 40-43"), fresh
    for line in (replayed, fresh):
        assert "same games" in line, line  # one checkout against itself plays the very same games
        rounds = re.search(r"rounds ([\d. ]+?)  ", line)
        assert rounds is not None and len(rounds.group(1).split()) == 2, line
