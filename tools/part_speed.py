"""CPU time per decision of one part of scripted play, on states recorded from seeded scripted games.

Plays `--games` seeded games of an encounter with the scripted agent on every side, keeps a copy of the combat
at every decision, then times one part alone over all of them, `--passes` times, and prints the best and
the median pass per state:

- `legal`: the rules' legal set (`Combat._legal_set`);
- `policy`: the scripted agent's choice (`agent.act`), its per-encounter memo of attack values emptied before
  each pass so that every pass meets the same hits and misses as play does.

    taskset -c 1 .venv/bin/python tools/part_speed.py reincarnator/skirmish --part legal --games 40

Compare two checkouts by putting a view of the other one first on `PYTHONPATH`, as for `tools/agent_speed.py`.
Caches that outlive a decision (lines of sight, reach layers, action lists) are warm after the first pass,
which is untimed: the figures are the steady state of a long run.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from typing import Any


def recorded(encounter: str, games: int, first_seed: int) -> list[Any]:
    """A copy of the combat at every decision of `games` seeded scripted games, legal sets worked out."""
    from trpg_arena.agents import make_agent
    from trpg_arena.rules import Combat, load_encounter

    enc = load_encounter(encounter)
    states = []
    for seed in range(first_seed, first_seed + games):
        c = Combat(enc, seed=seed)
        agents = {s: make_agent("scripted", enc.ruleset, seed=seed + i) for i, s in enumerate(c.sides)}
        while not c.over:
            copy = c.clone()
            copy.legal_view()
            states.append(copy)
            d = c.decision
            assert d is not None
            c.act(agents[c.side_of(d.actor)].act(c))
    return states


def main() -> None:
    """Time the part asked for and print one line."""
    from trpg_arena.agents import make_agent

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("encounter")
    ap.add_argument("--part", choices=("legal", "policy"), default="policy")
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--first-seed", type=int, default=100)
    ap.add_argument("--passes", type=int, default=5)
    args = ap.parse_args()
    states = recorded(args.encounter, args.games, args.first_seed)
    agent = make_agent("scripted", states[0].encounter.ruleset, seed=1)

    def one_pass() -> None:
        if args.part == "legal":
            for s in states:
                s._legal_set()
            return
        memo = getattr(states[0].tables, "memo", None)
        if isinstance(memo, dict):
            memo.pop("attack values", None)
        for s in states:
            agent.act(s)

    one_pass()  # untimed: imports and caches
    gc.collect()
    gc.freeze()
    seconds = []
    for _ in range(args.passes):
        start = time.process_time()
        one_pass()
        seconds.append(time.process_time() - start)
    n = len(states)
    print(f"{args.encounter:24} {args.part:7} {n:6} states  best {min(seconds) / n * 1e6:7.1f} us  "
          f"median {statistics.median(seconds) / n * 1e6:7.1f} us per state")


if __name__ == "__main__":
    main()
