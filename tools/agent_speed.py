"""Scripted play's decisions per CPU second per encounter, and a hash of every game's events.

Plays seeded games with the system's scripted agent (or `--agent`) on every side and reports, per encounter, the
decisions taken, the process's CPU seconds, decisions per CPU second and a SHA-256 of the games' event
logs (every decision and roll in order), so a speed change can show it plays the very same games:

    taskset -c 1 .venv/bin/python tools/agent_speed.py --games 20 --json runs/agent_speed.json

To compare two checkouts in one session, run the script from each in turn (alternating, a few times)
and take the medians; `--hash-only` checks the decisions of many games quickly.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import time

TARGETS = ["kiai/skirmish", "kiai/brawl", "investigator/skirmish", "investigator/brawl",
           "reincarnator/skirmish", "reincarnator/brawl", "moonlit/skirmish", "moonlit/brawl"]


def _play():
    """`play` from wherever this checkout keeps it."""
    try:
        from trpg_arena.table.session import play
    except ImportError:  # older layouts kept the session with the agents
        from trpg_arena.agents.session import play  # type: ignore[no-redef]  # an older checkout's layout
    return play


def run(encounter: str, games: int, first_seed: int = 0, agent: str = "scripted") -> dict[str, object]:
    """Play `games` games of `encounter` with `agent` on every side; their decisions, CPU seconds and events' hash."""
    from trpg_arena.agents import make_agent
    from trpg_arena.rules import Combat, load_encounter

    play = _play()
    enc = load_encounter(encounter)
    digest = hashlib.sha256()
    # as `trpg-arena bench` does: the objects of imports and setup go to the permanent generation, so full
    # collections do not rescan them
    gc.collect()
    gc.freeze()
    decisions = 0
    seconds = 0.0
    for seed in [10**6, *range(first_seed, first_seed + games)]:  # seed 10**6 warms the encounter's caches, untimed
        start = time.process_time()
        c = Combat(enc, seed=seed)
        agents = [make_agent(agent, enc.ruleset, seed=seed + i) for i in range(len(c.sides))]
        play(c, agents)
        if seed == 10**6:
            continue
        seconds += time.process_time() - start
        decisions += c.decision_count
        for e in c.log:
            digest.update(f"{e.kind}|{e.text}\n".encode())
    return {"encounter": encounter, "games": games, "decisions": decisions, "seconds": round(seconds, 4),
            "per_second": round(decisions / seconds, 1) if seconds else 0.0, "hash": digest.hexdigest()[:16]}


def main() -> None:
    """Measure every target named and print one line each (and the JSON file, if asked)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--agent", default="scripted", help="the agent on every side (random: the engine alone)")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    rows = []
    for target in args.targets.split(","):
        row = run(target, args.games, args.first_seed, args.agent)
        rows.append(row)
        print(f"{row['encounter']:24} {row['decisions']:7} decisions {row['seconds']:8.2f} s "
              f"{row['per_second']:9.1f}/s  {row['hash']}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
