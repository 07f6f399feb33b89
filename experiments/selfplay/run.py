"""``trpg-arena selfplay``: games over built-in and generated encounters, written as positions to one .npz.

The run is a schedule of blocks: block ``k`` plays `SelfplayArgs.per_encounter` games of one
encounter through the series runner (`run_series` with `positions.player`). With both sources, every
fourth block is a built-in encounter (in turn) and the others are generated ones
(`generate.generate(ruleset, seed + k)`); games of block ``k`` play seeds from ``seed + k x
per_encounter``. Everything is a pure function of the arguments: the same command writes the same file.

The file (`np.savez_compressed`) holds, per position: ``features`` (float16, n x layout size),
``side`` (index in the game's ``encounter_sides``), ``game``, ``decision`` (number within the game),
``outcome`` (1 win, 0 draw, -1 loss for the deciding side), ``value`` (the hand-written value); per
game: ``game_encounter``, ``game_seed``, ``game_swapped``, ``game_result``, ``game_decisions``; per
encounter: ``encounter_names``, ``encounter_sides``, ``encounter_hashes``; and the layout's
``feature_names`` and ``fingerprint``, the ``ruleset``, ``agents``, ``noise``, ``sample`` and
``complete`` (False when the run was interrupted: what was played so far is still written).
"""

from __future__ import annotations

import itertools
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from trpg_arena.agents.spec import resolve
from trpg_arena.experiments.runner import check_lineup
from trpg_arena.experiments.selfplay.generate import GENERATORS, generate
from trpg_arena.experiments.selfplay.positions import FEATURE_DTYPE, GamePositions, player
from trpg_arena.experiments.series.runner import BackendError, default_workers, run_series
from trpg_arena.experiments.series.spec import SeriesSpec
from trpg_arena.experiments.series.stopping import sigterm_interrupts
from trpg_arena.rules import EncounterBase, builtin_encounters, get_ruleset, load_encounter
from trpg_arena.rules.core.features import layout_for

SOURCES = ("builtin", "generated")
BUILTIN_EVERY = 4  # with both sources, one block in four is a built-in encounter
PROGRESS_SECONDS = 10.0  # plain progress lines (not a terminal) at most this often


@dataclass(frozen=True)
class SelfplayArgs:
    """What ``trpg-arena selfplay`` was asked for."""

    ruleset: str
    games: int
    out: Path
    agents: tuple[str, ...] = ("scripted", "scripted")
    noise: float = 0.15
    sample: float = 1.0
    encounters: tuple[str, ...] = SOURCES
    per_encounter: int = 8
    seed: int = 0
    workers: int | None = None
    backend: str = "local"

    def check(self) -> None:
        """Raise `ValueError` with one line for a bad argument (before anything is played)."""
        get_ruleset(self.ruleset)
        if self.games < 1:
            raise ValueError(f"--games must be at least 1, got {self.games}")
        if not 0.0 <= self.noise <= 1.0:
            raise ValueError(f"--noise must be in [0, 1], got {self.noise}")
        if not 0.0 < self.sample <= 1.0:
            raise ValueError(f"--sample must be in (0, 1], got {self.sample}")
        if self.per_encounter < 1:
            raise ValueError(f"--per-encounter must be at least 1, got {self.per_encounter}")
        unknown = [s for s in self.encounters if s not in SOURCES]
        if unknown or not self.encounters:
            raise ValueError(f"--encounters takes {' and/or '.join(SOURCES)}, got '{','.join(self.encounters)}'")
        if "generated" in self.encounters and self.ruleset not in GENERATORS:
            raise ValueError(f"no encounter generator for '{self.ruleset}' (have: {', '.join(GENERATORS)}); "
                             "use --encounters builtin")
        if self.out.suffix != ".npz":
            raise ValueError(f"--out must name a .npz file, got '{self.out}'")
        for agent in self.agents:
            resolve(agent, self.ruleset)  # an unknown agent or parameter: UnknownAgentError, one line


def schedule(args: SelfplayArgs) -> Iterator[tuple[str, EncounterBase, int, int]]:
    """(name, encounter, games, first seed) per block, until `args.games` games are scheduled."""
    builtins = builtin_encounters(get_ruleset(args.ruleset)) if "builtin" in args.encounters else []
    both = bool(builtins) and "generated" in args.encounters
    left, k, b = args.games, 0, 0
    while left > 0:
        n = min(args.per_encounter, left)
        first = args.seed + k * args.per_encounter
        if builtins and (not both or k % BUILTIN_EVERY == 0):
            name = builtins[b % len(builtins)]
            b += 1
            yield name, load_encounter(name), n, first
        else:
            yield f"generated:{args.ruleset}:{args.seed + k}", generate(args.ruleset, args.seed + k), n, first
        left -= n
        k += 1


@dataclass
class Collected:
    """Positions and games gathered so far (written by `write`)."""

    games: list[GamePositions] = field(default_factory=list)
    game_encounter: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    sides: list[tuple[str, str]] = field(default_factory=list)
    hashes: list[str] = field(default_factory=list)
    positions: int = 0

    def add_encounter(self, name: str, spec: SeriesSpec) -> int:
        """Remember an encounter block; returns its index."""
        sides = tuple(spec.sides) + ("",) * max(0, 2 - len(spec.sides))
        self.names.append(name)
        self.sides.append((sides[0], sides[1]))
        self.hashes.append(spec.content_hash)
        return len(self.names) - 1

    def add(self, game: GamePositions, encounter: int) -> None:
        """One finished game of encounter `encounter`."""
        self.games.append(game)
        self.game_encounter.append(encounter)
        self.positions += len(game.side)


def write(path: Path, args: SelfplayArgs, data: Collected, complete: bool) -> None:
    """Write the collected positions to `path` (atomically: a temporary file renamed over it)."""
    layout = layout_for(args.ruleset)
    games = data.games
    n = data.positions

    def cat(name: str, dtype: Any, width: int | None = None) -> np.ndarray:
        parts = [getattr(g, name) for g in games]
        if parts:
            return np.concatenate(parts).astype(dtype, copy=False)
        return np.zeros((0, width) if width else (0,), dtype)

    game_ids = np.concatenate([np.full(len(g.side), k, np.int32) for k, g in enumerate(games)]) if games else \
        np.zeros(0, np.int32)
    # Any: numpy's stub would type each array given by ** like savez's bool allow_pickle keyword
    arrays: dict[str, Any] = {
        "features": cat("features", FEATURE_DTYPE, layout.size), "side": cat("side", np.int8), "game": game_ids,
        "decision": cat("decision", np.int32), "outcome": cat("outcome", np.int8), "value": cat("value", np.float32),
        "game_encounter": np.array(data.game_encounter, np.int32),
        "game_seed": np.array([g.seed for g in games], np.int64),
        "game_swapped": np.array([g.swapped for g in games], bool),
        "game_result": np.array([g.result for g in games], dtype=str),
        "game_decisions": np.array([g.decisions for g in games], np.int32),
        "encounter_names": np.array(data.names, dtype=str), "encounter_sides": np.array(data.sides, dtype=str),
        "encounter_hashes": np.array(data.hashes, dtype=str),
        "feature_names": np.array(layout.names, dtype=str), "fingerprint": np.array(layout.fingerprint),
        "ruleset": np.array(args.ruleset), "agents": np.array(",".join(args.agents)),
        "noise": np.array(args.noise), "sample": np.array(args.sample), "complete": np.array(complete),
    }
    assert len(arrays["features"]) == n
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.npz")
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, path)


class Reporter:
    """Progress: a rich bar on a terminal, else a plain line at most every `PROGRESS_SECONDS`."""

    def __init__(self, console: Console, ruleset: str, total: int) -> None:
        self.console, self.ruleset, self.total = console, ruleset, total
        self.start = self.last = time.monotonic()

    def line(self, data: Collected) -> str:
        """The progress line: games, positions and rates so far."""
        dt = max(1e-9, time.monotonic() - self.start)
        games = len(data.games)
        return (f"{self.ruleset}: {games}/{self.total} games, {data.positions:,} positions, "
                f"{games / dt:.2f} games/s, {data.positions / dt:,.0f} positions/s, {dt:,.0f} s")

    def update(self, data: Collected) -> None:
        """Print the line if it is due (or the run is done)."""
        now = time.monotonic()
        if now - self.last >= PROGRESS_SECONDS or len(data.games) == self.total:
            self.last = now
            self.console.print(self.line(data), markup=False, highlight=False)


def _start_ray(args: SelfplayArgs) -> bool:
    """Start Ray once for the whole run (every block is a series; each would start and stop its own).

    Returns whether this call started it (and so must shut it down). Same settings as the series runner's.
    """
    try:
        import ray
    except ImportError:
        raise BackendError("--backend ray needs Ray: pip install 'trpg-arena[ray]'") from None
    if ray.is_initialized():
        return False
    address = os.environ.get("RAY_ADDRESS")
    workers = args.workers or default_workers()
    kwargs: dict[str, Any] = {"address": address} if address else {"num_cpus": workers}
    ray.init(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR, **kwargs)
    return True


def run_selfplay(args: SelfplayArgs, console: Console) -> dict[str, Any]:
    """Play the schedule, write the file, and return a summary (games, positions, rates, path)."""
    args.check()
    play = player(args.noise, args.sample)
    data = Collected()
    report = Reporter(console, args.ruleset, args.games)
    complete = False
    blocks = schedule(args)
    first_block = next(blocks)
    check_lineup(first_block[1].sides(), args.agents)
    ray_started = _start_ray(args) if args.backend == "ray" else False
    try:
        with sigterm_interrupts():
            for name, enc, games, first in itertools.chain([first_block], blocks):
                layout_for(args.ruleset).check(enc)
                spec = SeriesSpec.build(enc, list(args.agents), games, first_seed=first, name=name)
                index = data.add_encounter(name, spec)
                for game in run_series(spec, args.workers, args.backend, play=play):
                    data.add(game, index)
                    report.update(data)
        complete = True
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: keep what was played (`complete` stays False)
        pass
    finally:
        if ray_started:
            import ray

            ray.shutdown()
        if data.games or complete:  # an interrupted run keeps what it played
            write(args.out, args, data, complete)
    elapsed = max(1e-9, time.monotonic() - report.start)
    return {"ruleset": args.ruleset, "games": len(data.games), "positions": data.positions,
            "encounters": len(data.names), "seconds": round(elapsed, 1),
            "games_per_second": round(len(data.games) / elapsed, 3),
            "positions_per_second": round(data.positions / elapsed, 1), "out": str(args.out),
            "bytes": args.out.stat().st_size if args.out.exists() else 0, "complete": complete}
