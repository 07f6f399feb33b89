"""Difficulty ladder: Bradley-Terry ratings with bootstrap intervals for random, scripted and every preset.

The default line-up is the rule system's whole range (`default_ladder`): random, scripted, then each
difficulty level's `trained` and `mcts` presets side by side, so neighbouring pairs are one level's
two agents head to head and each agent against its next level. Each pair of agents within
`neighbours` places of each other in the ladder's order plays `games` games (`search_games` where a
search agent plays: its games cost far more; sides swapped every other game, a draw counting half
to each); a `reference` agent (the command's default line-up: `scripted`) also plays every agent, so
each rating is read against it directly and not only through chains of neighbours, and the table gives every
agent's score against it with its Wilson interval. Ratings are fitted on the Elo scale
(`tournament.fit_ratings`); their 95 % intervals come from refitting on pairs' games resampled with
replacement (widened, where a few games leave it beside the estimate, to hold it). The ladder is monotone
when every agent's rating is above the one before it; an agent's presets are monotone when each level rates
above the one below it. What each agent costs per decision (CPU time of one core, p50 and p95 of `propose` on
states of scripted play, `bench.bench_propose`) is measured after the games, `cost_seconds` CPU seconds per agent.

A ladder of the search presets runs for many minutes, so it keeps what it plays: each run gets a
fresh folder (``runs/ladder/<UTC time>-<encounter>``) with its settings (``ladder-spec.json``) and
one results file per pair under ``games/``, a line per game as it ends. ``--resume FOLDER`` after a
stop (Ctrl-C, a CI timeout, a crash) plays only the games missing: game ``i`` of a pair is a pure
function of the settings and ``i``, so the resumed ladder is the one an unbroken run would give.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from trpg_arena.experiments.series import SeriesSpec
from trpg_arena.experiments.series.resume import ResumeError, open_run, play_kept
from trpg_arena.experiments.series.runner import check_backend
from trpg_arena.experiments.series.sprt import wilson
from trpg_arena.experiments.series.suite import series_label, slug
from trpg_arena.experiments.series.words import rate
from trpg_arena.experiments.tournament import fit_ratings, unbounded
from trpg_arena.rules import load_encounter


class LadderError(ResumeError):
    """A ladder folder that cannot be resumed (the message says why)."""


LEVELS = ("easy", "normal", "hard", "deadly")
# the agents whose presets make the ladder's levels, weaker first at the same level
LEVELLED = ("trained", "mcts")
SEARCHERS = ("mcts",)  # agents whose pairs play `search_games` (a search costs many times a decision of the rest)
# Minorisation steps of every fit, the ratings' and each resample's alike: on lopsided games (an agent that never
# wins) the fit drifts on with each step, so a resample fitted with fewer steps than the estimate lands elsewhere
# and its interval can miss the estimate (random 676 with an interval of 685 to 685).
FIT_ITERS = 500
DEFAULT_BOOTSTRAP, DEFAULT_COST_SECONDS = 200, 2.0  # the command's defaults: a ladder's settings name the others
MAX_BOOTSTRAP = 100_000  # resamples: each is a refit, 100,000 of a ten-agent ladder about half an hour
MAX_COST_SECONDS = 3600.0  # CPU seconds measuring one agent's cost: an hour each is far beyond a stable p95


def default_ladder(ruleset: str) -> list[str]:
    """random, scripted, then per level the `trained` and `mcts` presets the system has (weakest first)."""
    from trpg_arena.agents.spec import agent_info, agent_names

    known = agent_names(ruleset)
    names: list[str] = [n for n in ("random", "scripted") if n in known]
    for level in LEVELS:
        names += [f"{kind}:{level}" for kind in LEVELLED
                  if kind in known and level in agent_info(kind, ruleset).presets]
    return names


def is_search(spec: str) -> bool:
    """Whether an agent spec names a search agent (its pairs play `search_games`)."""
    return spec.split(":")[0] in SEARCHERS


def presets_monotone(names: list[str], ratings: dict[str, float]) -> dict[str, bool]:
    """Per agent with two or more levels in the ladder: whether each level rates above the one below it."""
    out: dict[str, bool] = {}
    for kind in dict.fromkeys(n.split(":")[0] for n in names):
        levels = [f"{kind}:{lv}" for lv in LEVELS if f"{kind}:{lv}" in ratings]
        if len(levels) >= 2:
            out[kind] = all(ratings[a] < ratings[b] for a, b in zip(levels, levels[1:], strict=False))
    return out


def ladder_pairs(names: list[str], neighbours: int, reference: str | None = None) -> list[tuple[str, str]]:
    """Pairs of agents at most `neighbours` apart in the ladder's order (0: every pair).

    With a `reference` (an agent of the line-up), it also plays every agent it is not yet paired with,
    after the neighbours' pairs, each pair in the ladder's order. Neighbours alone rate the reference
    only through chains of other pairs: in a default line-up `scripted` met random and the `easy`
    presets only, so its rating rested on a few lopsided pairs and could land above every preset
    that beats it head to head.
    """
    pairs = [(a, b) for i, a in enumerate(names) for j, b in enumerate(names)
             if i < j and (neighbours <= 0 or j - i <= neighbours)]
    if reference is None:
        return pairs
    if reference not in names:
        raise ValueError(f"the reference {reference!r} is not in the line-up ({', '.join(names)})")
    at = names.index(reference)
    extra = [(names[min(at, i)], names[max(at, i)]) for i in range(len(names)) if i != at]
    return pairs + [pair for pair in extra if pair not in pairs]


def _scores(games: dict[tuple[str, str], list[float]]) -> dict[tuple[str, str], tuple[float, int]]:
    score: dict[tuple[str, str], tuple[float, int]] = {}
    for (a, b), points in games.items():
        s, n = float(sum(points)), len(points)
        score[(a, b)] = (s, n)
        score[(b, a)] = (n - s, n)
    return score


def check_ladder_options(games: int, search_games: int | None, neighbours: int, bootstrap: int,
                         cost_seconds: float) -> None:
    """Refuse (ValueError, one line naming the option) a setting no ladder can use, before any game or folder.

    Each of these used to surface only after the games, as a traceback, a hang or a silent "not measured".
    """
    for option, value in (("--games", games), ("--search-games", search_games)):
        if value is not None and value < 1:
            raise ValueError(f"{option} must be at least 1, got {value}")
    if neighbours < 0:  # 0 already means every pair; there is nothing below it
        raise ValueError(f"--neighbours must be 0 (every pair) or more, got {neighbours}")
    if not 1 <= bootstrap <= MAX_BOOTSTRAP:
        raise ValueError(f"--bootstrap must be from 1 to {MAX_BOOTSTRAP:,} resamples, got {bootstrap}")
    # nan compares false with everything, so the range is tested the way round that refuses it
    if not (math.isfinite(cost_seconds) and 0 <= cost_seconds <= MAX_COST_SECONDS):
        raise ValueError(f"--cost-seconds must be from 0 (not measured) to {MAX_COST_SECONDS:,.0f}, "
                         f"got {cost_seconds}")


def bootstrap_intervals(names: list[str], games: dict[tuple[str, str], list[float]], rounds: int,
                        seed: int) -> dict[str, tuple[float, float]]:
    """2.5 and 97.5 percentiles of each rating over refits on resampled games."""
    if rounds < 1:
        raise ValueError(f"the intervals need at least one resample, got {rounds}")
    rng = np.random.default_rng(seed)
    samples: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(rounds):
        resampled = {pair: list(rng.choice(points, size=len(points))) for pair, points in games.items()}
        for name, rating in fit_ratings(names, _scores(resampled), iters=FIT_ITERS).items():
            samples[name].append(rating)
    return {n: (float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))) for n, v in samples.items()}


def around(rating: float, interval: tuple[float, float]) -> tuple[float, float]:
    """The interval widened, where it must be, to hold the rating, rounded as the table shows it.

    A percentile interval of a few games can still fall beside its own estimate (the resamples' ratings
    skewed to one side of it); a table row reading "676, 685 to 685" contradicts itself and the plot's
    error bar below the point would be negative.
    """
    low, high = interval
    return round(min(low, rating), 1), round(max(high, rating), 1)


def ladder_settings(spec: SeriesSpec, names: list[str], neighbours: int, games: int,
                    search_games: int, reference: str | None = None, bootstrap: int = DEFAULT_BOOTSTRAP,
                    cost_seconds: float = DEFAULT_COST_SECONDS) -> dict[str, Any]:
    """What fixes a ladder's games and tables (a resumed run must share it); the encounter's content hash included.

    The intervals' resamples and the cost measurement are among them: a finished ladder resumed with others
    rewrote its tables (its cost columns dropped) under the same folder.
    """
    settings = {"encounter": spec.name, "content_hash": spec.content_hash, "env_version": spec.env_version,
                "agents": names, "games_per_pair": games, "seed": spec.first_seed, "neighbours": neighbours}
    # each kept out when unused, so that folders from before the option still resume
    if search_games != games:
        settings["games_per_search_pair"] = search_games
    if reference is not None:
        settings["reference"] = reference
    if bootstrap != DEFAULT_BOOTSTRAP:
        settings["bootstrap"] = bootstrap
    if cost_seconds != DEFAULT_COST_SECONDS:
        settings["cost_seconds"] = cost_seconds
    return settings


def pair_games(a: str, b: str, games: int, search_games: int) -> int:
    """Games a pair plays: `search_games` where a search agent is one of the two."""
    return search_games if is_search(a) or is_search(b) else games


def run_ladder(encounter: str, names: list[str], games: int, seed: int, neighbours: int, bootstrap: int,
               out: Path, console: Console, workers: int | None = None, backend: str = "local",
               resume: Path | None = None, search_games: int | None = None,
               cost_seconds: float = 0.0, resume_hint: Path | None = None,
               reference: str | None = None) -> dict[str, Any]:
    """Play (or finish) the ladder's pairs in a run folder; write ladder.csv/.json/.md, pairs.csv and ladder.png.

    Pairs with a search agent play `search_games` (default `games`). A `reference` agent also plays
    every other agent (`ladder_pairs`). With `cost_seconds` > 0 each agent's CPU time per decision is
    measured after the games. Returns the result, with the folder under ``"folder"``. Progress goes to
    `console` (plain lines when it is not a terminal).
    """
    if len(names) < 2:
        raise ValueError("a ladder needs at least two agents")
    check_ladder_options(games, search_games, neighbours, bootstrap, cost_seconds)
    search_games = games if search_games is None else search_games
    pairs = ladder_pairs(names, neighbours, reference)
    specs = {(a, b): SeriesSpec.build(encounter, [a, b], pair_games(a, b, games, search_games), first_seed=seed,
                                      swap=True) for a, b in pairs}
    settings = ladder_settings(specs[pairs[0]], names, neighbours, games, search_games, reference, bootstrap,
                               cost_seconds)
    check_backend(backend, workers)  # before the run folder: a refused run leaves none
    folder = open_run(out, encounter, "ladder-spec.json", settings, resume, "ladder")
    (folder / "games").mkdir(exist_ok=True)
    sides = load_encounter(encounter).sides()
    series = [(series_label(encounter, [a, b]), specs[(a, b)], folder / "games" / f"{slug(a)}--{slug(b)}.jsonl")
              for a, b in pairs]
    kept = dict(zip(pairs, play_kept(console, folder, series, workers, backend, resume is not None, resume_hint),
                    strict=True))
    results = {(a, b): [1.0 if r.result == sides[r.agents.index(a)] else (0.5 if r.result == "draw" else 0.0)
                        for r in kept[(a, b)]] for a, b in pairs}
    ratings = fit_ratings(names, _scores(results), iters=FIT_ITERS)
    intervals = {n: around(ratings[n], low_high) for n, low_high in
                 bootstrap_intervals(names, results, bootstrap, seed).items()}
    monotone = all(ratings[names[i]] < ratings[names[i + 1]] for i in range(len(names) - 1))
    costs = {n: agent_cost(encounter, n, cost_seconds) for n in names} if cost_seconds > 0 else {}
    against = against_reference(results, reference) if reference is not None else {}
    loose = unbounded(names, _scores(results))
    rows = [{"agent": n, "rating": ratings[n], **_bounds(intervals[n], loose.get(n)),
             **costs.get(n, {}), **against.get(n, {})} for n in names]
    pair_rows = []
    for (a, b), points in results.items():
        low, high = wilson(sum(points), len(points))
        pair_rows.append({"a": a, "b": b, "games": len(points), "a_score": round(sum(points) / len(points), 3),
                          "low": round(low, 3), "high": round(high, 3)})
    _csv(folder / "ladder.csv", rows)
    _csv(folder / "pairs.csv", pair_rows)
    result = {"encounter": encounter, "games_per_pair": games, "games_per_search_pair": search_games, "seed": seed,
              "neighbours": neighbours, "reference": reference, "monotone": monotone,
              "presets_monotone": presets_monotone(names, ratings),
              "ratings": rows, "pairs": pair_rows}
    (folder / "ladder.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    (folder / "ladder.md").write_text(_markdown(result), encoding="utf-8")
    _plot(rows, folder / "ladder.png", encounter, reference)
    return {**result, "folder": str(folder)}


def against_reference(results: dict[tuple[str, str], list[float]], reference: str) -> dict[str, dict[str, Any]]:
    """Each agent's score against `reference` from its own side of their pair, Wilson 95 % interval and games.

    The column a reader looks for first ("does this preset beat the script?"), read straight off the games of the
    pair whichever way round the ladder's order wrote it, rather than through the ratings of a chain of pairs.
    """
    out: dict[str, dict[str, Any]] = {}
    for (a, b), points in results.items():
        if reference not in (a, b):
            continue
        other = b if a == reference else a
        won = sum(points) if a == other else len(points) - sum(points)  # points are the first agent's
        low, high = wilson(won, len(points))
        out[other] = {"vs_reference": round(won / len(points), 3), "vs_reference_low": round(low, 3),
                      "vs_reference_high": round(high, 3), "vs_reference_games": len(points)}
    return out


def agent_cost(encounter: str, spec: str, seconds: float) -> dict[str, Any]:
    """CPU milliseconds of one core per decision (p50, p95) of `spec`'s propose on states of scripted play."""
    from trpg_arena.experiments.bench import bench_propose

    row = bench_propose(encounter, spec, seconds, clock="cpu")
    return {"cpu_ms_p50": round(row.p50 * 1000, 3), "cpu_ms_p95": round(row.p95 * 1000, 3),
            "cost_decisions": row.decisions}


def _bounds(interval: tuple[float, float], way: str | None) -> dict[str, Any]:
    """A row's interval, or none where the games bound no rating (`tournament.unbounded`): `unbounded` says how."""
    if way is None:
        return {"low": interval[0], "high": interval[1]}
    return {"low": None, "high": None, "unbounded": way}


# how the table reads a rating the games do not bound, and its interval
UNBOUNDED_WORDS = {"above": ("above {:.0f}", "none: lost no point to the others"),
                   "below": ("below {:.0f}", "none: took no point from the others"),
                   "both": ("{:.0f}, not fixed", "none: its group swept some of the others and was swept by others")}


def _rating_cells(r: dict[str, Any]) -> str:
    """``| 1612 | 1540 to 1690 |``, or, where the games bound no rating, the bound and why there is no interval."""
    if "unbounded" not in r:
        return f" {r['rating']:.0f} | {r['low']:.0f} to {r['high']:.0f} |"
    rating, interval = UNBOUNDED_WORDS[r["unbounded"]]
    return f" {rating.format(r['rating'])} | {interval} |"


def _csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        # every row's columns in order of first appearance: the reference's own row has no score against itself
        w = csv.DictWriter(fh, fieldnames=list(dict.fromkeys(k for r in rows for k in r)))
        w.writeheader()
        w.writerows(rows)


def _markdown(result: dict[str, Any]) -> str:
    games, search_games = result["games_per_pair"], result["games_per_search_pair"]
    per_pair = f"{games} games per pair" + (f", {search_games} where mcts plays" if search_games != games else "")
    if result.get("reference"):
        per_pair += f"; {result['reference']} plays every agent"
    costed = any("cpu_ms_p50" in r for r in result["ratings"])
    reference = result.get("reference")
    lines = [f"# Ladder on {result['encounter']} ({per_pair})", "",
             "| agent | rating | 95 % interval |" + (" CPU ms per decision, p50 / p95 |" if costed else "")
             + (f" score against {reference} (Wilson 95 %), games |" if reference else ""),
             "|---|---|---|" + ("---|" if costed else "") + ("---|" if reference else "")]
    for r in result["ratings"]:
        cost = f" {_ms(r['cpu_ms_p50'])} / {_ms(r['cpu_ms_p95'])} |" if "cpu_ms_p50" in r else (" |" if costed else "")
        score = ""
        if reference:
            score = (f" {rate(r['vs_reference'], r['vs_reference_low'], r['vs_reference_high'])}, "
                     f"{r['vs_reference_games']} |") if "vs_reference" in r else " |"
        lines.append(f"| {r['agent']} |{_rating_cells(r)}{cost}{score}")
    lines += ["", f"- Monotone in the order given: {'yes' if result['monotone'] else 'no'}"]
    lines += [f"- {kind}'s presets monotone (each level above the one below): {'yes' if ok else 'no'}"
              for kind, ok in result["presets_monotone"].items()]
    lines += ["", "| pair | games | first's score (Wilson 95 %) |", "|---|---|---|"]
    lines += [f"| {p['a']} vs {p['b']} | {p['games']} | {rate(p['a_score'], p['low'], p['high'])} |"
              for p in result["pairs"]]
    return "\n".join(lines) + "\n"


def _ms(ms: float) -> str:
    """Milliseconds to a table: whole ones from 10 up, two significant digits below (random takes microseconds)."""
    return f"{ms:,.0f}" if ms >= 10 else f"{ms:.2g}"


def _plot(rows: list[dict[str, Any]], path: Path, title: str, reference: str | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.3 * len(rows) + 2, 4))
    x = range(len(rows))
    bounded = [(i, r) for i, r in enumerate(rows) if "unbounded" not in r]
    if bounded:
        ax.errorbar([i for i, _ in bounded], [r["rating"] for _, r in bounded], fmt="o", capsize=5,
                    yerr=[[r["rating"] - r["low"] for _, r in bounded],
                          [r["high"] - r["rating"] for _, r in bounded]])
    loose = [(i, r) for i, r in enumerate(rows) if "unbounded" in r]
    for n, (i, r) in enumerate(loose):  # a rating the games do not bound: its bound, pointing the way it is open
        ax.plot([i], [r["rating"]], marker={"above": "^", "below": "v"}.get(r["unbounded"], "D"), markersize=10,
                color="#e6463c", linestyle="none", label="no finite rating (see the table)" if n == 0 else None)
    if reference is not None:  # the yardstick's level across the plot: who sits above the script is seen at once
        level = next(r["rating"] for r in rows if r["agent"] == reference)
        ax.axhline(level, linestyle="--", linewidth=1, color="grey", label=f"{reference} (the reference)")
    if reference is not None or loose:
        ax.legend(loc="best", fontsize="small")
    ax.set_xticks(list(x), [r["agent"] for r in rows], rotation=20)
    ax.set_ylabel("Bradley-Terry rating (Elo scale)")
    ax.set_title(f"{title}: ladder with 95 % bootstrap intervals")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
