"""What `trpg-arena evaluate` says, as a user reads it: seed pairs classed by outcomes, one number read one way,
and a mirror line-up on fresh seeds."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from trpg_arena.experiments.evaluate import pairs_words
from trpg_arena.experiments.series import SeriesSpec
from trpg_arena.experiments.series.pairs import count_seed_pairs

CLI = [sys.executable, "-m", "trpg_arena.experiments.cli"]


def evaluate(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict, Path]:
    r = subprocess.run([*CLI, "evaluate", *args, "--workers", "1", "--out", str(tmp_path)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    (folder,) = tmp_path.iterdir()
    return r, json.loads(r.stdout), folder


def page_text(html: str) -> str:
    """The report page's words, tags and styles left out (as a reader sees them)."""
    body = re.sub(r"<style.*?</style>|<img[^>]*>", "", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", body).split())


def test_a_pair_drawn_twice_is_no_split_and_every_surface_says_so(tmp_path: Path) -> None:
    # these 20 games hold 14 of 17 decided games for scripted and a seed pair drawn twice (1 point, as a split)
    r, summary, folder = evaluate(tmp_path, "moonlit/duel", "--agents", "scripted,trained:easy", "--games", "20")
    sides = SeriesSpec.from_json(json.loads((folder / "spec.json").read_text())).sides
    records = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    outcomes: dict[int, list[str]] = {}
    for g in records:
        a_side = sides[1 if g["swapped"] else 0]
        outcomes.setdefault(g["seed"], []).append("draw" if g["result"] == "draw" else
                                                  "win" if g["result"] == a_side else "loss")
    kinds = [sorted(o) for o in outcomes.values()]
    p = summary["seed_pairs"]
    assert p["drawn_twice"] == kinds.count(["draw", "draw"]) >= 1  # the case this test is about is played
    assert p["split"] == kinds.count(["loss", "win"])
    assert (p["won_twice"], p["lost_twice"]) == (kinds.count(["win", "win"]), kinds.count(["loss", "loss"]))
    assert p["with_draw"] == sum("draw" in k for k in kinds)
    assert p["split"] + p["won_twice"] + p["lost_twice"] + p["with_draw"] == p["pairs"] == 10
    words = pairs_words(p)
    assert words.endswith(f"{p['with_draw']} with a draw ({p['drawn_twice']} drawn twice)"), words
    line = " ".join(r.stderr.split())
    md = " ".join((folder / "report.md").read_text().split())
    page = page_text((folder / "report.html").read_text())
    for text in (line, md, page):
        assert f"seed pairs: {words}" in text
        # 14 of 17 is 82.35... %: 82.4, where the summary's rounded 0.8235 read 82.3
        assert "14 of the 17 decided games, 82.4 % [59.0, 93.8]" in text and "82.3 %" not in text
    assert summary["a_decided_share"] == 0.8235  # the file keeps 4 decimals; no line is written from them


def test_pairs_are_classed_by_outcomes_not_by_points() -> None:
    sides = ("blue", "red")
    games = [(1, False, "draw"), (1, True, "draw"),  # 1 point, as a split, but no game won
             (2, False, "blue"), (2, True, "blue")]  # one win each way: a split
    p = count_seed_pairs(sides, games)
    assert (p.pairs, p.split, p.won_twice, p.lost_twice, p.with_draw, p.drawn_twice) == (2, 1, 0, 0, 1, 1)
    assert pairs_words(p.to_json()) == "1 of 2 split one win each, 0 won twice, 0 lost twice, 1 with a draw " \
                                       "(1 drawn twice)"


def test_a_mirror_line_up_plays_a_fresh_seed_per_game(tmp_path: Path) -> None:
    _, summary, folder = evaluate(tmp_path / "plain", "moonlit/duel", "--agents", "scripted,scripted", "--games", "6")
    seeds = [json.loads(line)["seed"] for line in (folder / "results.jsonl").read_text().splitlines()]
    assert summary["swap"] is False and summary["seed_pairs"] is None
    assert seeds == list(range(6))  # six outcomes for six games: no game played twice
    # asked for, a mirror swaps, and the command says that each outcome then counts twice
    r, summary, _ = evaluate(tmp_path / "asked", "moonlit/duel", "--agents", "scripted,scripted", "--games", "6",
                             "--swap")
    assert summary["swap"] is True
    assert "a seed's two games are one game played twice, so its 6 games hold 3 outcomes" in " ".join(r.stderr.split())
    # agents that differ swap by default, as before
    _, summary, _ = evaluate(tmp_path / "differ", "moonlit/duel", "--agents", "scripted,random", "--games", "2")
    assert summary["swap"] is True
