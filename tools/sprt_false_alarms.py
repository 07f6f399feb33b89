"""False-alarm rate of the sequential balance test: an unchanged build, rerun with fresh seeds.

Records one baseline of `--baseline-games` games (seed 0), then reruns the same series `--runs`
times, each from fresh seeds (so unpaired against the baseline), and counts how many runs the
sequential test calls "shifted". Run from the project root:

    nice -n 10 .venv/bin/python tools/sprt_false_alarms.py --runs 100 --delta 0.1 --workers 2

Prints one line per run and a JSON summary at the end (the rate should be at most alpha).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from trpg_arena.experiments.regression import run_entry
from trpg_arena.experiments.series.suite import make_entry


def main() -> None:
    """Parse the options, record the baseline, rerun and report."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--encounter", default="moonlit/duel")
    p.add_argument("--agents", default="scripted,scripted")
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--baseline-games", type=int, default=1000)
    p.add_argument("--cap", type=int, default=600, help="game cap of each sequential run")
    p.add_argument("--delta", type=float, default=0.1)
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--workers", type=int, default=None)
    a = p.parse_args()
    agents = tuple(a.agents.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "baseline.json"
        t0 = time.perf_counter()
        run_entry(make_entry(a.encounter, agents, base, games=a.baseline_games), record=True, workers=a.workers)
        print(f"baseline: {a.baseline_games} games in {time.perf_counter() - t0:.0f} s", flush=True)
        entry = make_entry(a.encounter, agents, base, games=a.cap, delta=a.delta, alpha=a.alpha)
        flagged, used, truncated = 0, [], 0
        for k in range(a.runs):
            seed = 1_000_000 + k * a.cap  # fresh seeds: no game shared with the baseline or another run
            o = run_entry(entry, seed=seed, workers=a.workers)
            flagged += o.status == "shifted"
            used.append(o.summary["games_used"])
            truncated += bool(o.summary["test"].get("truncated"))
            print(f"run {k}: {o.status}, {o.summary['games_used']} games", flush=True)
    print(json.dumps({"encounter": a.encounter, "agents": a.agents, "runs": a.runs, "flagged": flagged,
                      "false_alarm_rate": flagged / a.runs, "delta": a.delta, "alpha": a.alpha,
                      "baseline_games": a.baseline_games, "cap": a.cap, "truncated": truncated,
                      "mean_games": sum(used) / len(used), "max_games": max(used),
                      "seconds": round(time.perf_counter() - t0)}))


if __name__ == "__main__":
    main()
