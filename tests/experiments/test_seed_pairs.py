"""Seed pairs and the head-to-head verdict of `trpg-arena evaluate`: counted from the games, worded by the interval."""

from __future__ import annotations

from trpg_arena.experiments.evaluate import verdict
from trpg_arena.experiments.series.pairs import count_seed_pairs

SIDES = ("blue", "red")


def test_pairs_are_counted_by_the_first_agents_points_on_each_seed() -> None:
    # (seed, swapped, result): the first agent plays blue unless the game is swapped
    games = [(1, False, "blue"), (1, True, "blue"),   # won once, lost once: split
             (2, False, "blue"), (2, True, "red"),    # won from both seats
             (3, False, "red"), (3, True, "blue"),    # lost from both seats
             (4, False, "draw"), (4, True, "red"),    # a draw and a win: 1.5 points
             (5, False, "blue")]                      # one game of a pair not played: no pair
    p = count_seed_pairs(SIDES, games)
    assert (p.pairs, p.split, p.won_twice, p.lost_twice, p.with_draw) == (4, 1, 1, 1, 1)
    assert p.score == (1 + 2 + 0 + 1.5) / 8
    assert p.to_json()["score"] == round(p.score, 4)


def test_the_verdict_reads_the_interval_of_the_decided_share() -> None:
    assert verdict(0.504, 0.600) == "better beyond doubt"
    assert verdict(0.40, 0.499) == "worse beyond doubt"
    assert verdict(0.464, 0.533) == "not separated: the interval holds 50 %"
    assert verdict(0.5, 0.6) == "not separated: the interval holds 50 %"  # a lower end at 50 % is not above it
