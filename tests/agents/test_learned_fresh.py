"""`fresh`: the play-outs that check a departure roll dice of their own, not the look-ahead's samples."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.played_out import scripted_positions
from trpg_arena.agents import make_agent

RID = "investigator"
ROOT = Path(__file__).resolve().parents[2]


def _check(spec: str, seeds: list[int]) -> list[np.ndarray]:
    """The paired play-out gains of every position's second candidate, from one agent state, on `seeds`."""
    agent = make_agent(spec, RID, seed=3)
    gains: list[np.ndarray] = []
    for combat in scripted_positions(f"{RID}/duel", 2, every=3, turns_only=True):
        order = [a for a in combat.legal_view()][:2]
        side = combat.decision.side
        gains += agent._playout_gains(combat, [order[1]], order[0], side, seeds)
    return gains


def test_fresh_playouts_do_not_reuse_the_lookahead_dice() -> None:
    # Without `fresh` the check replays the samples it is given (the ones that nominated the departure),
    # so other samples give other play-outs; with it the check draws its own and the samples do not matter.
    spec = "trained:hard:playouts=8:depth=20"
    a, b = list(range(100, 108)), list(range(900, 908))
    same = _check(spec, a)
    assert any(not np.array_equal(x, y) for x, y in zip(same, _check(spec, b), strict=True))
    fresh = _check(spec + ":fresh=1", a)
    assert all(np.array_equal(x, y) for x, y in zip(fresh, _check(spec + ":fresh=1", b), strict=True))
    assert any(not np.array_equal(x, y) for x, y in zip(fresh, same, strict=True))  # and they are other dice


def test_fresh_is_off_by_default_and_checked_like_every_parameter() -> None:
    assert make_agent("trained:hard", "kiai", seed=0).fresh == 0
    assert make_agent("trained:hard:playouts=16:verify=1:fresh=1", RID, seed=0).fresh == 1
    with pytest.raises(ValueError, match="fresh"):
        make_agent("trained:hard:fresh=2", RID, seed=0)


def test_a_bad_fresh_is_one_line_from_the_cli(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "trpg_arena.experiments.cli", "evaluate", f"{RID}/duel", "--agents",
                        "trained:hard:fresh=3,scripted", "--games", "2", "--seed", "1", "--workers", "1",
                        "--out", str(tmp_path)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode != 0
    assert len(r.stderr.strip().splitlines()) == 1 and "fresh" in r.stderr, r.stderr
