"""The report's plots, as base64 PNGs (inlined into the HTML report, so the file stands alone).

Rates are drawn in percent with their Wilson 95 % intervals; a regression adds the baseline beside
the new run and the sequential test's trace, clipped to the band where it decides (an unchanged
paired run's log-likelihood ratios fall far below it at once: they are drawn at the edge).
"""

from __future__ import annotations

import base64
import io
from typing import Any

COLOURS = ["#3478f6", "#e6463c", "#f0a030", "#5cb85c"]
TEST_NAMES = {"win+": "win rate up", "win-": "win rate down", "loss+": "loss rate up", "loss-": "loss rate down"}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    _pyplot().close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def _whole_axis(axis: Any) -> None:
    """Ticks on whole numbers only: rounds and games are counts (it ticked 2.5, 7.5... rounds)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _percent_axis(axis: Any) -> None:
    from matplotlib.ticker import PercentFormatter

    axis.set_major_formatter(PercentFormatter(xmax=1.0, decimals=0))


def wins(f: dict[str, Any]) -> str:
    """Who wins: each side's share of the games and the draws, with intervals."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 2.6))
    names = list(f["rates"])
    share = [f["rates"][s][0] / max(f["games"], 1) for s in names]
    err = [[r - f["rates"][s][1] for r, s in zip(share, names)], [f["rates"][s][2] - r for r, s in zip(share, names)]]
    ax.barh([f"side {s}" if s != "draw" else "draws" for s in names], share, xerr=err,
            color=COLOURS[:len(names) - 1] + ["#999"], capsize=4)
    ax.set_xlim(0, 1)
    _percent_axis(ax.xaxis)
    ax.set_xlabel("share of games (Wilson 95 % interval)")
    ax.set_title(f"who wins ({f['games']} games)")
    fig.tight_layout()
    return _png(fig)


def rounds(f: dict[str, Any]) -> str:
    """Rounds to the end of each game."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 2.6))
    xs = sorted(f["rounds"])
    ax.bar(xs, [f["rounds"][x] for x in xs], color="#6a5acd")
    ax.set_xlabel("rounds to the end")
    ax.set_ylabel("games")
    _whole_axis(ax.xaxis)
    _whole_axis(ax.yaxis)
    ax.set_title(f"rounds (mean {f['mean_rounds']:.1f})")
    fig.tight_layout()
    return _png(fig)


def damage(f: dict[str, Any]) -> str | None:
    """Damage per game from each source to each target (None when nobody was hurt)."""
    if not f["damage"]:
        return None
    plt = _pyplot()
    src = sorted({s for s, _ in f["damage"]})
    tgt = sorted({t for _, t in f["damage"]})
    m = [[f["damage"][(s, t)] / max(f["games"], 1) for t in tgt] for s in src]
    peak = max(max(row) for row in m)
    fig, ax = plt.subplots(figsize=(1.0 * len(tgt) + 2.5, 0.5 * len(src) + 1.8))
    im = ax.imshow(m, cmap="Reds", aspect="auto")
    ax.set_xticks(range(len(tgt)), tgt, rotation=30, ha="right")
    ax.set_yticks(range(len(src)), ["(no source)" if s == "-" else s for s in src])
    for i, row in enumerate(m):
        for j, v in enumerate(row):
            if v:  # light text on the dark cells
                ax.text(j, i, f"{v:.2f}" if v < 10 else f"{v:.0f}", ha="center", va="center", fontsize=8,
                        color="white" if v > 0.6 * peak else "black")
    ax.set_xlabel("target")
    ax.set_ylabel("source")
    ax.set_title("damage per game")
    fig.colorbar(im)
    fig.tight_layout()
    return _png(fig)


def falls(f: dict[str, Any]) -> str:
    """Which combatant falls first, over the games."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 0.35 * len(f["first_fall"]) + 1.2))
    ff = f["first_fall"].most_common()
    ax.barh([k for k, _ in ff][::-1], [v for _, v in ff][::-1], color="#444")
    ax.set_xlabel("games")
    _whole_axis(ax.xaxis)
    ax.set_title("falls first")
    fig.tight_layout()
    return _png(fig)


def beside(now: dict[str, Any], was: dict[str, Any], status: str) -> str:
    """The first side's wins, draws and losses: the baseline beside this run, with intervals."""
    from trpg_arena.experiments.series.sprt import wilson

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.0))
    kinds = ["wins", "draws", "losses"]
    ys = list(range(len(kinds)))
    colour = "#e6463c" if status == "shifted" else "#3478f6"
    for offset, (label, d, c) in enumerate(((f"baseline ({was['games']} games)", was, "#aaaaaa"),
                                            (f"this run ({now['games']} games)", now, colour))):
        share = [d[k] / max(d["games"], 1) for k in kinds]
        bands = [wilson(d[k], d["games"]) for k in kinds]
        err = [[p - lo for p, (lo, _) in zip(share, bands)], [hi - p for p, (_, hi) in zip(share, bands)]]
        pos = [y + (-0.2 if offset == 0 else 0.2) for y in ys]
        ax.barh(pos, share, height=0.38, xerr=err, color=c, capsize=3, label=label)
        for y, p, (_, hi) in zip(pos, share, bands):  # the number right of the interval, clear of its whisker
            ax.text(hi + 0.015, y, f"{100 * p:.0f} %", va="center", fontsize=8)
    ax.set_yticks(ys, kinds)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.12)
    _percent_axis(ax.xaxis)
    ax.set_xlabel("share of games (Wilson 95 % interval)")
    ax.set_title(f"side {now['first_side']}: baseline beside this run ({status})", fontsize=10)
    ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.25), frameon=False)
    fig.tight_layout()
    return _png(fig)


def sequential(test: dict[str, Any]) -> str | None:
    """The sequential test's log-likelihood ratios against its bounds, clipped to where it decides."""
    trace = test.get("trace") or []
    if not trace:
        return None
    import numpy as np

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    lo, hi = test["bounds"]
    floor, ceiling = 2 * lo, 1.6 * hi
    xs = [p["units"] for p in trace]
    clipped = False
    for i, key in enumerate(k for k in trace[0] if k != "units"):
        ys = np.array([p[key] for p in trace], dtype=float)
        clipped |= bool(((ys < floor) | (ys > ceiling)).any())
        ax.plot(xs, np.clip(ys, floor, ceiling), label=TEST_NAMES.get(key, key), color=COLOURS[i % len(COLOURS)],
                marker="." if len(xs) < 40 else None)
    ax.axhline(lo, color="green", ls="--", lw=1, label="no change: accepted below")
    ax.axhline(hi, color="red", ls="--", lw=1, label="change: found above")
    ax.axhspan(floor, lo, color="green", alpha=0.06)
    ax.axhspan(hi, ceiling, color="red", alpha=0.06)
    ax.set_ylim(floor - 0.3, ceiling + 0.3)
    outcome = _outcome(test)
    if outcome:  # where and how it stopped, said in words beside the last point
        ax.annotate(outcome, (xs[-1], float(np.clip(trace[-1][_decider(test)], floor, ceiling))),
                    xytext=(-6, 10 if outcome.startswith("no") else -14), textcoords="offset points", ha="right",
                    fontsize=8, color="green" if outcome.startswith("no") else "#b00")
    ax.set_xlim(0, max(xs[-1], 16) * 1.03)
    ax.set_xlabel("side-swapped pairs played" if test.get("unit") == "pair" else "games played")
    ax.set_ylabel("log-likelihood ratio")
    title = "sequential test"
    if clipped:
        title += " (values beyond the band drawn at its edge)"
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.22), frameon=False)
    fig.tight_layout()
    return _png(fig)


def _decider(test: dict[str, Any]) -> str:
    """The one-sided test whose line shows the decision (the one that found a change, else any)."""
    found = [k for k, v in test.get("decided", {}).items() if v == "H1"]
    keys = [k for k in test["trace"][-1] if k != "units"]
    return found[0] if found else keys[0]


def _outcome(test: dict[str, Any]) -> str:
    decided = test.get("decided", {})
    unit = "pairs" if test.get("unit") == "pair" else "games"
    n = test["trace"][-1]["units"]
    if "H1" in decided.values():
        return f"change found after {n} {unit}: {TEST_NAMES[_decider(test)]}"
    if len(decided) == len(TEST_NAMES) and not test.get("truncated"):
        return f"no change: all four ruled out after {n} {unit}"
    return f"undecided at the cap ({n} {unit})" if test.get("truncated") else ""
