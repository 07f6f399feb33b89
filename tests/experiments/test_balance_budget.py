"""`balance` spends its budget on what it can finish: no confirmation it cannot verify, and says what fell short.

A setting screened close to the target was confirmed whenever one block of games was left, so the
verification found no budget, the games were lost to the screening, and the search ended "no setting
found" without naming the setting it had confirmed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def test_a_setting_the_budget_cannot_confirm_and_verify_is_screened_on_and_named(tmp_path: Path) -> None:
    r = subprocess.run([*CLI, "balance", "kiai/duel", "--target", "0.5", "--knob", "gorza.life=4..30", "--agents",
                        "scripted,random", "--tolerance", "0.1", "--screen", "30", "--confirm", "100", "--budget",
                        "260", "--workers", "1", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=120, env={"COLUMNS": "300", "PATH": "/usr/bin:/bin"})
    said = " ".join(r.stderr.split())
    assert r.returncode == 1 and "no setting found" in said, r.stderr
    assert "balancing kiai/duel: the wanderers side's win rate to 50%" in said
    assert " confirm " not in said and " verify " not in said  # 100 + 100 games never fitted what was left
    assert ("screened within the tolerance but was not verified: confirming and verifying it takes at least 200 "
            "games, 50 were left; raise --budget") in said, said
    (summary,) = tmp_path.glob("*/summary.json")
    short = json.loads(summary.read_text(encoding="utf-8"))["short"]
    assert short["setting"] == {"gorza.life": 16} and "200 games" in short["why"]
