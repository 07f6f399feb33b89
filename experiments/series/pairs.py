"""What a side-swapped series really measured: its seed pairs, split one win each, won twice or lost twice.

A side-swapped series plays each seed twice, the line-up's first agent once from each side, and the dice and
the encounter are seeded by it. A pair split one win each was decided by the seat and the dice, the same
whichever agent sat there; only a pair won twice or lost twice says that the first agent's play changed a game.
So two agents that play alike read 50 % over many games with the pairs nearly all split, and the few pairs
that are not split are where the series learned anything. A pair with a draw in it is none of the three: it is
counted apart (``with_draw``), and a pair drawn twice, which the seat and the dice decided as surely as a
split, is among those and counted again on its own (``drawn_twice``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

WIN, DRAW, LOSS = "won", "drawn", "lost"


@dataclass(frozen=True)
class SeedPairs:
    """How the first agent's seed pairs ended, classed by the two games' outcomes (not by points)."""

    pairs: int
    split: int  # one win and one loss
    won_twice: int
    lost_twice: int
    with_draw: int  # a draw in it: won and drawn, lost and drawn, or drawn twice
    drawn_twice: int  # of `with_draw`, the pairs where both games were draws
    score: float  # the first agent's share of the points (a draw half) over all the pairs' games

    def to_json(self) -> dict[str, float | int]:
        """JSON-safe form (the evaluation summary's ``seed_pairs``)."""
        return {"pairs": self.pairs, "split": self.split, "won_twice": self.won_twice,
                "lost_twice": self.lost_twice, "with_draw": self.with_draw, "drawn_twice": self.drawn_twice,
                "score": round(self.score, 4)}


def first_agent_outcome(sides: Sequence[str], swapped: bool, result: str) -> str:
    """`WIN`, `DRAW` or `LOSS` for the line-up's first agent, who plays the first side unless the game is swapped."""
    if result == "draw":
        return DRAW
    return WIN if result == sides[1 if swapped else 0] else LOSS


def first_agent_points(sides: Sequence[str], games: Iterable[tuple[int, bool, str]]) -> dict[int, float]:
    """The first agent's points per seed from ``(seed, swapped, result)`` per game (a win 1, a draw 0.5)."""
    worth = {WIN: 1.0, DRAW: 0.5, LOSS: 0.0}
    score: dict[int, float] = defaultdict(float)
    for seed, swapped, result in games:
        score[seed] += worth[first_agent_outcome(sides, swapped, result)]
    return score


def count_seed_pairs(sides: Sequence[str], games: Iterable[tuple[int, bool, str]]) -> SeedPairs:
    """The series' seed pairs, classed by the first agent's outcomes in each.

    Two draws make 1 point, as a split does, which is why pairs are classed by outcomes. A seed played once
    (an odd game count, or a series stopped between a pair's games) is no pair: it is left out of the counts
    and of the score.
    """
    outcomes: dict[int, list[str]] = defaultdict(list)
    for seed, swapped, result in games:
        outcomes[seed].append(first_agent_outcome(sides, swapped, result))
    pairs = [sorted(o) for o in outcomes.values() if len(o) == 2]
    kinds = Counter(tuple(p) for p in pairs)
    with_draw = sum(n for kind, n in kinds.items() if DRAW in kind)
    points = sum(p.count(WIN) + p.count(DRAW) / 2 for p in pairs)
    return SeedPairs(len(pairs), kinds[(LOSS, WIN)], kinds[(WIN, WIN)], kinds[(LOSS, LOSS)], with_draw,
                     kinds[(DRAW, DRAW)], points / (2 * max(1, len(pairs))))
