"""Numbers as a designer reads them: percentages with their intervals, shifts in points.

One way of writing a rate everywhere (reports, console lines, the balancer): ``12 % [8, 17]`` is a
rate of 12 % with its 95 % interval from 8 % to 17 %; ``-37 points [-45, -29]`` is a change of a
rate with its interval. Fractions (0.4634) never reach the reader, and what is written is formatted from the
exact value (the counts, or the unrounded figure), never from one rounded for a JSON file.
"""

from __future__ import annotations

from trpg_arena.experiments.series.sprt import wilson


def pct(x: float, digits: int = 0) -> str:
    """A fraction as a percentage: ``pct(0.123) == "12 %"``."""
    return f"{100 * x:.{digits}f} %"


def rate(p: float, lo: float, hi: float, *, digits: int = 0) -> str:
    """A rate and its interval: ``12 % [8, 17]``."""
    return f"{100 * p:.{digits}f} % [{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def share(wins: int, games: int, *, digits: int = 0) -> str:
    """`wins` of `games` (at least one) as a rate with its Wilson 95 % interval: ``share(14, 17, digits=1)``.

    Formatted from the counts, never from a fraction rounded for a JSON file: rounding twice moves the last
    digit (14 of 17 is 82.35... %, which reads 82.4 % where the stored 0.8235 read 82.3 %), and one number
    must read one way in every table and line.
    """
    return rate(wins / games, *wilson(wins, games), digits=digits)


def points(d: float, lo: float, hi: float, *, digits: int = 0) -> str:
    """A change of a rate and its interval, in percentage points: ``-37 points [-45, -29]``."""
    def signed(x: float) -> str:
        text = f"{100 * x:+.{digits}f}"
        return "0" if float(text) == 0 else text  # "-0" and "+0" read as a change

    return f"{signed(d)} points [{signed(lo)}, {signed(hi)}]"
