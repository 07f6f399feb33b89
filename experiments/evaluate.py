"""Win-rate evaluation of one agent against another over many seeded games (files plus a plot)."""

from __future__ import annotations

import csv
import json
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress

from trpg_arena.experiments.runner import GameResult, play_game
from trpg_arena.rules import load_encounter


def win_rate(encounter: Any, names: list[str], games: int, seed: int = 0, swap: bool = True,
             progress: Progress | None = None) -> tuple[dict[str, Any], list[GameResult]]:
    """Play `games` games of names[0] vs names[1] (sides swapped every other game when `swap`)."""
    if len(names) != 2:
        raise ValueError("evaluation needs exactly two agent names, A,B")
    enc = load_encounter(encounter)
    results = []
    task = progress.add_task("games", total=games) if progress else None
    for i in range(games):
        swapped = swap and i % 2 == 1
        _, res = play_game(enc, names, seed + i, swap=swapped)
        results.append(res)
        if progress is not None and task is not None:
            progress.advance(task)
    a_side = {True: enc.sides()[1], False: enc.sides()[0]}
    tally: Counter[str] = Counter()
    for i, r in enumerate(results):
        side_a = a_side[swap and i % 2 == 1]
        tally["a_wins" if r.result == side_a else ("draws" if r.result == "draw" else "b_wins")] += 1
    summary = {"encounter": enc.encounter, "ruleset": enc.ruleset, "agent_a": names[0], "agent_b": names[1],
               "games": games, "swap": swap, "a_wins": tally["a_wins"], "b_wins": tally["b_wins"],
               "draws": tally["draws"], "a_win_rate": tally["a_wins"] / games if games else 0.0,
               "mean_rounds": sum(r.rounds for r in results) / games if games else 0.0}
    return summary, results


def run_evaluation(encounter: str, names: list[str], games: int, seed: int, swap: bool, out: Path,
                   console: Console) -> dict[str, Any]:
    """Evaluate and write results.json, games.csv and winrate.png under `out`."""
    with Progress(console=console, transient=True) as progress:
        summary, results = win_rate(encounter, names, games, seed, swap, progress)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    with (out / "games.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["seed", "agents", "result", "termination", "rounds", "decisions"])
        w.writeheader()
        for r in results:
            d = asdict(r)
            w.writerow({k: (json.dumps(d[k]) if k == "agents" else d[k]) for k in w.fieldnames})
    _plot(summary, out / "winrate.png")
    return summary


def _plot(summary: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3))
    labels = [f"{summary['agent_a']} wins", f"{summary['agent_b']} wins", "draws"]
    values = [summary["a_wins"], summary["b_wins"], summary["draws"]]
    ax.bar(labels, values, color=["#3478f6", "#e6463c", "#999999"])
    ax.set_title(f"{summary['ruleset']}/{summary['encounter']}: {summary['games']} games")
    ax.set_ylabel("games")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
