"""Reading self-play files: one or several ``trpg-arena selfplay`` outputs as one set of arrays.

    from trpg_arena.experiments.selfplay.data import load_positions
    d = load_positions(["data/kiai-1.npz", "data/kiai-2.npz"])

Files of one rule system and one feature layout (the same ``fingerprint``) join: per-position and
per-game arrays are concatenated, ``game`` and ``game_encounter`` renumbered so they stay unique,
and ``source`` (per game: the index of the file it came from) added. A file of another layout is
refused with a one-line error naming it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from trpg_arena.experiments.selfplay.value_fit import read_data

POSITION_KEYS = ("features", "side", "game", "decision", "outcome", "value")
GAME_KEYS = ("game_encounter", "game_seed", "game_swapped", "game_result", "game_decisions")
ENCOUNTER_KEYS = ("encounter_names", "encounter_sides", "encounter_hashes")


def load_positions(paths: Sequence[str | Path]) -> dict[str, np.ndarray]:
    """The positions of every file in `paths`, joined (see the module docstring)."""
    if not paths:
        raise ValueError("no self-play files given")
    parts: dict[str, list[np.ndarray]] = {k: [] for k in (*POSITION_KEYS, *GAME_KEYS, *ENCOUNTER_KEYS, "source")}
    first: dict[str, np.ndarray] | None = None
    games = encounters = 0
    for k, path in enumerate(paths):
        d = read_data(path)
        missing = [key for key in ("fingerprint", "ruleset", *POSITION_KEYS, *GAME_KEYS, *ENCOUNTER_KEYS)
                   if key not in d]
        if missing:
            raise ValueError(f"{path}: not a `trpg-arena selfplay` file (no {', '.join(missing)})")
        if first is None:
            first = d
        elif str(d["fingerprint"]) != str(first["fingerprint"]):
            raise ValueError(f"{path}: feature layout {d['fingerprint']} ({d['ruleset']}), not "
                             f"{first['fingerprint']} ({first['ruleset']}) like {paths[0]}")
        for key in (*POSITION_KEYS, *GAME_KEYS, *ENCOUNTER_KEYS):
            value = d[key]
            if key == "game":
                value = value + games
            elif key == "game_encounter":
                value = value + encounters
            parts[key].append(value)
        parts["source"].append(np.full(len(d["game_result"]), k, np.int32))
        games += len(d["game_result"])
        encounters += len(d["encounter_names"])
    assert first is not None
    out = {key: np.concatenate(v) for key, v in parts.items()}
    for key in ("feature_names", "fingerprint", "ruleset"):
        out[key] = first[key]
    return out
