"""The statistics of balance: Wilson intervals, the fixed-N test and the sequential test (GSPRT).

Balance is read from the first side's view with wins, draws and losses kept apart: the tests look
at the win rate and at the loss rate (a change that turns wins into draws moves the first, one that
turns losses into draws the second). A *unit* is one side-swapped pair of games on the same seed
when the series swaps sides (fishtest's colour-swapped pairs: the pair's mean cancels most of the
line-up's own strength), else one game.

Against a baseline played on the same seeds, units are *paired* (the same dice, so the difference
of each unit is what changed); with other seeds, the baseline enters as a mean and its variance
(the larger of the two samples' variances serves both, so a short streak cannot fake certainty).

The sequential test is the normal-approximation GSPRT of fishtest: for a shift `delta` of one
metric, ``LLR = (delta * D - delta**2 / 2) / var(D)`` where D is the observed difference to the
baseline. Each metric runs it upwards and downwards, so four one-sided tests share alpha (each
alpha/4, Bonferroni) and each has beta. The run stops as soon as one test accepts a shift or all
accept "no shift"; at the game cap an undecided run falls back to the fixed-N test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

from trpg_arena.experiments.series.game import GameRecord

METRICS = ("win", "loss")
MIN_UNITS = 16  # no decision on fewer units: the variance estimate of a handful of games is not to be trusted
VAR_FLOOR = 1e-4  # keeps a run of identical outcomes from dividing by zero


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion k / n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def first_side_tally(records: Sequence[GameRecord], first_side: str) -> dict[str, int]:
    """Wins, draws and losses of the first side."""
    out = {"wins": 0, "draws": 0, "losses": 0}
    for r in records:
        out["wins" if r.result == first_side else "draws" if r.result == "draw" else "losses"] += 1
    return out


def units(records: Sequence[GameRecord], first_side: str, paired: bool) -> dict[str, list[float]]:
    """Per unit (a side-swapped pair or one game), the first side's win and loss fractions."""
    size = 2 if paired else 1
    out: dict[str, list[float]] = {m: [] for m in METRICS}
    for s in range(0, len(records) - size + 1, size):
        group = records[s:s + size]
        out["win"].append(sum(r.result == first_side for r in group) / size)
        out["loss"].append(sum(r.result not in (first_side, "draw") for r in group) / size)
    return out


def _mean_var(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    if n == 0:
        return 0.0, 0.0
    m = sum(xs) / n
    return m, (sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0)


def difference(new: Sequence[float], base: Sequence[float], paired: bool,
               floor: float = VAR_FLOOR) -> tuple[float, float]:
    """Observed shift D of a metric's mean and its variance var(D).

    `floor` keeps the tests from dividing by zero; an interval passes 0, since the floor is no spread the games
    showed (with it, an identical replay's change read ``0 points [-1, +1]`` here and ``[-0.6, +0.6]`` there).
    """
    if paired:
        d = [a - b for a, b in zip(new, base)]
        m, v = _mean_var(d)
        return m, max(v, floor) / max(len(d), 1)
    m1, v1 = _mean_var(new)
    m0, v0 = _mean_var(base)
    # Under "no shift" both samples share one variance, and the baseline's rests on many games: a short
    # run's own variance (zero after a streak) must not shrink it, or early streaks read as shifts.
    v = max(v1, v0, floor)
    return m1 - m0, v / max(len(new), 1) + v / max(len(base), 1)


def fixed_test(new: dict[str, list[float]], base: dict[str, list[float]], paired: bool,
               alpha: float) -> dict[str, Any]:
    """Two-sided z-test per metric (Bonferroni over the metrics); shifted when any p < alpha / 2."""
    out: dict[str, Any] = {"kind": "fixed", "paired": paired, "alpha": alpha, "metrics": {}}
    shifted = False
    for m in METRICS:
        d, var = difference(new[m], base[m], paired)
        p = math.erfc(abs(d) / math.sqrt(var) / math.sqrt(2))
        out["metrics"][m] = {"shift": round(d, 4), "p_value": round(p, 6)}
        shifted |= p < alpha / len(METRICS)
    out["shifted"] = shifted
    return out


@dataclass
class Sequential:
    """The GSPRT of the module docstring; feed it units with `update`, read `state`."""

    delta: float  # the indifference zone: a shift of this size (a fraction, 0.05 = 5 points) is to be found
    alpha: float = 0.05
    beta: float = 0.05
    decided: dict[str, str] = field(default_factory=dict)  # one-sided test -> "H0" / "H1"
    trace: list[dict[str, Any]] = field(default_factory=list)

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's bounds of each one-sided test (alpha shared by four tests)."""
        a = self.alpha / (2 * len(METRICS))
        return math.log(self.beta / (1 - a)), math.log((1 - self.beta) / a)

    def update(self, new: dict[str, list[float]], base: dict[str, list[float]], paired: bool) -> str | None:
        """Look at the units so far; returns "shifted", "not shifted" or None (go on)."""
        lower, upper = self.bounds
        n = len(new[METRICS[0]])
        point: dict[str, Any] = {"units": n}
        for m in METRICS:
            d, var = difference(new[m], base[m] if not paired else base[m][:n], paired)
            for sign, name in ((1, f"{m}+"), (-1, f"{m}-")):
                llr = (self.delta * sign * d - self.delta ** 2 / 2) / var
                point[name] = round(llr, 4)
                if n >= MIN_UNITS and name not in self.decided:
                    if llr >= upper:
                        self.decided[name] = "H1"
                    elif llr <= lower:
                        self.decided[name] = "H0"
        self.trace.append(point)
        if "H1" in self.decided.values():
            return "shifted"
        if len(self.decided) == 2 * len(METRICS):
            return "not shifted"
        return None


def z_for(alpha: float) -> float:
    """Two-sided normal quantile."""
    return NormalDist().inv_cdf(1 - alpha / 2)
