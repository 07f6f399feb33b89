"""Win-rate evaluation of one agent against another: a reducer over a series (files plus a plot)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console

from trpg_arena.experiments.series import GameRecord, SeriesSpec
from trpg_arena.experiments.series.pairs import count_seed_pairs
from trpg_arena.experiments.series.resume import open_run, play_kept
from trpg_arena.experiments.series.runner import check_backend
from trpg_arena.experiments.series.sprt import wilson
from trpg_arena.experiments.series.suite import series_label
from trpg_arena.experiments.series.words import pct, share


def agent_a_tally(spec: SeriesSpec, records: list[GameRecord]) -> dict[str, int]:
    """Wins of the line-up's first agent, of the second, and draws (the first agent's side follows the swap)."""
    out = {"a_wins": 0, "b_wins": 0, "draws": 0}
    for r in records:
        a_side = spec.sides[1 if r.swapped else 0]
        out["draws" if r.result == "draw" else "a_wins" if r.result == a_side else "b_wins"] += 1
    return out


def per_side(spec: SeriesSpec, records: list[GameRecord]) -> list[dict[str, Any]]:
    """Each agent's games and wins on each side it played.

    A model played on the side it was not trained for shows here, not only inside its overall rate.
    """
    out = []
    for slot, agent in enumerate(spec.lineup):
        for side in spec.sides:
            games = [r for r in records if r.agents[spec.sides.index(side)] == agent
                     and (r.swapped == (spec.sides.index(side) != slot))]
            if not games:
                continue
            wins = sum(r.result == side for r in games)
            lo, hi = wilson(wins, len(games))
            out.append({"agent": agent, "slot": slot + 1, "side": side, "games": len(games), "wins": wins,
                        "win_rate": round(wins / len(games), 4), "win_interval95": [round(lo, 4), round(hi, 4)]})
    return out


def summarise(spec: SeriesSpec, records: list[GameRecord]) -> dict[str, Any]:
    """The evaluation summary: tallies, A's win rate with its Wilson interval, per side results, mean rounds.

    Beside the win rate over all games: A's share of the decided games (draws left out) with its Wilson
    interval and what that says (`verdict`), A's points with a draw as half, and on a side-swapped series its
    seed pairs (`experiments.series.pairs`).
    """
    t = agent_a_tally(spec, records)
    n = len(records)
    lo, hi = wilson(t["a_wins"], n)
    decided = t["a_wins"] + t["b_wins"]
    d_lo, d_hi = wilson(t["a_wins"], decided) if decided else (0.0, 1.0)
    pairs = count_seed_pairs(spec.sides, ((r.seed, r.swapped, r.result) for r in records)) if spec.swap else None
    return {"encounter": spec.name, "ruleset": spec.ruleset, "content_hash": spec.content_hash,
            "env_version": spec.env_version, "agent_a": spec.lineup[0], "agent_b": spec.lineup[1], "games": n,
            "first_seed": spec.first_seed, "swap": spec.swap, **t,
            "a_win_rate": round(t["a_wins"] / n, 4) if n else 0.0, "a_win_interval95": [round(lo, 4), round(hi, 4)],
            "a_decided_share": round(t["a_wins"] / decided, 4) if decided else None,
            "a_decided_interval95": [round(d_lo, 4), round(d_hi, 4)],
            "verdict": verdict(d_lo, d_hi, None if spec.swap else spec.sides[0]) if decided else "no game decided",
            "a_points": round((t["a_wins"] + t["draws"] / 2) / n, 4) if n else 0.0,
            "seed_pairs": pairs.to_json() if pairs else None,
            "per_side": per_side(spec, records),
            "mean_rounds": round(sum(r.rounds for r in records) / n, 2) if n else 0.0}


def verdict(low: float, high: float, seat: str | None = None) -> str:
    """What A's share of the decided games says against B, by its Wilson 95 % interval.

    `seat`: the side A played in every game of a series whose sides were not swapped (a mirror line-up, or
    ``--no-swap``): the share then measures that seat as much as the agents, so the verdict is the side's.
    """
    if seat is not None:
        said = "not separated: the interval holds 50 %" if low <= 0.5 <= high else (
            f"side {seat} wins {'more' if low > 0.5 else 'less'} beyond doubt")
        return f"{said} (sides not swapped: the first agent played side {seat} every game, so the seat is in it)"
    if low > 0.5:
        return "better beyond doubt"
    if high < 0.5:
        return "worse beyond doubt"
    return "not separated: the interval holds 50 %"


def head_to_head(summary: dict[str, Any]) -> str:
    """A's decided games against B in words, with its points and seed pairs (the report's and the command's line).

    Every figure is formatted from the summary's counts, not from its rounded fractions, so it reads as the
    report's tables read it.
    """
    a, b = summary["agent_a"], summary["agent_b"]
    decided = summary["a_wins"] + summary["b_wins"]
    if not decided:
        text = f"{a} against {b}: {summary['verdict']} in {summary['games']} games"
    else:
        text = (f"{a} against {b}: {summary['a_wins']} of the {decided} decided games, "
                f"{share(summary['a_wins'], decided, digits=1)}, {summary['verdict']}")
    if summary["games"]:
        points = (summary["a_wins"] + summary["draws"] / 2) / summary["games"]
        text += f"; {pct(points, digits=1)} of the points with a draw as half"
    p = summary.get("seed_pairs")
    if p and p["pairs"]:
        text += f"; seed pairs: {pairs_words(p)}"
    return text


def pairs_words(p: dict[str, Any]) -> str:
    """``3 of 10 split one win each, 4 won twice, 0 lost twice, 3 with a draw (2 drawn twice)``.

    A pair drawn twice is one of those with a draw, said apart: its 1 point is no split (`series.pairs`).
    """
    text = (f"{p['split']} of {p['pairs']} split one win each, {p['won_twice']} won twice, "
            f"{p['lost_twice']} lost twice")
    if p["with_draw"]:
        twice = p.get("drawn_twice", 0)
        text += f", {p['with_draw']} with a draw" + (f" ({twice} drawn twice)" if twice else "")
    return text


def side_lines(summary: dict[str, Any]) -> list[str]:
    """``scripted (A) as side wanderers: wins 12 of 20, 60 % [39, 78]``: one line per agent and side."""
    return [f"{p['agent']} ({'AB'[p['slot'] - 1] if p['slot'] <= 2 else p['slot']}) as side {p['side']}: wins "
            f"{p['wins']} of {p['games']}, {share(p['wins'], p['games'])}" for p in summary["per_side"]]


def run_evaluation(encounter: str, names: list[str], games: int, seed: int, swap: bool | None, out: Path,
                   console: Console, workers: int | None = None, backend: str = "local",
                   resume: Path | None = None) -> dict[str, Any]:
    """Evaluate into a run folder under `out`: summary.json, results.jsonl, winrate.png, report.md/html.

    Each game is appended to results.jsonl as it ends, so a stopped evaluation keeps what it played
    and ``resume`` (its folder) plays only the games missing: game ``i`` is a pure function of the
    spec and ``i``, so the finished folder is the one an unbroken run writes.

    `swap` None swaps the sides when the agents differ; a mirror line-up plays a fresh seed per game, since
    its swapped game would be its partner played again (docs/regression.md).
    """
    from trpg_arena.experiments.series.report import Part, series_parts, write_parts

    spec = SeriesSpec.build(encounter, names, games, seed, swap)  # a line-up that does not fit the sides is named here
    if len(names) != 2:
        raise ValueError("evaluation needs exactly two agent specs, A,B")
    if spec.swap and names[0] == names[1]:
        console.print(f"note: --swap on the mirror line-up {','.join(names)}: a seed's two games are one game "
                      f"played twice, so its {games} games hold {games - games // 2} outcomes and the intervals "
                      "count each twice (leave --swap out for a fresh seed per game)", highlight=False)
    check_backend(backend, workers)  # before the run folder: a refused run leaves none
    folder = open_run(out, f"{encounter}-{'-'.join(names)}", "spec.json", spec.to_json(), resume, "evaluation")
    (records,) = play_kept(console, folder, [(series_label(encounter, names), spec, folder / "results.jsonl")],
                           workers, backend, resume is not None)
    summary = summarise(spec, records)
    _plot(summary, folder / "winrate.png")
    write_parts(folder, f"evaluate {encounter}: {names[0]} vs {names[1]}",
                [Part(head_to_head_markdown(summary)), *series_parts(spec, records)])
    summary["folder"] = str(folder)
    (folder / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def head_to_head_markdown(summary: dict[str, Any]) -> str:
    """The report's opening paragraph: the head to head in the terms strength is judged by."""
    return ("**" + head_to_head(summary) + ".**\n\nThe share of decided games leaves draws out; its interval is "
            "Wilson's 95 %. A seed pair is one seed played once from each side: a pair split one win each was "
            "decided by the seat and the dice, and only the pairs won or lost twice are games the agents' play "
            "changed. A pair with a draw in it is counted apart; a pair drawn twice is one of those, said in "
            "brackets.\n")


def _plot(summary: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3))
    labels = [f"{summary['agent_a']} wins", f"{summary['agent_b']} wins", "draws"]
    values = [summary["a_wins"], summary["b_wins"], summary["draws"]]
    ax.bar(labels, values, color=["#3478f6", "#e6463c", "#999999"])
    ax.set_title(f"{summary['encounter']}: {summary['games']} games")
    ax.set_ylabel("games")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
