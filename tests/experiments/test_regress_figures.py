"""A regress report reads one number one way, and report pages fit an 800 px window (wide tables scroll in a box).

Through the command line, as CI runs it; the pages are opened in headless Chromium.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    r = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, cwd=cwd)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A recorded and compared entry whose first side wins 15 of 32 games: its upper Wilson end is 0.63551."""
    d = tmp_path_factory.mktemp("figures")
    (d / "suite.yaml").write_text("defaults: {games: 32, test: fixed}\nentries:\n"
                                  "  - {encounter: kiai/duel, agents: 'scripted,trained:easy'}\n", encoding="utf-8")
    cli("regress", "suite.yaml", "--record", "--workers", "1", "--out", "runs", cwd=d)
    cli("regress", "suite.yaml", "--workers", "1", "--out", "runs", cwd=d)
    return sorted((d / "runs").iterdir())[-1]


def test_one_rate_reads_the_same_in_every_table_of_the_report(compared: Path) -> None:
    md = (compared / "report.md").read_text(encoding="utf-8")
    # the baseline, this run and the run's own outcome table: 15 of 32 each time, from the counts (0.6355 stored
    # in summary.json read 63.5 in the verdict's table while the outcome table read 63.6)
    assert md.count("46.9 % [30.9, 63.6]") == 3, md
    assert "63.5]" not in md


def report_width(page: object, path: Path) -> tuple[int, int]:
    page.goto(path.resolve().as_uri())  # type: ignore[attr-defined]
    return page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")  # type: ignore[attr-defined]


def test_report_pages_never_scroll_sideways_at_800_px(compared: Path, tmp_path: Path) -> None:
    from tests.server.test_browser import CHROMIUM, CHROMIUM_ARGS, _ensure_chromium

    _ensure_chromium()
    from playwright.sync_api import sync_playwright

    cli("evaluate", "moonlit/duel", "--agents", "scripted,random", "--games", "4", "--workers", "1", "--out",
        str(tmp_path), cwd=tmp_path)
    (evaluation,) = tmp_path.glob("*/report.html")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 800, "height": 900})
        for report in (evaluation, compared / "report.html"):
            scroll, window = report_width(page, report)
            assert scroll <= window, f"{report}: {scroll} px wide in a {window} px window"
            # the per-agent table (873 px before) scrolls inside its own box when it is wider than the window
            wide = page.locator("div.wide", has_text=re.compile("won in all")).first
            assert wide.evaluate("d => getComputedStyle(d).overflowX") == "auto"
        browser.close()
