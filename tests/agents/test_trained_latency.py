"""`trained:normal` decides quickly enough on the slowest encounters, measured the way the docs measure it.

kiai_sorcery (held out: a sorcerer and a fighter against four goblins) is the encounter whose series
take longest: its games run to about 250 decisions, three times a skirmish's. Each decision must
still be cheap: the bar is a p95 of 0.5 s of one core's CPU time per `propose`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_latency_tool_times_trained_normal_on_a_held_out_encounter_under_the_bar() -> None:
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "trained_latency.py"), "trained:normal", "20",
                        "tests/unseen/kiai_sorcery.yaml"], capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    rows = [line for line in r.stdout.splitlines() if line.startswith("| tests/unseen/kiai_sorcery.yaml")]
    assert len(rows) == 1, r.stdout
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    decisions, p50, p95 = int(cells[1]), float(cells[2]), float(cells[3])
    assert decisions == 20
    assert 0 < p50 <= p95 <= 500, rows[0]
    most = int(cells[5].split("/")[1])
    assert most > 1  # a real choice was timed, and the legal-action count is read from the games
    assert int(cells[6]) > 100  # its games are long: this, not the single decision, is what a series pays for
