"""CPU time of an agent's `propose` per decision on every built-in skirmish (one core's cost).

    .venv/bin/python tools/trained_latency.py [SPEC] [DECISIONS]     # default: trained:normal 60

The positions are those of scripted self-play (every third decision with a real choice, over as
many seeds as it takes); each `propose` is timed with the process's CPU clock, so other load on a
shared machine does not count. `trpg-arena bench --search SPEC` measures the wall-clock latency.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from trpg_arena.agents import make_agent
from trpg_arena.rules import RULESETS, Combat, builtin_encounters, load_encounter


def main() -> None:
    """Print a Markdown table: skirmish, decisions, p50, p95 and max CPU milliseconds."""
    spec = sys.argv[1] if len(sys.argv) > 1 else "trained:normal"
    wanted = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    print(f"| skirmish ({spec}) | decisions | p50 ms | p95 ms | max ms |")
    print("|---|---|---|---|---|")
    for rid in RULESETS:
        name = f"{rid}/skirmish"
        if name not in builtin_encounters(RULESETS[rid]):
            continue
        times: list[float] = []
        seed = 0
        while len(times) < wanted and seed < 50:
            combat = Combat(load_encounter(name), seed=100 + seed)
            agent = make_agent(spec, rid, seed=seed)
            script = make_agent("scripted", rid, seed=seed)
            k = 0
            while not combat.over and len(times) < wanted:
                if len(combat.legal_view()) > 1 and k % 3 == 0:
                    start = time.process_time()
                    agent.propose(combat)
                    times.append(time.process_time() - start)
                k += 1
                combat.act(script.act(combat))
            seed += 1
        ms = np.array(times) * 1000
        print(f"| {name} | {len(ms)} | {np.percentile(ms, 50):.0f} | {np.percentile(ms, 95):.0f} | {ms.max():.0f} |",
              flush=True)


if __name__ == "__main__":
    main()
