"""CPU time per decision of one part of scripted play, on states recorded from seeded scripted games.

Plays `--games` seeded games of an encounter with the scripted agent on every side, keeps a copy of the combat
at every decision, then times one part alone over all of them, `--passes` times, and prints the best and
the median pass per state:

- `legal`: the rules' legal set (`Combat._legal_set`);
- `policy`: the scripted agent's choice (`agent.act`), the policy's per-encounter memos (reincarnator's attack
  values and odds, investigator's shot odds) emptied before each pass so that every pass meets the same hits and
  misses as play does.

    taskset -c 1 .venv/bin/python tools/part_speed.py reincarnator/skirmish --part legal --games 40

Compare two checkouts by putting a view of the other one first on `PYTHONPATH`, as for `tools/agent_speed.py`.
On a busy machine runs in separate processes drift by more than a policy change of a few per cent, so `--base`
compares two policies in one process instead: the system's `tactics.py` of another checkout (its root) is loaded
beside this one, and the two policies take every state in turn, in alternating passes; it prints both medians,
their ratio, every pass's ratio, and whether both chose the same action on every state:

    taskset -c 1 .venv/bin/python tools/part_speed.py investigator/skirmish --games 30 --passes 11 --base ../other

The base policy runs on this checkout's rules, so only a change to the tactics module itself can be compared so.
Caches that outlive a decision (lines of sight, reach layers, action lists) are warm after the first pass,
which is untimed: the figures are the steady state of a long run.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import statistics
import time
from pathlib import Path
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


def forget(states: list[Any]) -> None:
    """Empty the policies' per-encounter memos, so that a pass meets the hits and misses that play meets."""
    memo = getattr(states[0].tables, "memo", None)
    if isinstance(memo, dict):
        memo.pop("attack values", None)
        memo.pop("attack odds", None)
        memo.pop("blast values", None)
    if states[0].encounter.ruleset == "investigator":
        from trpg_arena.rules.investigator.catalogue import catalogue_of

        odds = getattr(catalogue_of(states[0].tables), "shot_odds", None)  # an older checkout has none
        if odds is not None:
            odds.clear()


def base_policy(policy: Any, base: str, ruleset: str) -> Any:
    """A policy of the class `policy` has, built from the `tactics.py` of the checkout rooted at `base`."""
    path = Path(base) / "rules" / ruleset / "tactics.py"
    spec = importlib.util.spec_from_file_location(f"base_{ruleset}_tactics", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, type(policy).__name__)(ruleset=ruleset, rng=policy.rng)


def compare(encounter: str, states: list[Any], policy: Any, base: str, passes: int) -> None:
    """Time this checkout's policy and the base checkout's on every state, alternating passes, and print both."""
    import numpy as np

    ruleset = states[0].encounter.ruleset
    sides = {"base": base_policy(policy, base, ruleset), "this": policy}
    choices: dict[str, list[Any]] = {}
    seconds: dict[str, list[float]] = {"base": [], "this": []}

    def one_pass(name: str) -> float:
        p = sides[name]
        p.rng = np.random.default_rng(1)  # a policy that breaks ties draws the same numbers on both sides
        forget(states)
        start = time.process_time()
        choices[name] = [p.ranked(s).action for s in states]
        return time.process_time() - start

    for name in sides:  # untimed: imports and caches
        one_pass(name)
    gc.collect()
    gc.freeze()
    for i in range(passes):
        for name in ("base", "this") if i % 2 == 0 else ("this", "base"):
            seconds[name].append(one_pass(name) / len(states) * 1e6)
    b, t = statistics.median(seconds["base"]), statistics.median(seconds["this"])
    ratios = " ".join(f"{x / y:.2f}" for x, y in zip(seconds["base"], seconds["this"]))
    same = "same choices" if choices["base"] == choices["this"] else "DIFFERENT CHOICES"
    print(f"{encounter:24} policy {len(states):6} states  base {b:7.1f} us  this {t:7.1f} us  "
          f"x {b / t:.3f}  passes {ratios}  {same}")


def main() -> None:
    """Time the part asked for and print one line."""
    from trpg_arena.agents import make_agent

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("encounter")
    ap.add_argument("--part", choices=("legal", "policy"), default="policy")
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--first-seed", type=int, default=100)
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--base", help="the root of a checkout whose policy to compare with (policy only)")
    args = ap.parse_args()
    states = recorded(args.encounter, args.games, args.first_seed)
    agent = make_agent("scripted", states[0].encounter.ruleset, seed=1)
    if args.base:
        compare(args.encounter, states, agent.policy, args.base, args.passes)
        return

    def one_pass() -> None:
        if args.part == "legal":
            for s in states:
                s._legal_set()
            return
        forget(states)
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
