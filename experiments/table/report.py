"""The end of a combat at the terminal: statistics printed, and written as JSON, Markdown and event lines.

Files go to a folder under fresh names (``<session>-stats.json``, then ``<session>-stats-2.json``...):
an existing file is never overwritten.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from trpg_arena.table.session import Session
from trpg_arena.table.stats import CombatStats, damage_text
from trpg_arena.table.transcript import transcript


def stats_view(stats: CombatStats) -> RenderableType:
    """Per-combatant totals, the falls and the damage per round, in tables that fit 80 columns."""
    totals = Table(title="after the combat", title_justify="left")
    for col in ("combatant", "side", "dealt", "taken", "healed", "hits", "misses", "hp left"):
        totals.add_column(col, no_wrap=True, justify="left" if col in ("combatant", "side") else "right")
    for f in stats.fighters.values():
        totals.add_row(Text(f.id[:18]), Text(f.side[:14]), str(f.dealt), str(f.taken), str(f.healed), str(f.hits),
                       str(f.misses), f"{f.hp_end}/{f.max_hp}")  # Text: ids are never read as markup
    falls = [Text(f"round {f.round}: {f.combatant} {f.status}" + (f" (struck last by {f.by})" if f.by else ""))
             for f in stats.falls] or [Text("nobody fell")]
    # the log states more damage than these took: the hit points ran out first
    capped = [Text(f"{source or '(no one)'} on {target}: {damage_text(t['damage'], t['beyond'])}")
              for (source, target), t in stats.pairs.items() if t["beyond"]]
    rounds = Table(title="damage dealt per round", title_justify="left")
    rounds.add_column("round", justify="right")
    rounds.add_column("dealt by", overflow="fold")
    for r, row in sorted(stats.per_round.items()):
        dealt = ", ".join(f"{cid} {v['dealt']}" for cid, v in row.items() if v["dealt"]) or "-"
        rounds.add_row(str(r), Text(dealt))  # Text: ids are never read as markup
    edited = ", ".join(f"{f.id} {f.edits}" for f in stats.fighters.values() if f.edits)
    edits = [Text(f"GM edits: {stats.edits} ({edited}); their HP changes count as nobody's damage")] if stats.edits \
        else []
    return Group(totals, *edits, Text("who fell when", style="italic"), *falls,
                 *([Text("damage capped at the HP left", style="italic"), *capped] if capped else []), rounds)


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
    console.print(stats_view(stats))
    try:
        written = write_reports(session, stats, folder)
    except OSError as e:  # the folder went away or filled up during the fight: the session itself is stored
        console.print(Text(f"the reports were not written: {e}", style="red"), soft_wrap=True)
        return
    for path in written:
        console.print(Text(f"written {path}"), soft_wrap=True)
