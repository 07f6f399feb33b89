"""Several evaluation run folders of one pairing read as one series, and whether their runs agree.

A strength figure is often more than one `trpg-arena evaluate` run: a first run, then fresh seeds to settle
what it left open, or runs of the same agents on other days. Pooling them is only sound when they are the
same pairing (the same encounter content, rules version and line-up, A and B in the same order) and no game
is counted twice (two runs that both played one seed from one side played the very same game). The pooled
summary is the one `evaluate` writes, over every game of the runs, with each run's own line beside it and a
chi-square test of whether the runs' shares of decided games differ more than chance allows.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from trpg_arena.experiments.evaluate import summarise
from trpg_arena.experiments.ladder import pair_games
from trpg_arena.experiments.series import GameRecord, SeriesSpec
from trpg_arena.experiments.series.resume import read_games
from trpg_arena.experiments.series.words import share
from trpg_arena.rules import TrpgArenaError

AGREEMENT_ALPHA = 0.05  # below this p-value the runs are said to differ


class PoolError(TrpgArenaError, ValueError):
    """Run folders that cannot be pooled (the message names the folder and why)."""


@dataclass(frozen=True)
class EvaluationRun:
    """One evaluation run folder: its series spec and the games it holds (all of them, or those kept at a stop)."""

    folder: Path
    spec: SeriesSpec
    records: list[GameRecord]


def read_run(folder: Path) -> EvaluationRun:
    """The spec and games of an `evaluate` run folder (or a ladder's pair file), read without changing it."""
    if folder.suffix == ".jsonl" and folder.is_file():
        return read_ladder_pair(folder)
    spec_file, results = folder / "spec.json", folder / "results.jsonl"
    if not spec_file.is_file():
        raise PoolError(f"{folder}: not an evaluation run folder (no spec.json)")
    try:
        spec = SeriesSpec.from_json(json.loads(spec_file.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise PoolError(f"{folder}/spec.json: cannot be read as a series spec ({e})") from None
    if len(spec.lineup) != 2:
        raise PoolError(f"{folder}: a series of {len(spec.lineup)} agents, not an evaluation of two (A,B)")
    records = _games(results) if results.is_file() else []
    if not records:
        raise PoolError(f"{folder}: no game played yet (results.jsonl is missing or empty)")
    return EvaluationRun(folder, spec, records)


def read_ladder_pair(path: Path) -> EvaluationRun:
    """One pair of a `trpg-arena ladder` run (``games/A--B.jsonl``) as an evaluation of A against B.

    A ladder keeps its settings once for all pairs (``ladder-spec.json``, two folders up) and each pair's games
    in a file of its own; the pair's series is rebuilt from those settings, its line-up read off its first game
    (which plays the pair in its own order), and the encounter checked against the hash the ladder recorded.
    """
    settings_file = path.resolve().parent.parent / "ladder-spec.json"  # a bare file name's parent is "."
    try:
        settings = json.loads(settings_file.read_text(encoding="utf-8"))
        games = int(settings["games_per_pair"])
        search = int(settings.get("games_per_search_pair", games))  # kept out of the settings when equal
        name, seed, recorded = str(settings["encounter"]), int(settings["seed"]), str(settings["content_hash"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise PoolError(f"{path}: not a ladder's pair file ({settings_file} cannot be read: {e})") from None
    records = _games(path)
    if not records:
        raise PoolError(f"{path}: no game played yet")
    a, b = records[0].agents[0], records[0].agents[1]
    try:
        spec = SeriesSpec.build(name, [a, b], pair_games(a, b, games, search), first_seed=seed, swap=True)
    except (TrpgArenaError, ValueError, OSError) as e:
        raise PoolError(f"{path}: the ladder's encounter {name!r} cannot be loaded here ({e})") from None
    if spec.content_hash != recorded:
        raise PoolError(f"{path}: the encounter {name!r} has changed since the ladder was played (content hash "
                        f"{recorded} then, {spec.content_hash} now); its games are not of today's encounter")
    return EvaluationRun(path, spec, records)


def _games(path: Path) -> list[GameRecord]:
    """A results file's games (`read_games`), a file that cannot be read as text named in the error."""
    try:
        return read_games(path)
    except (OSError, UnicodeDecodeError) as e:
        raise PoolError(f"{path}: cannot be read ({e})") from None


def _same_pairing(first: EvaluationRun, run: EvaluationRun) -> None:
    """Refuse a run that is not the first run's pairing, naming what differs."""
    a, b = first.spec, run.spec
    checks = (("line-up", list(a.lineup), list(b.lineup)), ("encounter content", a.content_hash, b.content_hash),
              ("rule system", a.ruleset, b.ruleset), ("env_version", a.env_version, b.env_version))
    differ = [f"{what} {theirs!r} where {first.folder} has {ours!r}" for what, ours, theirs in checks if ours != theirs]
    if differ:
        raise PoolError(f"{run.folder}: another pairing ({'; '.join(differ)}); only runs of the same encounter and "
                        "line-up, A and B in the same order, pool")


def _no_game_twice(runs: list[EvaluationRun]) -> None:
    """Refuse two runs holding the same game: one seed played from the same side in both."""
    seen: dict[tuple[int, bool], Path] = {}
    for run in runs:
        for r in run.records:
            key = (r.seed, r.swapped)
            if key in seen:
                side = "with the sides swapped" if r.swapped else "in the line-up's order"
                raise PoolError(f"{run.folder}: seed {r.seed} {side} is also in {seen[key]}; the same game would "
                                "count twice (pool runs of different seeds)")
            seen[key] = run.folder


def chi_square_p(statistic: float, df: int) -> float:
    """P(X >= statistic) for a chi-square variable with `df` degrees of freedom (closed forms, whole df)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    x = max(0.0, statistic)
    if df % 2 == 0:  # e^(-x/2) * sum over i < df/2 of (x/2)^i / i!
        term = total = 1.0
        for i in range(1, df // 2):
            term *= x / 2 / i
            total += term
        return min(1.0, math.exp(-x / 2) * total)
    # odd: erfc(sqrt(x/2)) + sqrt(2x/pi) e^(-x/2) * sum over i = 1..(df-1)/2 of x^(i-1) / (1*3*...*(2i-1))
    tail = math.erfc(math.sqrt(x / 2))
    if df > 1:
        term = total = 1.0
        for i in range(2, (df + 1) // 2):
            term *= x / (2 * i - 1)
            total += term
        tail += math.sqrt(2 * x / math.pi) * math.exp(-x / 2) * total
    return min(1.0, tail)


def runs_agreement(counts: list[tuple[int, int]]) -> dict[str, Any] | None:
    """Chi-square test that runs share one rate of A's wins among decided games; None under two runs with games.

    `counts` is (A wins, B wins) per run. The test is the usual one on the 2 x k table; with fewer than about
    five expected games in a cell its p-value is only a rough guide.
    """
    counts = [(a, b) for a, b in counts if a + b]
    if len(counts) < 2:
        return None
    wins, decided = sum(a for a, _ in counts), sum(a + b for a, b in counts)
    share = wins / decided
    if share in (0.0, 1.0):  # every run all one way: nothing to disagree on
        return {"chi2": 0.0, "df": len(counts) - 1, "p_value": 1.0, "runs_differ": False}
    statistic = sum((a - (a + b) * share) ** 2 / ((a + b) * share * (1 - share)) for a, b in counts)
    p = chi_square_p(statistic, len(counts) - 1)
    return {"chi2": round(statistic, 3), "df": len(counts) - 1, "p_value": round(p, 4),
            "runs_differ": p < AGREEMENT_ALPHA}


def pool_runs(folders: list[Path]) -> dict[str, Any]:
    """The evaluation summary over every game of `folders`, each run's own summary under ``runs``.

    Keys as `evaluate`'s summary (``first_seed`` is the lowest seed any run played, whichever folder came first),
    plus ``runs`` (each run's figures and its first and last seed played, ``seeds``) and ``agreement``
    (`runs_agreement`). Raises `PoolError` on folders that do not pool.
    """
    if not folders:
        raise PoolError("name at least one evaluation run folder")
    runs = [read_run(folder) for folder in folders]
    for run in runs[1:]:
        _same_pairing(runs[0], run)
    _no_game_twice(runs)
    every = [r for run in runs for r in run.records]
    # pairs are counted by seed wherever both of a seed's games are held, so one swapped run is enough
    spec = replace(runs[0].spec, games=len(every), swap=any(run.spec.swap for run in runs),
                   first_seed=min(r.seed for r in every))
    summary = summarise(spec, every)
    parts = []
    for run in runs:
        own = summarise(run.spec, run.records)
        seeds = [min(r.seed for r in run.records), max(r.seed for r in run.records)]
        parts.append({"folder": str(run.folder), "seeds": seeds, "planned": run.spec.games,
                      **{k: own[k] for k in ("games", "a_wins", "b_wins", "draws", "a_decided_share",
                                             "a_decided_interval95", "verdict", "a_points", "seed_pairs")}})
    summary["runs"] = parts
    summary["agreement"] = runs_agreement([(p["a_wins"], p["b_wins"]) for p in parts])
    return summary


def run_line(part: dict[str, Any]) -> str:
    """One run in words: ``FOLDER: seeds 3986000-3986029, 60 games, 36-24-0, 60.0 % [47.4, 71.4] of 60 ...``.

    A stopped run says how many of its planned games it holds.
    """
    low, high = part["seeds"]
    seeds = f"seed {low}" if low == high else f"seeds {low}-{high}"
    held = f"{part['games']} games" + (f" (of {part['planned']} planned)" if part["games"] < part["planned"] else "")
    decided = part["a_wins"] + part["b_wins"]
    share = f"{_share(part)} of {decided} decided" if decided else "no game decided"
    tally = f"{part['a_wins']}-{part['b_wins']}-{part['draws']}"
    return f"{part['folder']}: {seeds}, {held}, {tally}, {share}, {part['verdict']}"


def agreement_line(agreement: dict[str, Any] | None) -> str:
    """Whether the runs agree, in words (empty under two runs with decided games)."""
    if agreement is None:
        return ""
    said = ("the runs differ more than chance allows" if agreement["runs_differ"]
            else "the runs agree within chance")
    return (f"{said}: chi-square {agreement['chi2']} on {agreement['df']} degree"
            f"{'s' if agreement['df'] > 1 else ''} of freedom, p = {agreement['p_value']}")


def markdown_table(summary: dict[str, Any]) -> str:
    """A Markdown table of the runs and their pool: what a strength page shows."""
    rows = ["| run | seeds | games | A-B-draws | A's share of decided [95 %] | verdict |",
            "|---|---|---|---|---|---|"]
    for part in summary["runs"]:
        rows.append(_row(Path(part["folder"]).name, "{}-{}".format(*part["seeds"]), part))
    rows.append(_row("**pooled**", "", summary))
    return "\n".join(rows) + "\n"


def _share(s: dict[str, Any]) -> str:
    """A's share of the decided games with its interval, ``58.8 % [51.0, 66.1]`` (for a run or the pool).

    From the counts, as `evaluate`'s line writes it: the summary's fractions are rounded for the JSON file.
    """
    return share(s["a_wins"], s["a_wins"] + s["b_wins"], digits=1)


def _row(label: str, seeds: str, s: dict[str, Any]) -> str:
    share = _share(s) if s["a_wins"] + s["b_wins"] else "none decided"
    return f"| {label} | {seeds} | {s['games']} | {s['a_wins']}-{s['b_wins']}-{s['draws']} | {share} | {s['verdict']} |"


def plot_runs(summary: dict[str, Any], path: Path) -> None:
    """A forest plot: each run's share of decided games with its interval, the pool below them, 50 % marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [(f"{part['seeds'][0]}: {part['games']} games", part) for part in summary["runs"]]
    rows.append((f"pooled: {summary['games']} games", summary))
    rows = [(label, s) for label, s in rows if s["a_wins"] + s["b_wins"]]  # a run with no decided game has no share
    fig, ax = plt.subplots(figsize=(7, 1.3 + 0.42 * len(rows)))
    for y, (_, s) in enumerate(reversed(rows)):
        share, (low, high) = 100 * s["a_decided_share"], s["a_decided_interval95"]
        pooled = s is summary
        ax.errorbar(share, y, xerr=[[share - 100 * low], [100 * high - share]], fmt="D" if pooled else "o",
                    color="#222222" if pooled else "#3478f6", markersize=8 if pooled else 5, capsize=3)
    ax.axvline(50, color="#999999", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(rows)), [label for label, _ in reversed(rows)])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel(f"{summary['agent_a']} against {summary['agent_b']}: share of decided games (%)")
    ax.set_title(f"{summary['encounter']}: each run by its first seed, and the pool (Wilson 95 %)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
