"""A rating the games do not bound is named as such: an agent that lost no point to the others was printed as
``scripted | 2347 | 2347 to 2347`` (where 500 iterations stopped; 20,000 gave 2776), an interval claiming certainty."""

from __future__ import annotations

from pathlib import Path

from trpg_arena.experiments.ladder import _markdown, _plot
from trpg_arena.experiments.tournament import fit_ratings, unbounded


def _score(points: dict[tuple[str, str], float], games: int = 10) -> dict[tuple[str, str], tuple[float, int]]:
    """Both directions of each pair's points out of `games`."""
    out = {}
    for (a, b), p in points.items():
        out[(a, b)], out[(b, a)] = (p, games), (games - p, games)
    return out


def test_games_where_every_group_wins_and_loses_bound_every_rating() -> None:
    names = ["random", "first", "scripted"]
    assert unbounded(names, _score({("random", "first"): 5, ("random", "scripted"): 1, ("first", "scripted"): 0.5})) \
        == {}


def test_a_sweep_leaves_the_sweeper_unbounded_above_and_the_rest_below() -> None:
    names = ["random", "first", "scripted"]
    score = _score({("random", "first"): 5, ("random", "scripted"): 0, ("first", "scripted"): 0})
    assert unbounded(names, score) == {"random": "below", "first": "below", "scripted": "above"}
    # the fit's number for the sweeper is only where its iterations stopped
    assert fit_ratings(names, score, iters=2000)["scripted"] > fit_ratings(names, score, iters=500)["scripted"]


def test_a_chain_of_sweeps_leaves_the_middle_unbounded_both_ways() -> None:
    names = ["a", "b", "c"]
    assert unbounded(names, _score({("a", "b"): 10, ("b", "c"): 10, ("a", "c"): 10})) \
        == {"a": "above", "b": "both", "c": "below"}


def test_the_table_and_the_plot_give_a_bound_and_no_interval(tmp_path: Path) -> None:
    rows = [{"agent": "random", "rating": 1076.5, "low": None, "high": None, "unbounded": "below"},
            {"agent": "mcts", "rating": 1500.0, "low": 1400.0, "high": 1600.0},
            {"agent": "scripted", "rating": 2347.0, "low": None, "high": None, "unbounded": "above"}]
    text = _markdown({"encounter": "kiai/duel", "games_per_pair": 10, "games_per_search_pair": 10, "monotone": True,
                      "presets_monotone": {}, "ratings": rows, "pairs": []})
    assert "| scripted | above 2347 | none: lost no point to the others |" in text
    assert "| random | below 1076 | none: took no point from the others |" in text
    assert "| mcts | 1500 | 1400 to 1600 |" in text
    _plot(rows, tmp_path / "ladder.png", "kiai/duel", reference="mcts")
    assert (tmp_path / "ladder.png").stat().st_size > 0
