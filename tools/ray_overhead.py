"""Overhead of the Ray backend against the local pool on the same series, by task size.

    nice -n 10 .venv/bin/python tools/ray_overhead.py --encounter kiai/duel --games 400 --batches 1,4,16,32,64

Ray's start-up is timed apart (`ray_init_s`); each batch size's line gives the series' wall time
on a running local Ray, the local pool's, the overhead in percent and whether the results agree.
"""

from __future__ import annotations

import argparse
import json
import time

import ray

from trpg_arena.experiments.series import SeriesSpec, run_series


def main() -> None:
    """Time the local pool once, then Ray at each batch size."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--encounter", default="kiai/duel")
    p.add_argument("--agents", default="scripted,random")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--batches", default="1,4,16,32,64")
    a = p.parse_args()
    spec = SeriesSpec.build(a.encounter, a.agents.split(","), a.games)
    t0 = time.perf_counter()
    local = "".join(r.line() + "\n" for r in run_series(spec, a.workers))
    local_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    ray.init(num_cpus=a.workers, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    print(json.dumps({"encounter": a.encounter, "games": a.games, "local_s": round(local_s, 2),
                      "ray_init_s": round(time.perf_counter() - t0, 2)}), flush=True)
    for size in (int(b) for b in a.batches.split(",")):
        t0 = time.perf_counter()
        got = "".join(r.line() + "\n" for r in run_series(spec, a.workers, "ray", batch=size))
        s = time.perf_counter() - t0
        print(json.dumps({"batch": size, "ray_s": round(s, 2), "overhead_pct": round(100 * (s / local_s - 1), 1),
                          "identical": got == local}), flush=True)
    ray.shutdown()


if __name__ == "__main__":
    main()
