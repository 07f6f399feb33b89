"""The HTML report: the report's Markdown subset (headings, paragraphs, lists, tables, bold, code) as HTML.

The page needs nothing from elsewhere (no scripts, fonts or style sheets fetched): plots are
inlined PNGs, so the one file can be mailed or attached to a CI run. Verdict words are coloured. A table
wider than the window scrolls inside its own box and long words break, so the page itself never scrolls
sideways (an 800 px window reads every report).
"""

from __future__ import annotations

import html
import re

VERDICTS = ("ok", "recorded", "shifted", "stale", "error")
NUMBER = re.compile(r"^([-+]?\d|-$)")  # a cell that starts with a number (or is "-"): aligned right


def _inline(text: str) -> str:
    text = html.escape(text)

    def bold(m: re.Match[str]) -> str:
        inner = m.group(1)
        word = inner.removeprefix("Verdict: ").split(":")[0].strip()
        return f'<b class="v-{word}">{inner}</b>' if word in VERDICTS else f"<b>{inner}</b>"

    text = re.sub(r"\*\*(.+?)\*\*", bold, text)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", text)


def _cell(text: str) -> str:
    """A table cell; numbers (and "-") align right, words left."""
    return f'<td class="num">{text}</td>' if NUMBER.match(text) else f"<td>{text}</td>"


def html_of(markdown: str, images: dict[str, str], continued: bool = False) -> str:
    """One part of the report as a ``<section>``: its Markdown as HTML, then its plots."""
    out: list[str] = []
    table: list[str] = []
    items: list[str] = []
    for line in markdown.splitlines() + [""]:
        if line.startswith("|"):
            table.append(line)
            continue
        if table:
            rows = [[_inline(c.strip()) for c in r.strip().strip("|").split("|")] for r in table
                    if not re.fullmatch(r"\|[-:|]+\|", r.strip())]
            # in a box of its own that scrolls sideways: a wide table never makes the whole page do so
            out.append('<div class="wide"><table><tr>' + "".join(f"<th>{c}</th>" for c in rows[0]) + "</tr>"
                       + "".join("<tr>" + "".join(_cell(c) for c in r) + "</tr>" for r in rows[1:])
                       + "</table></div>")
            table = []
        if line.startswith("- "):
            items.append(line[2:])
            continue
        if items:
            out.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
            items = []
        if line.startswith("## "):
            out.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line:
            out.append(f"<p>{_inline(line)}</p>")
    figs = "".join(f'<figure><img alt="{html.escape(k)}" title="{html.escape(k)}" src="data:image/png;base64,{v}">'
                   f"</figure>" for k, v in images.items())
    opening = '<section class="cont">' if continued else "<section>"
    return opening + "\n".join(out) + (f'<div class="plots">{figs}</div>' if figs else "") + "</section>"


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222;
       overflow-wrap: break-word; }}
.wide {{ max-width: 100%; overflow-x: auto; }}
section {{ border-top: 2px solid #ddd; margin-top: 1.5em; }}
section.cont {{ border-top: none; margin-top: .5em; }}
table {{ border-collapse: collapse; margin: .5em 0; }}
th, td {{ border: 1px solid #ccc; padding: .2em .6em; text-align: left; vertical-align: top; }}
td.num {{ text-align: right; white-space: nowrap; }}
code {{ background: #f4f4f4; padding: 0 .2em; }}
li {{ margin: .25em 0; }}
.v-ok, .v-recorded {{ color: #1a7f37; }}
.v-shifted {{ color: #fff; background: #cf222e; padding: 0 .3em; border-radius: 3px; }}
.v-stale {{ color: #fff; background: #bf6a02; padding: 0 .3em; border-radius: 3px; }}
.v-error {{ color: #fff; background: #6e2b8f; padding: 0 .3em; border-radius: 3px; }}
.plots {{ display: flex; flex-wrap: wrap; gap: 1em; }}
figure {{ margin: 0; min-width: 0; max-width: 100%; }}
img {{ max-width: 100%; border: 1px solid #eee; }}
</style></head><body>
{body}
</body></html>
"""
