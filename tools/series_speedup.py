"""Speed-up of the local pool: each system's skirmish, 1 worker against N, and whether the games agree.

    nice -n 10 .venv/bin/python tools/series_speedup.py --games 200 --workers 2

Prints one JSON line per system: seconds with 1 and N workers, the speed-up and `identical`
(the results files compared byte for byte).
"""

from __future__ import annotations

import argparse
import json
import time

from trpg_arena.experiments.series import SeriesSpec, run_series
from trpg_arena.rules import RULESETS


def main() -> None:
    """Time each skirmish's series at 1 and N workers."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--agents", default="scripted,scripted")
    a = p.parse_args()
    for rid in RULESETS:
        spec = SeriesSpec.build(f"{rid}/skirmish", a.agents.split(","), a.games)
        lines, seconds = [], []
        for workers in (1, a.workers):
            t0 = time.perf_counter()
            lines.append("".join(r.line() + "\n" for r in run_series(spec, workers)))
            seconds.append(time.perf_counter() - t0)
        print(json.dumps({"encounter": spec.name, "games": a.games, "seconds_1": round(seconds[0], 2),
                          f"seconds_{a.workers}": round(seconds[1], 2), "speedup": round(seconds[0] / seconds[1], 2),
                          "identical": lines[0] == lines[1]}), flush=True)


if __name__ == "__main__":
    main()
