"""Round-robin tournaments: a win-rate matrix between agents and Elo-style ratings fitted to it."""

from __future__ import annotations

import csv
import json
import math
from itertools import combinations
from pathlib import Path
from typing import Any

from rich.console import Console

from trpg_arena.experiments.evaluate import win_rate
from trpg_arena.experiments.series import SeriesSpec
from trpg_arena.experiments.series.folders import run_folder
from trpg_arena.experiments.series.progress import series_progress


def fit_ratings(names: list[str], score: dict[tuple[str, str], tuple[float, int]],
                iters: int = 500) -> dict[str, float]:
    """Bradley-Terry strengths by minorisation-maximisation, reported on the Elo scale (mean 1500)."""
    strength = {n: 1.0 for n in names}
    for _ in range(iters):
        new = {}
        for i in names:
            wins = sum(score[(i, j)][0] for j in names if j != i and (i, j) in score)
            denom = sum(score[(i, j)][1] / (strength[i] + strength[j]) for j in names if j != i and (i, j) in score)
            new[i] = max(wins, 0.01) / denom if denom else strength[i]
        mean_log = sum(math.log(v) for v in new.values()) / len(new)
        strength = {k: v / math.exp(mean_log) for k, v in new.items()}
    return {n: round(1500 + 400 * math.log10(strength[n]), 1) for n in names}


def run_tournament(encounter: str, names: list[str], games: int, seed: int, out: Path,
                   console: Console, workers: int | None = None, backend: str = "local") -> dict[str, Any]:
    """Every pair plays a series of `games` side-swapped games; writes matrix.csv, ratings.json, matrix.png.

    The files go to a fresh run folder under `out` (`result["folder"]`).
    """
    score: dict[tuple[str, str], tuple[float, int]] = {}
    with series_progress(console) as bar:
        for a, b in combinations(names, 2):
            spec = SeriesSpec.build(encounter, [a, b], games, seed, swap=True)
            summary, _ = win_rate(spec, workers, backend, bar(f"{a} vs {b}", games))
            sa = summary["a_wins"] + 0.5 * summary["draws"]
            score[(a, b)] = (sa, games)
            score[(b, a)] = (games - sa, games)
    ratings = fit_ratings(names, score)
    out = run_folder(out, f"{encounter}-{'-'.join(names)}")
    with (out / "matrix.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["agent"] + names)
        for a in names:
            w.writerow([a] + ["" if a == b else round(score[(a, b)][0] / score[(a, b)][1], 3) for b in names])
    result = {"encounter": encounter, "games_per_pair": games, "ratings": ratings,
              "score": {f"{a} vs {b}": round(s / n, 3) for (a, b), (s, n) in score.items()}}
    (out / "ratings.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    result["folder"] = str(out)
    _plot(names, score, out / "matrix.png", encounter)
    return result


def _plot(names: list[str], score: dict[tuple[str, str], tuple[float, int]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    m = np.full((len(names), len(names)), np.nan)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if a != b:
                m[i, j] = score[(a, b)][0] / score[(a, b)][1]
    fig, ax = plt.subplots(figsize=(1.2 * len(names) + 2, 1.1 * len(names) + 1.5))
    im = ax.imshow(m, vmin=0, vmax=1, cmap="RdYlGn")
    ax.set_xticks(range(len(names)), names)
    ax.set_yticks(range(len(names)), names)
    for i in range(len(names)):
        for j in range(len(names)):
            if i != j:
                ax.text(j, i, f"{100 * m[i, j]:.0f} %", ha="center", va="center")
    ax.set_title(f"{title}: row's score against column")
    fig.colorbar(im)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
