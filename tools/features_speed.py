"""CPU time of `encode` per position on each built-in encounter (positions of random play).

    .venv/bin/python tools/features_speed.py

Each position is encoded once as it is reached (the first call, as a search meets it), timed with
the thread's CPU clock so a busy machine does not inflate the figures.
"""

from __future__ import annotations

import time

import numpy as np

from trpg_arena.agents import make_agent
from trpg_arena.rules import RULESETS, Combat, builtin_encounters
from trpg_arena.rules.core.features import encode

POSITIONS = 300  # per encounter, over a few seeds


def main() -> None:
    """Print a Markdown table: encounter, positions, mean, median and p95 CPU microseconds."""
    print("| encounter | positions | mean us | median us | p95 us |")
    print("|---|---|---|---|---|")
    for rid in RULESETS:
        for name in builtin_encounters(RULESETS[rid]):
            times: list[float] = []
            seed = 0
            while len(times) < POSITIONS and seed < 20:
                combat = Combat(name, seed=seed)
                agent = make_agent("random", rid, seed=seed)
                while combat.decision is not None and len(times) < POSITIONS:
                    side = combat.decision.side or combat.side_of(combat.decision.actor)
                    t0 = time.thread_time()
                    encode(combat, side)
                    times.append(time.thread_time() - t0)
                    combat.act(agent.act(combat))
                seed += 1
            us = np.array(times) * 1e6
            print(f"| {name} | {len(us)} | {us.mean():.0f} | {np.median(us):.0f} | {np.percentile(us, 95):.0f} |")


if __name__ == "__main__":
    main()
