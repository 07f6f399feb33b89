"""Self-play positions for the learned value: every decision of seeded games, with the final result.

A game is played by one line-up agent per side (the scripted agent by default, or a learned agent of
an earlier generation), each decision replaced by a random legal one with probability `noise`, so
the data holds positions the policy alone would never reach. Every decision is recorded from the
deciding side's view: the feature vector (`rules.core.features.encode`), the side, the decision
number, the hand-written value (`agents.search.value`) and, once the game is over, whether that side
won. Games run on a process pool (`workers`); a seed gives the same file on any machine.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from trpg_arena.rules import Combat, load_encounter


def play_game(encounter: str, seed: int, agents: Sequence[str], noise: float, keep: float = 1.0,
              max_decisions: int = 3000) -> dict[str, np.ndarray]:
    """One game's positions: features, side index, decision number, hand value, won (from the decider).

    The line-up agents take the sides in turn, starting from the seed's parity (so they swap sides by game).
    Each decision is kept with probability `keep`: neighbouring positions of a game say nearly the same.
    """
    from trpg_arena.agents.search.value import position_value
    from trpg_arena.agents.spec import make_agent
    from trpg_arena.rules.core.features import encode

    combat = Combat(load_encounter(encounter), seed=seed)
    combat.recording = False
    ruleset = combat.encounter.ruleset
    sides = list(combat.sides)
    rng = np.random.default_rng([seed, 7])
    players = {s: make_agent(agents[(i + seed) % len(agents)], ruleset, seed=int(rng.integers(2**31)))
               for i, s in enumerate(sides)}
    xs, side_ix, numbers, hand = [], [], [], []
    n = 0
    while combat.state.outcome is None and n < max_decisions:
        d = combat.decision
        assert d is not None and d.side is not None  # an unfinished combat has a decision, with its side
        legal = combat.legal_view()
        if len(legal) > 1 and (keep >= 1 or rng.random() < keep):
            xs.append(encode(combat, d.side))
            side_ix.append(sides.index(d.side))
            numbers.append(n)
            hand.append(position_value(combat, d.side))
        if noise > 0 and len(legal) > 1 and rng.random() < noise:
            action = legal[int(rng.integers(len(legal)))]
        else:
            action = players[d.side].act(combat)
        combat.act(action)
        n += 1
    result = combat.state.outcome.result if combat.state.outcome is not None else "draw"
    # 1 win, 0 draw, -1 loss for the deciding side (as `trpg-arena selfplay` writes it)
    won = np.array([0.0 if result == "draw" else 1.0 if sides[s] == result else -1.0 for s in side_ix],
                   dtype=np.float32)
    from trpg_arena.rules.core.features import layout_for

    size = layout_for(ruleset).size
    return {"features": np.stack(xs) if xs else np.zeros((0, size), np.float32),
            "side": np.array(side_ix, np.int8), "decision": np.array(numbers, np.int32),
            "hand_value": np.array(hand, np.float32), "outcome": won}


def _job(args: tuple[str, int, tuple[str, ...], float, float]) -> dict[str, np.ndarray]:
    return play_game(*args)


def generate(ruleset: str, encounters: Sequence[str], games: int, seed: int, out: Path,
             agents: Sequence[str] = ("scripted",), noise: float = 0.1, workers: int = 1,
             on_game: Any = None, keep: float = 1.0) -> dict[str, Any]:
    """Play `games` games spread over `encounters` and write their positions to `out` (an ``.npz``)."""
    from trpg_arena.rules.core.features import layout_for

    layout = layout_for(ruleset)
    for enc in encounters:
        e = load_encounter(enc)
        if e.ruleset != ruleset:
            raise ValueError(f"{enc} is a {e.ruleset} encounter, not {ruleset}")
        layout.check(e)
    jobs = [(encounters[i % len(encounters)], seed + i, tuple(agents), noise, keep) for i in range(games)]
    started = time.perf_counter()
    parts: list[dict[str, np.ndarray]] = []
    if min(workers, len(jobs)) > 1:  # no process without a game to play
        with multiprocessing.get_context("spawn").Pool(min(workers, len(jobs))) as pool:
            for part in pool.imap(_job, jobs, chunksize=4):
                parts.append(part)
                if on_game:
                    on_game()
    else:
        for job in jobs:
            parts.append(_job(job))
            if on_game:
                on_game()
    game = np.concatenate([np.full(len(p["outcome"]), i, np.int32) for i, p in enumerate(parts)])
    # Any: numpy's stub would type each array given by ** like savez's bool allow_pickle keyword
    data: dict[str, Any] = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    encounter_ix = np.concatenate([np.full(len(p["outcome"]), i % len(encounters), np.int16)
                                   for i, p in enumerate(parts)])
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as fh:
        np.savez_compressed(fh, **data, game=game, encounter=encounter_ix, encounters=np.array(list(encounters)),
                            ruleset=np.array(ruleset), fingerprint=np.array(layout.fingerprint),
                            agents=np.array(list(agents)), noise=np.array(noise), seed=np.array(seed),
                            keep=np.array(keep), outcome_kind=np.array("signed"))
    return {"file": str(out), "games": games, "positions": int(len(game)),
            "seconds": round(time.perf_counter() - started, 1)}
