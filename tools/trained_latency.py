"""CPU time of an agent's `propose` per decision on every built-in skirmish, or on the encounters named.

    .venv/bin/python tools/trained_latency.py [SPEC] [DECISIONS] [ENCOUNTER ...]   # default: trained:normal 60
    .venv/bin/python tools/trained_latency.py trained:normal 60 tests/unseen/kiai_sorcery.yaml kiai/skirmish

The positions are those of scripted self-play (every third decision with a real choice, over as
many seeds as it takes); each `propose` is timed with the process's CPU clock, so other load on a
shared machine does not count. The table also gives each encounter's legal actions per decision
(mean and most) and the decisions of a whole game, which is what makes a series long where a single
decision is cheap. `trpg-arena bench --search SPEC` measures the wall-clock latency on the skirmishes.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from trpg_arena.agents import make_agent
from trpg_arena.rules import RULESETS, Combat, builtin_encounters, load_encounter


def skirmishes() -> list[str]:
    """Every rule system's built-in skirmish."""
    return [f"{rid}/skirmish" for rid in RULESETS if f"{rid}/skirmish" in builtin_encounters(RULESETS[rid])]


def measure(name: str, spec: str, wanted: int) -> str:
    """One Markdown row: the encounter, decisions timed, p50 / p95 / max CPU ms, legal actions, game length."""
    times: list[float] = []
    legal: list[int] = []
    lengths: list[int] = []
    seed = 0
    while len(times) < wanted and seed < 50:
        encounter = load_encounter(name)
        rid = encounter.ruleset
        combat = Combat(encounter, seed=100 + seed)
        agent = make_agent(spec, rid, seed=seed)
        script = make_agent("scripted", rid, seed=seed)
        k = 0
        while not combat.over:
            n = len(combat.legal_view())
            legal.append(n)
            if n > 1 and k % 3 == 0 and len(times) < wanted:
                start = time.process_time()
                agent.propose(combat)
                times.append(time.process_time() - start)
            k += 1
            combat.act(script.act(combat))
        lengths.append(k)
        seed += 1
    ms = np.array(times) * 1000
    return (f"| {name} | {len(ms)} | {np.percentile(ms, 50):.0f} | {np.percentile(ms, 95):.0f} | {ms.max():.0f} "
            f"| {np.mean(legal):.0f} / {max(legal)} | {np.mean(lengths):.0f} |")


def main() -> None:
    """Print a Markdown table, one row per encounter."""
    spec = sys.argv[1] if len(sys.argv) > 1 else "trained:normal"
    wanted = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    names = sys.argv[3:] or skirmishes()
    print(f"| encounter ({spec}) | decisions | p50 ms | p95 ms | max ms | legal actions: mean / most "
          "| decisions per game |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        print(measure(name, spec, wanted), flush=True)


if __name__ == "__main__":
    main()
