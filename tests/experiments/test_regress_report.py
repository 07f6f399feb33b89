"""regress reports what changed: a suite whose entries are ok, shifted, stale and erroring at once.

Through the command line, as CI runs it: exit 3, and a report (Markdown and HTML) that opens with
one plain sentence per entry, lists every entry with its verdict and the error text of the failing
ones, shows the baseline beside the new run, and a sequential-test plot even for an unchanged
paired run. The HTML page is opened in headless Chromium; screenshots go to runs/screenshots.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from trpg_arena.rules import RULESETS

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]
SHOTS = Path(__file__).resolve().parents[2] / "runs" / "screenshots"
RATE = r"\d+ % \[\d+, \d+\]"


def regress(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "regress", *args], capture_output=True, text=True, timeout=600, cwd=cwd)


def builtin(rid: str, name: str) -> str:
    return (RULESETS[rid].info.data_dir / "encounters" / f"{name}.yaml").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Record four entries, then change one encounter, age one baseline and misspell one agent."""
    d = tmp_path_factory.mktemp("mixed")
    (d / "kiai.yaml").write_text(builtin("kiai", "duel"), encoding="utf-8")
    (d / "moon.yaml").write_text(builtin("moonlit", "duel"), encoding="utf-8")
    entries = ["{encounter: kiai.yaml, agents: 'scripted,scripted', games: 40}",  # unchanged: ok
               "{encounter: moon.yaml, agents: 'scripted,scripted'}",  # the ghoul's HP doubled: shifted
               "{encounter: kiai/duel, agents: 'random,random', games: 20}"]  # recorded before a rule change: stale
    suite = d / "suite.yaml"
    suite.write_text("baselines: base\ndefaults: {games: 120}\nentries:\n"
                     + "".join(f"  - {e}\n" for e in entries), encoding="utf-8")
    r = regress("suite.yaml", "--record", "--workers", "1", "--out", "runs", cwd=d)
    assert r.returncode == 0, r.stdout + r.stderr
    moon = d / "moon.yaml"
    moon.write_text(moon.read_text().replace("    max_hp: 40\n", "    max_hp: 80\n"), encoding="utf-8")
    aged = d / "base" / "kiai-duel--random-random.json"
    data = json.loads(aged.read_text())
    data["spec"]["env_version"] -= 1
    aged.write_text(json.dumps(data))
    with suite.open("a", encoding="utf-8") as fh:  # a misspelt preset: an error, named as such
        fh.write("  - {encounter: kiai/duel, agents: 'scripted,mcts:hardd'}\n")
    r = regress("suite.yaml", "--allow", "content", "--workers", "1", "--out", "runs", "--junit", "junit.xml", cwd=d)
    folders = sorted((d / "runs").iterdir())
    return r, folders[-1]


def test_the_mixed_suite_exits_3_and_says_why(mixed: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    r, folder = mixed
    out = " ".join((r.stdout + r.stderr).split())
    assert r.returncode == 3, out
    assert "4 entries: 1 ok, 1 shifted, 1 stale, 1 error" in out
    assert "exit 3: a stale baseline (exit codes: 0 = every entry unchanged or recorded, 1 = balance shifted" in out
    assert "agent 'mcts' has no preset 'hardd' (presets: easy, normal, hard, deadly)" in out
    assert "Traceback" not in out
    # the first paragraph on the console, one line per entry; progress lines in a log (not a terminal)
    assert re.search(rf"moon\.yaml \[scripted,scripted\]: side A wins {RATE} now, {RATE} before: shifted", r.stdout)
    assert "moon.yaml [scripted,scripted]: started, 120 games to go" in r.stderr
    assert re.search(r"moon\.yaml \[scripted,scripted\]: \d+/120 games \(\d+ %\), [\d.,]+ games/s, \d+ s, "
                     r"stopped early",
                     r.stderr), r.stderr
    summary = json.loads((folder / "summary.json").read_text())
    assert [e["status"] for e in summary["entries"]] == ["ok", "shifted", "stale", "error"]
    shifted = summary["entries"][1]["change"]["win"]
    assert shifted["shift"] < 0 and shifted["interval95"][1] < 0  # the ghoul with twice the HP: A wins less
    root = ET.parse(folder.parent.parent / "junit.xml").getroot()
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "1", "2")


def test_the_report_lists_every_entry_in_plain_words(mixed: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, folder = mixed
    md = (folder / "report.md").read_text()
    first = md.split("\n## ")[0]  # everything above the first entry's section
    assert re.search(rf"kiai\.yaml \[scripted,scripted\]: side wanderers wins {RATE} now, {RATE} before: \*\*ok\*\*",
                     first)
    assert re.search(rf"moon\.yaml \[scripted,scripted\]: side A wins {RATE} now, {RATE} before: \*\*shifted\*\*",
                     first)
    assert "kiai/duel [random,random]: not compared, **stale**: baseline base/kiai-duel--random-random.json" in first
    assert "kiai env_version (" in first
    assert "kiai/duel [scripted,mcts:hardd]: not run, **error**: agent 'mcts' has no preset 'hardd'" in first
    assert re.search(r"\| moon\.yaml \[scripted,scripted\] \| \*\*shifted\*\* \| \d+ \| \d+ % → 0 % \| -\d+ points",
                     first)
    for label in ("kiai.yaml [scripted,scripted]", "moon.yaml [scripted,scripted]", "kiai/duel [random,random]",
                  "kiai/duel [scripted,mcts:hardd]"):
        assert f"## {label}" in md
    assert "found a fall of the win rate" in md and "ruled out a rise of the win rate" in md
    assert "| wins |" in md and " points [" in md  # the change with its interval, per rate
    page = (folder / "report.html").read_text()
    for verdict in ("ok", "shifted", "stale", "error"):
        assert f'class="v-{verdict}"' in page
    assert page.count('alt="baseline beside this run"') == 2 and page.count('alt="sequential test"') == 2


def test_a_run_where_every_entry_failed_still_has_its_report(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text("entries:\n  - {encounter: kiai/duel, agents: 'scripted,random'}\n"
                                         "  - {encounter: kiai/duel, agents: 'scripted,nobody'}\n"
                                         "  - {encounter: kiai/duel, agents: 'policy:gone.zip,random'}\n")
    (tmp_path / "policy.yaml").write_text("entries:\n  - {encounter: kiai/duel, agents: 'policy:gone.zip,random'}\n")
    r = regress("policy.yaml", "--record", "--games", "4", "--out", "elsewhere", cwd=tmp_path)  # found in play
    assert r.returncode == 2 and "no model file at 'gone.zip'" in r.stdout and "Traceback" not in r.stderr
    r = regress("suite.yaml", "--out", "runs", cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    (folder,) = (tmp_path / "runs").iterdir()
    md = (folder / "report.md").read_text()
    assert "3 entries: 3 errors; exit 2: bad input" in md
    assert "kiai/duel [scripted,random]: not run, **error**: baseline " in md
    assert "kiai-duel--scripted-random.json: no such file (record one with --record)" in md
    assert "'nobody'" in md and (folder / "report.html").stat().st_size > 0


def test_the_report_page_in_chromium(mixed: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    from tests.server.test_browser import CHROMIUM, CHROMIUM_ARGS, _ensure_chromium

    _ensure_chromium()
    from playwright.sync_api import sync_playwright

    _, folder = mixed
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 1000})
        page.goto((folder / "report.html").resolve().as_uri())
        for verdict in ("ok", "shifted", "stale", "error"):
            assert page.locator(f"li .v-{verdict}").first.is_visible()
        # every plot decoded (a broken data URI shows as an empty image)
        assert page.evaluate("[...document.images].every(i => i.complete && i.naturalWidth > 100)")
        page.screenshot(path=str(SHOTS / "regress-report-top.png"))
        page.locator("img[alt='sequential test']").first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "regress-report-unchanged-entry.png"))
        page.screenshot(path=str(SHOTS / "regress-report-full.png"), full_page=True)
        browser.close()
    assert (SHOTS / "regress-report-full.png").stat().st_size > 50_000
