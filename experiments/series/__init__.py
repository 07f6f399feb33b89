"""Series of seeded games: one frozen spec, one runner, and the reducers built on its results.

`SeriesSpec` names everything a result depends on (the encounter's content and its hash, the rule
system's ``env_version``, the agent line-up, the seeds, side swapping). `run_series` plays it on a
local process pool or on Ray and yields `GameRecord`s in game order, the same whatever the number
of workers. evaluate, tournament, regress and balance are reducers over those records.
"""

from trpg_arena.experiments.series.game import GameRecord, play_one
from trpg_arena.experiments.series.runner import run_series
from trpg_arena.experiments.series.spec import SeriesSpec

__all__ = ["GameRecord", "SeriesSpec", "play_one", "run_series"]
