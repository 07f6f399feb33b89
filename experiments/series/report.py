"""Reports a designer can share: Markdown plus one self-contained HTML file (plots inlined as PNG).

Per series: the sides' win rates with Wilson 95 % intervals, rounds to the end, damage dealt and
taken by source and target (the post-combat statistics, `agents.stats`), which combatant falls
first, the rule ids the rule system can cite that no game cited (rules the agents never use: a
design smell or a bug) and, for a regression, the sequential test's log-likelihood trace.
"""

from __future__ import annotations

import base64
import html
import io
import re
from collections import Counter
from pathlib import Path
from typing import Any

from trpg_arena.experiments.series.game import GameRecord
from trpg_arena.experiments.series.spec import SeriesSpec
from trpg_arena.experiments.series.sprt import wilson
from trpg_arena.rules import RULESETS

RULE_ID = re.compile(r"[\"']([A-Z]{2,5}-\d+(?:\.\d+)+[a-z]?)[\"']")


def citable_rules(ruleset: str) -> set[str]:
    """Rule ids the rule system's code can put on an event (id literals in its package's sources)."""
    folder = RULESETS[ruleset].info.data_dir
    return {m for f in folder.rglob("*.py") for m in RULE_ID.findall(f.read_text(encoding="utf-8"))}


def facts(spec: SeriesSpec, records: list[GameRecord]) -> dict[str, Any]:
    """The numbers of one series' section of the report."""
    n = len(records)
    sides = list(spec.sides)
    results = Counter(r.result for r in records)
    rates = {s: (results[s], *wilson(results[s], n)) for s in [*sides, "draw"]}
    rounds = Counter(r.rounds for r in records)
    dealt: Counter[tuple[str, str]] = Counter()
    for r in records:
        for s, t, v in r.damage:
            dealt[(s, t)] += v
    first = Counter(r.falls[0] if r.falls else "(nobody fell)" for r in records)
    # wins of each line-up slot, whichever side it played
    label = [f"{a} (line-up slot {i + 1})" for i, a in enumerate(spec.lineup)]
    by_agent: Counter[str] = Counter({k: 0 for k in label})
    for r in records:
        if r.result in sides:
            slot = sides.index(r.result)
            by_agent[label[len(sides) - 1 - slot if r.swapped else slot]] += 1
    fired = set().union(*(set(r.rules) for r in records)) if records else set()
    return {"games": n, "sides": sides, "rates": rates, "rounds": rounds, "damage": dealt, "first_fall": first,
            "by_agent": by_agent,
            "never": sorted(citable_rules(spec.ruleset) - fired, key=_rule_key),
            "mean_rounds": sum(r.rounds for r in records) / n if n else 0.0}


def _rule_key(rid: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[-.]", rid))


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def plots(f: dict[str, Any], test: dict[str, Any] | None) -> dict[str, str]:
    """Base64 PNGs: win rates with intervals, rounds histogram, damage matrix, first falls, LLR trace."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = {}
    fig, ax = plt.subplots(figsize=(5, 2.6))
    names = list(f["rates"])
    rate = [f["rates"][s][0] / max(f["games"], 1) for s in names]
    err = [[r - f["rates"][s][1] for r, s in zip(rate, names)], [f["rates"][s][2] - r for r, s in zip(rate, names)]]
    ax.barh(names, rate, xerr=err, color=["#3478f6", "#e6463c", "#f0a030", "#5cb85c"][:len(names) - 1] + ["#999"],
            capsize=4)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of games (Wilson 95 % interval)")
    ax.set_title("who wins")
    fig.tight_layout()
    out["wins"] = _png(fig)

    fig, ax = plt.subplots(figsize=(5, 2.6))
    xs = sorted(f["rounds"])
    ax.bar(xs, [f["rounds"][x] for x in xs], color="#6a5acd")
    ax.set_xlabel("rounds to the end")
    ax.set_ylabel("games")
    ax.set_title(f"rounds (mean {f['mean_rounds']:.1f})")
    fig.tight_layout()
    out["rounds"] = _png(fig)

    if f["damage"]:
        src = sorted({s for s, _ in f["damage"]})
        tgt = sorted({t for _, t in f["damage"]})
        m = [[f["damage"][(s, t)] / max(f["games"], 1) for t in tgt] for s in src]
        peak = max(max(row) for row in m)
        fig, ax = plt.subplots(figsize=(1.0 * len(tgt) + 2.5, 0.5 * len(src) + 1.8))
        im = ax.imshow(m, cmap="Reds", aspect="auto")
        ax.set_xticks(range(len(tgt)), tgt, rotation=30, ha="right")
        ax.set_yticks(range(len(src)), src)
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
        out["damage"] = _png(fig)

    fig, ax = plt.subplots(figsize=(5, 0.35 * len(f["first_fall"]) + 1.2))
    ff = f["first_fall"].most_common()
    ax.barh([k for k, _ in ff][::-1], [v for _, v in ff][::-1], color="#444")
    ax.set_xlabel("games")
    ax.set_title("falls first")
    fig.tight_layout()
    out["falls"] = _png(fig)

    if test and test.get("trace"):
        fig, ax = plt.subplots(figsize=(6, 3))
        trace = test["trace"]
        xs = [p["units"] for p in trace]
        for key in [k for k in trace[0] if k != "units"]:
            ax.plot(xs, [p[key] for p in trace], label=key)
        lo, hi = test["bounds"]
        ax.axhline(lo, color="green", ls="--", lw=1, label="accept no shift")
        ax.axhline(hi, color="red", ls="--", lw=1, label="accept shift")
        ax.set_ylim(max(min(lo * 2, -5), ax.get_ylim()[0]), min(max(hi * 2, 5), ax.get_ylim()[1]))
        ax.set_xlabel("side-swapped pairs played" if test.get("unit") == "pair" else "games played")
        ax.set_ylabel("log-likelihood ratio")
        ax.set_title("sequential test")
        ax.legend(fontsize=7, ncol=3)
        fig.tight_layout()
        out["llr"] = _png(fig)
    return out


def _md_section(title: str, spec: SeriesSpec, f: dict[str, Any], extra: dict[str, Any] | None) -> str:
    lines = [f"## {title}", "",
             f"`{spec.name}` ({spec.ruleset} env_version {spec.env_version}, content {spec.content_hash}), "
             f"line-up `{','.join(spec.lineup)}`, {f['games']} games from seed {spec.first_seed}, "
             f"sides {'swapped in pairs' if spec.swap else 'not swapped'}.", ""]
    if extra:
        lines += [f"**Verdict: {extra['status']}**: {extra['message']}", ""]
        test = extra.get("test") or {}
        if test.get("kind") == "sprt":
            last = test["trace"][-1] if test["trace"] else {}
            lines += [f"Sequential test: shift of {test['delta']:.0%} or more, alpha {test['alpha']}, beta "
                      f"{test['beta']}, {'paired with the baseline' if test['paired'] else 'unpaired'}; bounds "
                      f"{test['bounds'][0]} / {test['bounds'][1]}; games used {extra.get('games_used')}; "
                      f"decided: {', '.join(f'{k} {v}' for k, v in test['decided'].items()) or 'nothing'}"
                      f"{'; stopped at the cap (fixed-N fallback)' if test['truncated'] else ''}"
                      f"; last LLRs {', '.join(f'{k} {v}' for k, v in last.items() if k != 'units')}.", ""]
        elif test:
            lines += ["Fixed-N test: " + ", ".join(f"{m} shift {v['shift']:+.3f} (p {v['p_value']})"
                                                   for m, v in test["metrics"].items()), ""]
    lines += ["| outcome | games | share | 95 % interval |", "|---|---:|---:|---|"]
    for s, (k, lo, hi) in f["rates"].items():
        lines.append(f"| {s if s != 'draw' else 'draw'} | {k} | {k / max(f['games'], 1):.1%} | {lo:.1%} - {hi:.1%} |")
    if spec.swap:
        lines += ["", "| agent (sides swapped in pairs) | wins | share | 95 % interval |", "|---|---:|---:|---|"]
        for a, k in f["by_agent"].items():
            lo, hi = wilson(k, f["games"])
            lines.append(f"| {a} | {k} | {k / max(f['games'], 1):.1%} | {lo:.1%} - {hi:.1%} |")
    g = max(f["games"], 1)
    ids = sorted({s for s, _ in f["damage"]} | {t for _, t in f["damage"]})
    lines += ["", f"Rounds to the end: mean {f['mean_rounds']:.1f}, "
              + ", ".join(f"{r}: {c}" for r, c in sorted(f["rounds"].items())), "",
              "| combatant | damage dealt per game | damage taken per game | falls first |", "|---|---:|---:|---:|"]
    for c in ids:
        dealt = sum(v for (s, _), v in f["damage"].items() if s == c)
        taken = sum(v for (_, t), v in f["damage"].items() if t == c)
        lines.append(f"| {'(no source)' if c == '-' else c} | {dealt / g:.2f} | {taken / g:.2f} | "
                     f"{f['first_fall'].get(c, 0)} |")
    lines += ["", "Falls first: " + ", ".join(f"{k} {v}" for k, v in f["first_fall"].most_common()), "",
              f"Rule ids never cited in any game ({len(f['never'])}): " + (", ".join(f["never"]) or "none"), ""]
    return "\n".join(lines)


def write_report(folder: Path, title: str, sections: list[tuple[SeriesSpec, list[GameRecord]]],
                 extras: list[dict[str, Any] | None] | None = None) -> tuple[Path, Path]:
    """Write report.md and report.html for one or more series; returns their paths."""
    extras = extras or [None] * len(sections)
    md = [f"# {title}", ""]
    body = [f"<h1>{html.escape(title)}</h1>"]
    for (spec, records), extra in zip(sections, extras):
        f = facts(spec, records)
        head = f"{spec.name} [{','.join(spec.lineup)}]"
        section = _md_section(head, spec, f, extra)
        md.append(section)
        images = plots(f, (extra or {}).get("test"))
        body.append(_html_section(section, images))
    md_path, html_path = folder / "report.md", folder / "report.html"
    md_path.write_text("\n".join(md), encoding="utf-8")
    html_path.write_text(PAGE.format(title=html.escape(title), body="\n".join(body)), encoding="utf-8")
    return md_path, html_path


def _html_section(markdown: str, images: dict[str, str]) -> str:
    """The section's Markdown as simple HTML (headings, tables, paragraphs), then its plots."""
    out, table = [], []
    for line in markdown.splitlines() + [""]:
        if line.startswith("|"):
            table.append(line)
            continue
        if table:
            rows = [[html.escape(c.strip()) for c in r.strip("|").split("|")] for r in table if "---" not in r]
            out.append("<table><tr>" + "".join(f"<th>{c}</th>" for c in rows[0]) + "</tr>"
                       + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows[1:])
                       + "</table>")
            table = []
        if line.startswith("## "):
            out.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line:
            text = html.escape(line)
            text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
            text = re.sub(r"`(.+?)`", r"<code>\1</code>", text)
            out.append(f"<p>{text}</p>")
    figs = "".join(f'<figure><img alt="{k}" src="data:image/png;base64,{v}"></figure>' for k, v in images.items())
    return "<section>" + "\n".join(out) + f'<div class="plots">{figs}</div></section>'


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }}
section {{ border-top: 2px solid #ddd; margin-top: 1.5em; }}
table {{ border-collapse: collapse; margin: .5em 0; }}
th, td {{ border: 1px solid #ccc; padding: .2em .6em; text-align: left; }}
td:nth-child(n+2) {{ text-align: right; }}
code {{ background: #f4f4f4; padding: 0 .2em; }}
.plots {{ display: flex; flex-wrap: wrap; gap: 1em; }}
figure {{ margin: 0; }}
img {{ max-width: 100%; border: 1px solid #eee; }}
</style></head><body>
{body}
</body></html>
"""
