"""Every [core] rule and every acceptance scenario of each registered system is named by a test.

Uses the project's checker (``../shared/tools/rule_coverage.py``) when the shared folder sits next to
the checkout; skipped elsewhere.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SYSTEMS

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT.parent / "shared" / "tools" / "rule_coverage.py"


@pytest.mark.skipif(not TOOL.is_file(), reason="shared/tools/rule_coverage.py is not next to this checkout")
@pytest.mark.parametrize("rid", SYSTEMS)
def test_rule_coverage_is_complete(rid: str) -> None:
    r = subprocess.run([sys.executable, str(TOOL), rid, "--tests", str(ROOT / "tests"), "--list", "--require", "100"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
