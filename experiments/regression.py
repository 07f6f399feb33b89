"""Self-play balance regression: has a rules or stat-block change shifted who wins an encounter?

Plays many seeded games of one agent line-up, summarises the first side's win rate with a Wilson
95 % interval, and compares it with a recorded baseline by a two-proportion z-test, so a designer
sees a real shift and not one lucky run.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from trpg_arena.experiments.evaluate import win_rate


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion (draws count half)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def two_proportion_p(p1: float, n1: int, p2: float, n2: int) -> float:
    """Two-sided p-value that two win rates differ (normal approximation)."""
    pooled = (p1 * n1 + p2 * n2) / (n1 + n2)
    se = math.sqrt(max(pooled * (1 - pooled), 1e-12) * (1 / n1 + 1 / n2))
    z = abs(p1 - p2) / se
    return math.erfc(z / math.sqrt(2))


def regression(encounter: str, agents: list[str], games: int, seed: int, baseline: Path | None,
               record: bool, alpha: float = 0.01) -> dict[str, Any]:
    """Run the self-play games; compare with (or record) the baseline. ``summary["shifted"]`` flags a change."""
    summary, _ = win_rate(encounter, agents, games, seed, swap=False)
    score = summary["a_wins"] + 0.5 * summary["draws"]
    rate = score / games
    lo, hi = wilson(score, games)
    out: dict[str, Any] = {**summary, "first_side_score": rate, "interval95": [round(lo, 4), round(hi, 4)],
                           "baseline": None, "p_value": None, "shifted": False}
    if baseline is not None and not record:
        base = json.loads(baseline.read_text(encoding="utf-8"))
        p = two_proportion_p(rate, games, base["first_side_score"], base["games"])
        out.update(baseline={"first_side_score": base["first_side_score"], "games": base["games"]},
                   p_value=round(p, 6), shifted=p < alpha)
    if baseline is not None and record:
        baseline.parent.mkdir(parents=True, exist_ok=True)
        baseline.write_text(json.dumps(out, indent=2), encoding="utf-8")
    return out
