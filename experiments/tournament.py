"""Round-robin tournaments: a win-rate matrix between agents and Elo-style ratings fitted to it."""

from __future__ import annotations

import csv
import json
import math
from itertools import combinations
from pathlib import Path
from typing import Any

from rich.console import Console

from trpg_arena.experiments.evaluate import agent_a_tally
from trpg_arena.experiments.series import SeriesSpec
from trpg_arena.experiments.series.resume import open_run, play_kept
from trpg_arena.experiments.series.runner import check_backend
from trpg_arena.experiments.series.suite import series_label, slug


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


def unbounded(names: list[str], score: dict[tuple[str, str], tuple[float, int]]) -> dict[str, str]:
    """Agents whose rating the games do not bound, and which way: ``above``, ``below`` or ``both``.

    A Bradley-Terry fit is finite only when every group of agents both took points from and gave points to the
    rest (the graph of "took a point from" is strongly connected). Otherwise a group that lost no point to the others
    could be rated as far above them as the fit runs (its number is only where the iterations stopped), and every
    resample repeats the same sweep: no interval. Such agents are named, their rating read as a bound.
    """
    import networkx as nx

    took: nx.DiGraph[str] = nx.DiGraph()
    took.add_nodes_from(names)
    took.add_edges_from((a, b) for (a, b), (points, _) in score.items() if points > 0)
    groups = list(nx.strongly_connected_components(took))
    if len(groups) <= 1:
        return {}
    out: dict[str, str] = {}
    for group in groups:
        lost = any(a not in group and b in group for a, b in took.edges)  # someone outside took a point from it
        won = any(a in group and b not in group for a, b in took.edges)
        way = "both" if lost and won else ("below" if lost else "above")
        out |= {n: way for n in group}
    return out


def run_tournament(encounter: str, names: list[str], games: int, seed: int, out: Path,
                   console: Console, workers: int | None = None, backend: str = "local",
                   resume: Path | None = None) -> dict[str, Any]:
    """Every pair plays a series of `games` side-swapped games; writes matrix.csv, ratings.json, matrix.png.

    The files go to a run folder under `out` (`result["folder"]`) that keeps each game as it ends
    (``games/<a>--<b>.jsonl``); `resume`, a stopped tournament's folder, plays only the games missing.
    """
    pairs = list(combinations(names, 2))
    specs = {(a, b): SeriesSpec.build(encounter, [a, b], games, seed, swap=True) for a, b in pairs}
    first = specs[pairs[0]]
    settings = {"encounter": first.name, "content_hash": first.content_hash, "env_version": first.env_version,
                "agents": names, "games_per_pair": games, "seed": seed}
    check_backend(backend, workers)  # before the run folder: a refused run leaves none
    folder = open_run(out, f"{encounter}-{'-'.join(names)}", "tournament-spec.json", settings, resume, "tournament")
    (folder / "games").mkdir(exist_ok=True)
    series = [(series_label(encounter, [a, b]), specs[(a, b)], folder / "games" / f"{slug(a)}--{slug(b)}.jsonl")
              for a, b in pairs]
    kept = dict(zip(pairs, play_kept(console, folder, series, workers, backend, resume is not None), strict=True))
    score: dict[tuple[str, str], tuple[float, int]] = {}
    for a, b in pairs:
        tally = agent_a_tally(specs[(a, b)], kept[(a, b)])
        sa = tally["a_wins"] + 0.5 * tally["draws"]
        score[(a, b)] = (sa, games)
        score[(b, a)] = (games - sa, games)
    ratings = fit_ratings(names, score)
    loose = unbounded(names, score)
    with (folder / "matrix.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["agent"] + names)
        for a in names:
            w.writerow([a] + ["" if a == b else round(score[(a, b)][0] / score[(a, b)][1], 3) for b in names])
    result = {"encounter": encounter, "games_per_pair": games, "ratings": ratings, "unbounded": loose,
              "score": {f"{a} vs {b}": round(s / n, 3) for (a, b), (s, n) in score.items()}}
    (folder / "ratings.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    result["folder"] = str(folder)
    _plot(names, score, folder / "matrix.png", encounter)
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
