"""Playing a series: in this process, on a local process pool, or on Ray; records stream in game order.

Every game is a pure function of (spec, index) (`game.play_one`), so the backends and worker counts
only change who plays a game, never its record. Work goes out in batches of consecutive games
(a few per pool task; tens per Ray task, since Ray advises against tasks under ~10 ms) and comes
back in order, so a consumer that stops early (the sequential test) stops at the same game
whatever ran it. Leaving the loop early cancels the games not yet needed.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator
from multiprocessing.context import BaseContext
from typing import Any

from trpg_arena.experiments.series.game import GameRecord, play_batch
from trpg_arena.experiments.series.spec import SeriesSpec

BACKENDS = ("local", "ray")
LOCAL_BATCH = 4  # games per pool task: small enough to balance two workers, large enough to amortise pickling
RAY_BATCH = 32  # games per Ray task (see docs/regression.md for the overhead measured against task size)
# worker processes one machine may be asked for: `--workers 1000000` started processes until the system's process
# table was full (other programs could not start); a cluster's share goes through --backend ray
MAX_LOCAL_WORKERS = 256


class BackendError(ValueError):
    """A backend that cannot run here (Ray not installed, a bad worker count)."""


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _batches(games: int, size: int, start: int = 0) -> list[list[int]]:
    return [list(range(s, min(games, s + size))) for s in range(start, games, size)]


def check_backend(backend: str, workers: int | None) -> int:
    """The worker count to use (the default when None); a `BackendError` for an unknown backend or under 1.

    Commands that make a run folder call it first, so a refused run leaves none behind.
    """
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend '{backend}' (known: {', '.join(BACKENDS)})")
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise BackendError(f"--workers must be at least 1, got {workers}")
    if backend == "local" and workers > MAX_LOCAL_WORKERS:
        raise BackendError(f"--workers {workers}: at most {MAX_LOCAL_WORKERS} processes on one machine (this one has "
                           f"{default_workers()} cores); --backend ray spreads a series over a cluster")
    return workers


def run_series(spec: SeriesSpec, workers: int | None = None, backend: str = "local", batch: int | None = None,
               on_game: Callable[[GameRecord], None] | None = None,
               play: Callable[[SeriesSpec, list[int]], list[Any]] = play_batch, start: int = 0) -> Iterator[Any]:
    """Yield the series' game records in index order (see the module docstring), from game `start` on.

    `start` resumes a series whose first games were kept: they need not be played again.

    `play` plays a batch of games (default `play_batch`, which gives `GameRecord`s); another picklable
    function of (spec, indices) makes the runner yield its results instead (self-play positions).
    """
    workers = check_backend(backend, workers)
    if backend == "ray":
        source: Iterator[list[Any]] = _ray(spec, workers, _batches(spec.games, batch or RAY_BATCH, start), play)
    else:
        batches = _batches(spec.games, batch or LOCAL_BATCH, start)
        workers = min(workers, len(batches))  # no process without a batch of games to play
        if workers <= 1:
            source = (play(spec, b) for b in batches)
        else:
            source = _pool(spec, workers, batches, play)
    try:
        for records in source:
            for r in records:
                if on_game is not None:
                    on_game(r)
                yield r
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()


def _play(args: tuple[Callable[[SeriesSpec, list[int]], list[Any]], SeriesSpec, list[int]]) -> list[Any]:
    play, spec, indices = args
    return play(spec, indices)


def pool_context(play: Callable[..., Any] = play_batch) -> BaseContext:
    """How the pool's workers start.

    fork is instant (a worker inherits this process's imports), but only safe while this process has
    one thread: a child forked while another thread holds a lock (a progress bar's refresh, logging, a
    server's client) copies that lock held and waits on it for ever. With other threads about, workers
    come from a forkserver, a fresh single-threaded process that imports the game code once and forks
    each worker from there.
    """
    methods = mp.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return mp.get_context("fork")
    if "forkserver" in methods:
        context = mp.get_context("forkserver")
        # takes effect when the server first starts; an import that fails there is simply skipped
        context.set_forkserver_preload(sorted({"__main__", __name__, getattr(play, "__module__", None) or __name__}))
        return context
    return mp.get_context("spawn")


def _pool(spec: SeriesSpec, workers: int, batches: list[list[int]],
          play: Callable[[SeriesSpec, list[int]], list[Any]] = play_batch) -> Iterator[list[Any]]:
    pool = pool_context(play).Pool(workers)
    try:
        yield from pool.imap(_play, ((play, spec, b) for b in batches))
    finally:
        pool.terminate()
        pool.join()


def _ray(spec: SeriesSpec, workers: int, batches: list[list[int]],
         play: Callable[[SeriesSpec, list[int]], list[Any]] = play_batch) -> Iterator[list[Any]]:
    try:
        import ray
    except ImportError:
        raise BackendError("--backend ray needs Ray: pip install 'trpg-arena[ray]'") from None
    started = not ray.is_initialized()
    if started:
        address = os.environ.get("RAY_ADDRESS")
        kwargs: dict[str, Any] = {"address": address} if address else {"num_cpus": workers}
        ray.init(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR, **kwargs)
    remote = ray.remote(_call)
    spec_ref = ray.put(spec)
    window = max(2, 2 * int(ray.cluster_resources().get("CPU", workers)))  # tasks in flight
    todo = deque(batches)
    flight: deque[Any] = deque()
    try:
        while todo or flight:
            while todo and len(flight) < window:
                flight.append(remote.remote(play, spec_ref, todo.popleft()))
            yield ray.get(flight.popleft())
    finally:
        for ref in flight:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


def _call(play: Callable[[SeriesSpec, list[int]], list[Any]], spec: SeriesSpec, indices: list[int]) -> list[Any]:
    """A Ray task: `play` on a batch (a plain function, since Ray wraps functions, not partials)."""
    return play(spec, indices)
