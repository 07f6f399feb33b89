"""Difficulty ladder: Bradley-Terry ratings with bootstrap intervals for random, scripted and every mcts preset.

Each pair of agents within `neighbours` places of each other in the ladder's order plays `games` games
(sides swapped every other game, a draw counting half to each). Ratings are fitted on the Elo scale
(`tournament.fit_ratings`); their 95 % intervals come from refitting on pairs' games resampled with
replacement. The ladder is monotone when every agent's rating is above the one before it.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import Progress

from trpg_arena.experiments.evaluate import win_rate
from trpg_arena.experiments.series import SeriesSpec
from trpg_arena.experiments.series.sprt import wilson
from trpg_arena.experiments.tournament import fit_ratings
from trpg_arena.rules import load_encounter

LADDER = ["random", "scripted", "mcts:easy", "mcts:normal", "mcts:hard", "mcts:deadly"]


def ladder_pairs(names: list[str], neighbours: int) -> list[tuple[str, str]]:
    """Pairs of agents at most `neighbours` apart in the ladder's order (0: every pair)."""
    return [(a, b) for i, a in enumerate(names) for j, b in enumerate(names)
            if i < j and (neighbours <= 0 or j - i <= neighbours)]


def _scores(games: dict[tuple[str, str], list[float]]) -> dict[tuple[str, str], tuple[float, int]]:
    score: dict[tuple[str, str], tuple[float, int]] = {}
    for (a, b), points in games.items():
        s, n = float(sum(points)), len(points)
        score[(a, b)] = (s, n)
        score[(b, a)] = (n - s, n)
    return score


def bootstrap_intervals(names: list[str], games: dict[tuple[str, str], list[float]], rounds: int,
                        seed: int) -> dict[str, tuple[float, float]]:
    """2.5 and 97.5 percentiles of each rating over refits on resampled games."""
    rng = np.random.default_rng(seed)
    samples: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(rounds):
        resampled = {pair: list(rng.choice(points, size=len(points))) for pair, points in games.items()}
        for name, rating in fit_ratings(names, _scores(resampled), iters=200).items():
            samples[name].append(rating)
    return {n: (float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))) for n, v in samples.items()}


def run_ladder(encounter: str, names: list[str], games: int, seed: int, neighbours: int, bootstrap: int,
               out: Path, console: Console) -> dict[str, Any]:
    """Play the ladder's pairs and write ladder.csv, pairs.csv, ladder.json, ladder.md and ladder.png under `out`."""
    if len(names) < 2:
        raise ValueError("a ladder needs at least two agents")
    if games < 1:
        raise ValueError(f"--games must be at least 1, got {games}")
    results: dict[tuple[str, str], list[float]] = {}
    pairs = ladder_pairs(names, neighbours)
    sides = load_encounter(encounter).sides()
    with Progress(console=console, transient=True) as progress:
        for a, b in pairs:
            task = progress.add_task(f"{a} vs {b}", total=games)
            spec = SeriesSpec.build(encounter, [a, b], games, first_seed=seed, swap=True)
            _, played = win_rate(spec, on_game=lambda _record, task=task: progress.advance(task))
            results[(a, b)] = [1.0 if r.result == sides[r.agents.index(a)] else (0.5 if r.result == "draw" else 0.0)
                               for r in played]
    ratings = fit_ratings(names, _scores(results))
    intervals = bootstrap_intervals(names, results, bootstrap, seed)
    monotone = all(ratings[names[i]] < ratings[names[i + 1]] for i in range(len(names) - 1))
    rows = [{"agent": n, "rating": ratings[n], "low": round(intervals[n][0], 1), "high": round(intervals[n][1], 1)}
            for n in names]
    pair_rows = []
    for (a, b), points in results.items():
        low, high = wilson(sum(points), len(points))
        pair_rows.append({"a": a, "b": b, "games": len(points), "a_score": round(sum(points) / len(points), 3),
                          "low": round(low, 3), "high": round(high, 3)})
    out.mkdir(parents=True, exist_ok=True)
    _csv(out / "ladder.csv", rows)
    _csv(out / "pairs.csv", pair_rows)
    result = {"encounter": encounter, "games_per_pair": games, "seed": seed, "neighbours": neighbours,
              "monotone": monotone, "ratings": rows, "pairs": pair_rows}
    (out / "ladder.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    (out / "ladder.md").write_text(_markdown(result), encoding="utf-8")
    _plot(rows, out / "ladder.png", encounter)
    return result


def _csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _markdown(result: dict[str, Any]) -> str:
    lines = [f"# Ladder on {result['encounter']} ({result['games_per_pair']} games per pair)", "",
             "| agent | rating | 95 % interval |", "|---|---|---|"]
    lines += [f"| {r['agent']} | {r['rating']:.0f} | {r['low']:.0f} to {r['high']:.0f} |" for r in result["ratings"]]
    lines += ["", f"Monotone: {'yes' if result['monotone'] else 'no'}", "",
              "| pair | games | first's score | Wilson 95 % |", "|---|---|---|---|"]
    lines += [f"| {p['a']} vs {p['b']} | {p['games']} | {p['a_score']:.3f} | {p['low']:.3f} to {p['high']:.3f} |"
              for p in result["pairs"]]
    return "\n".join(lines) + "\n"


def _plot(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.3 * len(rows) + 2, 4))
    x = range(len(rows))
    ratings = [r["rating"] for r in rows]
    err = [[r["rating"] - r["low"] for r in rows], [r["high"] - r["rating"] for r in rows]]
    ax.errorbar(x, ratings, yerr=err, fmt="o", capsize=5)
    ax.set_xticks(list(x), [r["agent"] for r in rows], rotation=20)
    ax.set_ylabel("Bradley-Terry rating (Elo scale)")
    ax.set_title(f"{title}: ladder with 95 % bootstrap intervals")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
