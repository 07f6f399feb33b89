"""Plain progress lines: the rate counts the time since the task began, and a slow rate keeps its digits."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from trpg_arena.experiments.series import progress


def test_the_rate_counts_from_the_start_of_the_task_not_from_its_first_game(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(progress.time, "perf_counter", lambda: clock[0])
    out = io.StringIO()
    with progress.series_progress(Console(file=out, width=200)) as bar:
        on_game = bar("mcts:hard vs trained:hard", 2)
        clock[0] += 40.0  # the first game of a search agent ends 40 s after the task began
        on_game(None)
        clock[0] += 40.0
        on_game(None)
    text = out.getvalue()
    assert "mcts:hard vs trained:hard: started, 2 games to go" in text
    # two games in 80 s: 0.025 games/s (not 0.0, and not the rate since the first game ended)
    assert "2/2 games (100 %), 0.025 games/s, 80 s" in text, text


@pytest.mark.parametrize(("speed", "shown"), [(596.94, "596.9"), (4.25, "4.2"), (0.2, "0.20"), (0.025, "0.025"),
                                               (0.0031, "0.0031"), (0.0, "0.0")])
def test_rate_text_keeps_two_digits_of_a_slow_rate(speed: float, shown: str) -> None:
    assert progress.rate_text(speed) == shown
