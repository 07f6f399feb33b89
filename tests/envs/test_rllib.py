"""The RLlib example trains on a local Ray: 2 env runners, a few iterations, CPU, run as a user runs it.

RLlib is in the ``ray`` extra that ``make install`` installs, so a missing Ray fails here, not skips.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "rllib_selfplay.py"


def test_rllib_self_play_trains_on_a_local_ray() -> None:
    import ray.rllib  # noqa: F401 - must be installed (extra 'ray', part of 'all')

    r = subprocess.run([sys.executable, str(EXAMPLE), "--encounter", "kiai/duel", "--workers", "2",
                        "--iterations", "2", "--batch", "256", "--minibatch", "64", "--epochs", "1"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    lines = [line for line in r.stdout.splitlines() if line.startswith("iteration ")]
    assert len(lines) == 2, r.stdout
    steps = [int(re.search(r"([\d,]+) env steps", line).group(1).replace(",", "")) for line in lines]
    assert steps[0] >= 256 and steps[1] >= steps[0] + 256  # both iterations sampled a full batch
    assert re.search(r"policy loss -?\d", lines[-1]), lines[-1]  # the learner ran (not nan)


def test_rllib_example_refuses_a_bad_encounter_in_one_line() -> None:
    r = subprocess.run([sys.executable, str(EXAMPLE), "--encounter", "kiai/nowhere", "--iterations", "1"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2
    assert r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1, r.stderr
