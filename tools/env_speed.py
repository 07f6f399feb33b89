"""Where an env step's CPU time goes, per skirmish: features, action mapping, the engine, the rest.

    .venv/bin/python tools/env_speed.py [ENCOUNTER ...] [--games N]

Random masked steps through ``gymnasium.make(id, encounter=E, opponent="random")``, as ``trpg-arena
bench`` plays them, timed on the process's CPU clock (a busy machine does not inflate it). Each part
is the CPU time inside one function, per learner step:

- ``features``: `encode_rows`, the observation (once per step);
- ``actions``: the canonical index of every legal action (`map_legal` and the catalogue lookup);
- ``engine``: `Combat.act`, the learner's action and every opponent decision up to its next one,
  forced decisions and the legal sets of the new decisions included;
- ``rest``: everything else (the env and session loops, masks and info, Gymnasium's wrappers, the
  random learner's choice over the mask).

The timers cost about a microsecond per call, so the parts add up to a little more than an untimed run.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

import trpg_arena.agents.canonical as canonical
import trpg_arena.envs  # noqa: F401 - registers the envs
from trpg_arena.agents.codec import Codec
from trpg_arena.rules import RULESETS, Combat

CLOCK = time.process_time


def _timed(owner: Any, name: str, spent: dict[str, float], part: str) -> None:
    """Replace ``owner.name`` with a wrapper adding its CPU time to ``spent[part]``."""
    inner: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = CLOCK()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[part] += CLOCK() - start

    setattr(owner, name, wrapper)


def _play(env: Any, rng: np.random.Generator, seeds: range) -> tuple[int, int]:
    """Learner steps and engine decisions of random masked games."""
    steps = decisions = 0
    for seed in seeds:
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, _, done, _, info = env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        decisions += env.unwrapped.combat.decision_count
    return steps, decisions


def main() -> None:
    """Print a Markdown table: encounter, steps/s, and microseconds per step of each part."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("encounters", nargs="*", help="default: every system's skirmish")
    parser.add_argument("--games", type=int, default=40, help="timed games per encounter (after 5 warm-up games)")
    args = parser.parse_args()
    names = args.encounters or [f"{rid}/skirmish" for rid in RULESETS]
    spent = {"features": 0.0, "actions": 0.0, "engine": 0.0}
    _timed(canonical, "encode_rows", spent, "features")
    _timed(canonical, "map_legal", spent, "actions")
    _timed(Codec, "indices", spent, "actions")
    _timed(Combat, "act", spent, "engine")
    print("| encounter | steps/s | decisions/step | us/step | features | actions | engine | rest |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        env = gymnasium.make(RULESETS[name.split("/")[0]].info.env_id, encounter=name, opponent="random")
        rng = np.random.default_rng(0)
        _play(env, rng, range(10_000, 10_005))  # warm-up on other seeds: the memos start cold for the timed games
        gc.collect()
        gc.freeze()
        for part in spent:
            spent[part] = 0.0
        start = CLOCK()
        steps, decisions = _play(env, rng, range(args.games))
        total = CLOCK() - start
        per = {k: v / steps * 1e6 for k, v in spent.items()}
        rest = total / steps * 1e6 - sum(per.values())
        print(f"| {name} | {steps / total:,.0f} | {decisions / steps:.2f} | {total / steps * 1e6:.0f} | "
              f"{per['features']:.0f} | {per['actions']:.0f} | {per['engine']:.0f} | {rest:.0f} |")


if __name__ == "__main__":
    main()
