"""The seed pairs a `trained` agent changed against scripted, played again: were its departures worse where it lost?

    .venv/bin/python tools/changed_pairs.py FOLDER [PAIRS] [PLAYOUTS]   # default: 10 pairs of each kind, 20 play-outs

FOLDER is a side-swapped series of `trpg-arena evaluate ENC --agents SPEC,scripted --out ...` with a
`trained` SPEC. Against scripted a pair is won or lost twice only where the agent's departures from the
scripted choice changed a game (`tools/seed_pairs.py`). The first PAIRS pairs the agent won twice and
the first PAIRS it lost twice are played again exactly as the series played them (each replay must end
as its record says), and at every departure the chosen action and the scripted one are each played out
to the end PLAYOUTS times by the scripted policy on both sides, on the same dice for the two (paired;
`tools/deviation_check.py`'s play-out): the mean difference is what the departure gains against scripted.

One Markdown row per kind of pair and side: departures, the agent's mean estimated gain, the mean play-out
gain with its 95 % interval. If the lost pairs' departures play out as well as the won pairs', the losses
are not the agent's blunders: a departure changes which dice every later roll takes, so a changed pair is
dealt again, and only the departures' mean gain tilts how it falls.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from deviation_check import playout  # the same play-out as the deviation check (this script's folder is on the path)
from seed_pairs import series_folder

from trpg_arena.experiments.runner import agents_for
from trpg_arena.experiments.series.game import encounter_of
from trpg_arena.experiments.series.pairs import first_agent_points
from trpg_arena.rules import Combat, EncounterBase


def departures(enc: EncounterBase, lineup: list[str], seed: int, ours: str, playouts: int
               ) -> tuple[str, list[tuple[float, float]]]:
    """Replay one game; the result and, per departure of `ours`, (estimated gain, play-out gain)."""
    agents = agents_for(enc, lineup, seed)
    combat = Combat(enc, seed=seed)
    found: list[tuple[float, float]] = []
    while combat.decision is not None:
        d = combat.decision
        agent = agents[d.side]
        if d.side != ours or len(combat.legal_view()) == 1:
            combat.act(agent.act(combat))
            continue
        chosen, ranked, _ = agent._decide(combat)  # the estimates behind the choice, not only the choice
        # the scripted choice is the candidate every other is measured against: its paired gain is exactly 0
        scripted = next((s.action for s in ranked if s.gain == 0.0), chosen)
        if chosen != scripted:
            rid = enc.ruleset
            gain = np.mean([playout(combat, chosen, ours, rid, s) - playout(combat, scripted, ours, rid, s)
                            for s in range(7000, 7000 + playouts)])
            found.append((ranked[0].gain, float(gain)))
        combat.act(chosen)
    outcome = combat.outcome
    assert outcome is not None  # the loop ends only when the fight does
    return outcome.result, found


def row(label: str, rows: list[tuple[float, float]]) -> str:
    """A Markdown row: how many departures, the mean estimate, the mean play-out gain with its interval."""
    if not rows:
        return f"| {label} | 0 | | |"
    est = np.array([r[0] for r in rows])
    real = np.array([r[1] for r in rows])
    half = 1.96 * real.std(ddof=1) / np.sqrt(len(real)) if len(real) > 1 else float("nan")
    return (f"| {label} | {len(rows)} | {est.mean():+.3f} | {real.mean():+.3f} "
            f"[{real.mean() - half:+.3f}, {real.mean() + half:+.3f}] |")


def main() -> None:
    """Print the header line, then one row per kind of pair and side of the agent."""
    if len(sys.argv) < 2:
        raise SystemExit("usage: changed_pairs.py FOLDER [PAIRS] [PLAYOUTS]  (a `trpg-arena evaluate --out` folder "
                         "of a trained agent against scripted)")
    folder = series_folder(Path(sys.argv[1]))
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    playouts = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    spec = json.loads((folder / "spec.json").read_text(encoding="utf-8"))
    lineup = list(spec["lineup"])
    if not spec.get("swap") or len(lineup) != 2 or lineup[1] != "scripted" or not lineup[0].startswith("trained"):
        raise SystemExit(f"error: {folder}: expected a side-swapped series of a trained agent against scripted")
    enc = encounter_of(json.dumps(spec["content"]), spec["name"])
    sides = enc.sides()
    records = [json.loads(line) for line in (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    # a pair with a draw in it is neither won nor lost twice
    points = first_agent_points(sides, ((r["seed"], r["swapped"], r["result"]) for r in records))
    groups = {"won twice": [s for s, p in sorted(points.items()) if p == 2][:limit],
              "lost twice": [s for s, p in sorted(points.items()) if p == 0][:limit]}
    found: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for name, seeds in groups.items():
        for r in (r for r in records if r["seed"] in seeds):
            ours = sides[1 if r["swapped"] else 0]
            result, rows = departures(enc, list(r["agents"]), r["seed"], ours, playouts)
            if result != r["result"]:
                raise SystemExit(f"error: seed {r['seed']} (swapped {r['swapped']}) ended {result} when played again, "
                                 f"{r['result']} in the series: not the series' game (another model or rules?)")
            found[name] += rows
            found[f"{name}, as {ours}"] += rows
    print(f"{spec['name']}, {lineup[0]} vs scripted, seed {spec['first_seed']}: {len(groups['won twice'])} pairs won "
          f"twice and {len(groups['lost twice'])} lost twice played again, {playouts} play-outs a departure")
    print("| pairs (agent's side) | departures | estimated gain | play-out gain [95 %] |")
    print("|---|---|---|---|")
    for name in ("won twice", "lost twice"):
        print(row(name, found[name]))
        for side in sides:
            print(row(f"{name}, as {side}", found[f"{name}, as {side}"]))


if __name__ == "__main__":
    main()
