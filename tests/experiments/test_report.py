"""Reports: Markdown and one self-contained HTML file with the numbers a designer shares."""

from __future__ import annotations

import re
from pathlib import Path

from trpg_arena.experiments.series import SeriesSpec, run_series
from trpg_arena.experiments.series.report import citable_rules, facts, write_report


def test_report_has_intervals_rounds_damage_falls_and_unused_rules(tmp_path: Path) -> None:
    spec = SeriesSpec.build("kiai/duel", ["scripted", "random"], 8)
    records = list(run_series(spec, workers=1))
    f = facts(spec, records)
    assert sum(k for k, _, _ in f["rates"].values()) == 8
    assert set(f["never"]) <= citable_rules("kiai") and not set(f["never"]) & {x for r in records for x in r.rules}
    md, page = write_report(tmp_path, "kiai duel", [(spec, records)])
    text = md.read_text()
    for words in ("95 % interval", "Rounds to the end", "damage dealt per game", "Falls first", "never cited",
                  "scripted (line-up slot 1)"):
        assert words in text
    html = page.read_text()
    assert html.count("data:image/png;base64,") >= 4
    assert not re.search(r"""(src|href)=["'](https?:|//)""", html)  # nothing fetched from elsewhere
