"""Counts are ticked on whole numbers: the report's "rounds to the end" read 2.5, 7.5 ... 17.5 and "falls first"
0.0, 2.5 ... 17.5 games."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from trpg_arena.experiments.series import charts


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures the charts draw, kept instead of turned into PNG."""
    figures: list[Any] = []
    monkeypatch.setattr(charts, "_png", lambda fig: figures.append(fig) or "")
    return figures


def _whole(ticks: Any) -> bool:
    return all(float(t).is_integer() for t in ticks)


def test_rounds_and_falls_are_ticked_on_whole_numbers(drawn: list[Any]) -> None:
    charts.rounds({"rounds": {2: 3, 9: 1, 18: 2}, "mean_rounds": 8.5})
    charts.falls({"first_fall": Counter({"kei": 17, "ghoul": 1})})
    rounds_ax, falls_ax = (fig.axes[0] for fig in drawn)
    assert _whole(rounds_ax.get_xticks()) and _whole(rounds_ax.get_yticks()), rounds_ax.get_xticks()
    assert _whole(falls_ax.get_xticks()), falls_ax.get_xticks()
