"""The end of a combat at the terminal: statistics printed, and written as JSON, Markdown and event lines.

Files go to a folder under fresh names (``<session>-stats.json``, then ``<session>-stats-2.json``...):
an existing file is never overwritten.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from trpg_arena.table.session import Session
from trpg_arena.table.stats import CombatStats, damage_text
from trpg_arena.table.transcript import transcript

NUMBERS = ("dealt", "taken", "healed", "hits", "misses")
# the totals' layouts, widest first: headers whole or broken between words, and the characters between columns
# (a cell's right padding and the blank between columns)
LAYOUTS = ((True, 2), (False, 2), (False, 1))


def stats_view(stats: CombatStats, width: int = 80, health: Mapping[str, str] | None = None) -> RenderableType:
    """Per-combatant totals, the falls and the damage per round, in tables that fit `width` columns.

    `health` is each combatant's health in words where the rules keep a wound track (kiai's ``incapacitated``,
    ``moderate wound``): shown instead of hit points left, which would read as points there.
    """
    falls = [Text(f"round {f.round}: {f.combatant} {f.status}" + (f" (struck last by {f.by})" if f.by else ""))
             for f in stats.falls] or [Text("nobody fell")]
    # the log states more damage than these took: the hit points ran out first
    capped = [Text(f"{source or '(no one)'} on {target}: {damage_text(t['damage'], t['beyond'])}")
              for (source, target), t in stats.pairs.items() if t["beyond"]]
    rounds = Table(title="damage dealt per round", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False,
                   pad_edge=False, padding=(0, 1, 0, 0))
    rounds.add_column("round", justify="right")
    rounds.add_column("dealt by", overflow="fold")
    for r, row in sorted(stats.per_round.items()):
        dealt = ", ".join(f"{cid} {v['dealt']}" for cid, v in row.items() if v["dealt"]) or "-"
        rounds.add_row(str(r), Text(dealt))  # Text: ids are never read as markup
    edited = ", ".join(f"{f.id} {f.edits}" for f in stats.fighters.values() if f.edits)
    edits = [Text(f"GM edits: {stats.edits} ({edited}); their HP changes count as nobody's damage")] if stats.edits \
        else []
    return Group(totals_table(stats, width, health), *edits, Text("who fell when", style="italic"), *falls,
                 *([Text("damage capped at the HP left", style="italic"), *capped] if capped else []), rounds)


def totals_table(stats: CombatStats, width: int = 80, health: Mapping[str, str] | None = None) -> RenderableType:
    """Each combatant's totals in `width` columns: ids and values whole, headers wrapped between their words.

    Where the longest id leaves the numbers too little room, long ids are broken after a ``.``, ``_`` or ``-``
    onto lines of their own in the cell (every character kept), as a header "hp left" is broken into two; a
    terminal too narrow even for that gets a line per combatant instead.
    """
    last = "health" if health is not None else "hp left"
    headers = ["combatant", "side", *NUMBERS, last]
    rows = [[f.id, f.side, *(str(getattr(f, n)) for n in NUMBERS),
             health.get(f.id, "") if health is not None else f"{f.hp_end}/{f.max_hp}"]
            for f in stats.fighters.values()]
    # a column is as wide as its widest value and its header (or the header's longest word, where room is short):
    # neither is ever cut; ids are broken only where no layout leaves them room whole
    for breaking, (whole, gap) in ((b, layout) for b in (False, True) for layout in LAYOUTS):
        widths = [max([len(header) if whole else max(len(w) for w in header.split())] + [len(row[i]) for row in rows])
                  for i, header in enumerate(headers)]
        room = width - sum(widths[1:]) - gap * (len(headers) - 1)
        ids = [_broken(row[0], room) if breaking else row[0] for row in rows]
        widths[0] = max([len(headers[0])] + [len(line) for cid in ids for line in cid.split("\n")])
        if sum(widths) + gap * (len(headers) - 1) <= width:
            break
    else:
        return Group(Text("after the combat", style="italic"), *(Text(
            f"{row[0]} ({row[1]}): " + ", ".join(f"{h} {v}" for h, v in zip(headers[2:], row[2:], strict=True)))
            for row in rows))
    totals = Table(title="after the combat", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False,
                   pad_edge=False, padding=(0, gap - 1, 0, 0))
    for i, header in enumerate(headers):
        totals.add_column(header, justify="left" if i < 2 or header == "health" else "right", width=widths[i])
    for cid, row in zip(ids, rows, strict=True):  # Text: ids are never read as markup
        totals.add_row(Text(cid), *(Text(cell) for cell in row[1:]))
    return totals


def health_words(session: Session) -> dict[str, str] | None:
    """Each combatant's health in words on a wound track (the roster's words), or None where the rules count HP."""
    info = session.combat.system.info
    if info.health != "wounds":
        return None
    return {v.id: info.health_text(v) for v in session.combat.combatants}


def _broken(cid: str, room: int) -> str:
    """`cid` on lines of at most `room` characters where it is longer, broken after its ``.``, ``_`` and ``-``."""
    if len(cid) <= room:
        return cid
    lines = [""]
    for part in re.findall(r"[^._-]+[._-]?|[._-]", cid):
        if lines[-1] and len(lines[-1]) + len(part) > room:
            lines.append("")
        lines[-1] += part
    return "\n".join(lines)


NAME_LIMIT = 10_000  # names tried per report: a folder already holding that many of one session's is refused


def _names(folder: Path, stem: str, suffix: str) -> Iterator[Path]:
    """``stem.suffix``, ``stem-2.suffix``... up to `NAME_LIMIT` of them: the search for a free one always ends."""
    yield folder / f"{stem}{suffix}"
    for n in range(2, NAME_LIMIT + 1):
        yield folder / f"{stem}-{n}{suffix}"


def _taken(path: Path) -> bool:
    # lexists, not exists: a broken symbolic link holds its name too (exists() says no, open(..., "x") says yes)
    return os.path.lexists(path)


def _no_free_name(folder: Path, stem: str, suffix: str) -> FileExistsError:
    return FileExistsError(f"{folder}: {stem}{suffix} and its {NAME_LIMIT - 1} numbered names are all taken; "
                           "clear the folder or name another")


def fresh_path(folder: Path, stem: str, suffix: str) -> Path:
    """``folder/stem.suffix``, or ``stem-2.suffix``, ``stem-3.suffix``... whichever name nothing holds yet."""
    for path in _names(folder, stem, suffix):
        if not _taken(path):
            return path
    raise _no_free_name(folder, stem, suffix)


def _write_new(folder: Path, stem: str, suffix: str, text: str) -> Path:
    for path in _names(folder, stem, suffix):
        if _taken(path):
            continue
        try:
            with open(path, "x", encoding="utf-8") as f:  # "x": never replaces a file that appeared meanwhile
                f.write(text)
            return path
        except FileExistsError:
            continue
    raise _no_free_name(folder, stem, suffix)


def write_reports(session: Session, stats: CombatStats, folder: Path) -> list[Path]:
    """Statistics as JSON, the log as Markdown and as JSON lines (one event per line), under fresh names."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = session.id or "session"
    events = "".join(e.json_line() + "\n" for e in session.combat.log)
    return [_write_new(folder, f"{stem}-stats", ".json", json.dumps(stats.to_json(), indent=2) + "\n"),
            _write_new(folder, f"{stem}-log", ".md", transcript(session, stats)),
            _write_new(folder, f"{stem}-events", ".jsonl", events)]


def print_end(console: Console, session: Session, stats: CombatStats, folder: Path) -> None:
    """Print the statistics and where the files went."""
    console.print(stats_view(stats, console.width, health_words(session)))
    try:
        written = write_reports(session, stats, folder)
    except OSError as e:  # the folder went away or filled up during the fight: the session itself is stored
        console.print(Text(f"the reports were not written: {e}", style="red"), soft_wrap=True)
        return
    for path in written:
        console.print(Text(f"written {path}"), soft_wrap=True)
