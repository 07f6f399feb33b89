"""What a side-swapped series really measured: its seed pairs, split one game each, won twice or lost twice.

A side-swapped series plays each seed twice, the line-up's first agent once from each side, and the dice and
the encounter are seeded by it. A pair split one game each was decided by the seat and the dice, the same
whichever agent sat there; only a pair won twice or lost twice says that the first agent's play changed a game.
So two agents that play alike read 50 % over many games with the pairs nearly all split, and the few pairs
that are not split are where the series learned anything.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SeedPairs:
    """How many seed pairs the first agent won 0, 1 or 2 times (a draw counts half)."""

    pairs: int
    split: int  # one game each
    won_twice: int
    lost_twice: int
    with_draw: int  # a pair with a draw in it (half points)
    score: float  # the first agent's share of the points over all the pairs' games

    def to_json(self) -> dict[str, float | int]:
        """JSON-safe form (the evaluation summary's ``seed_pairs``)."""
        return {"pairs": self.pairs, "split": self.split, "won_twice": self.won_twice,
                "lost_twice": self.lost_twice, "with_draw": self.with_draw, "score": round(self.score, 4)}


def first_agent_points(sides: Sequence[str], games: Iterable[tuple[int, bool, str]]) -> dict[int, float]:
    """The first agent's points per seed from ``(seed, swapped, result)`` per game (a win 1, a draw 0.5).

    The first agent plays the first side unless the game is swapped.
    """
    score: dict[int, float] = defaultdict(float)
    for seed, swapped, result in games:
        first_side = sides[1 if swapped else 0]
        score[seed] += 1.0 if result == first_side else 0.5 if result == "draw" else 0.0
    return score


def count_seed_pairs(sides: Sequence[str], games: Iterable[tuple[int, bool, str]]) -> SeedPairs:
    """The series' seed pairs, counted by the first agent's points in each.

    A seed played once (an odd game count, or a series stopped between a pair's games) is no pair: it is left
    out of the counts and of the score.
    """
    games = list(games)
    played = Counter(seed for seed, _, _ in games)
    score = {seed: points for seed, points in first_agent_points(sides, games).items() if played[seed] == 2}
    counts = Counter(score.values())
    split, won, lost = counts[1.0], counts[2.0], counts[0.0]
    return SeedPairs(len(score), split, won, lost, len(score) - split - won - lost,
                     sum(score.values()) / (2 * max(1, len(score))))
