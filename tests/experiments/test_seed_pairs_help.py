"""`tools/seed_pairs.py --help` shows its usage (it answered "error: --help: expected one series folder")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "seed_pairs.py"


def test_help_shows_the_usage_and_no_arguments_are_refused_with_it() -> None:
    r = subprocess.run([sys.executable, str(TOOL), "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("usage: seed_pairs.py [-h] FOLDER|PAIR.jsonl"), r.stdout + r.stderr
    assert "trpg-arena evaluate --out" in r.stdout and "error" not in r.stdout + r.stderr
    r = subprocess.run([sys.executable, str(TOOL)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "usage: seed_pairs.py" in r.stderr and "required: FOLDER|PAIR.jsonl" in r.stderr
