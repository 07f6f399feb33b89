"""Stored sessions for the terminal: where the database lives, which session to resume, the list of them.

The database is one SQLite file (`table.store.SessionStore`), by default
``$XDG_DATA_HOME/trpg-arena/sessions.db`` (``~/.local/share/trpg-arena/sessions.db``), or the path in
``TRPG_ARENA_DB`` or ``--db``. Starting a combat always stores a new session; resuming names one by
its id (or a prefix of it), or by its encounter when only one unfinished session has it.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

from rich import box
from rich.table import Table
from rich.text import Text

from trpg_arena.rules.core.wording import counted
from trpg_arena.table.dbpath import default_db
from trpg_arena.table.store import SessionRow, SessionStore, StoreError

__all__ = ["db_option", "default_db", "pick", "program", "sessions_table", "when"]


def program() -> str:
    """How this command was typed (``.venv/bin/trpg-arena``), to repeat in hints; ``trpg-arena`` otherwise."""
    typed = sys.argv[0] if sys.argv else ""
    return shlex.quote(typed) if Path(typed).name == "trpg-arena" else "trpg-arena"


def pick(store: SessionStore, wanted: str | None) -> SessionRow:
    """The session to resume: by id or id prefix, by encounter (``moonlit/skirmish``), or the only unfinished one.

    Raises `StoreError` listing the candidates when none or several fit.
    """
    rows = store.sessions()
    if wanted:
        by_id = [r for r in rows if r.id.startswith(wanted)]
        if len(by_id) == 1:
            return by_id[0]
        if len(by_id) > 1:
            raise StoreError(f"'{wanted}' is the start of several session ids: {_ids(by_id)}")
        rows = [r for r in rows if f"{r.ruleset}/{r.encounter}" == wanted or r.encounter == wanted]
        if not rows:
            raise StoreError(f"{store.path}: no session '{wanted}' (stored: {_ids(store.sessions()) or 'none'}; "
                             f"{program()} autopilot --list{db_option(store.path)} shows them)")
    running = [r for r in rows if r.status == "running"]
    if len(running) == 1:
        return running[0]
    if not running:
        raise StoreError(f"{store.path}: no unfinished session{' of ' + wanted if wanted else ''} to resume; "
                         f"start one with {program()} autopilot ENCOUNTER{db_option(store.path)}")
    raise StoreError(f"several unfinished sessions{' of ' + wanted if wanted else ''}: {_ids(running)}; "
                     f"name one: {program()} autopilot --resume ID{db_option(store.path)}")


def db_option(path: Path) -> str:
    """`` --db PATH`` to repeat in a hint for a database other than the default one, else nothing."""
    return "" if path.resolve() == default_db().resolve() else f" --db {shlex.quote(str(path))}"


def _ids(rows: list[SessionRow]) -> str:
    return ", ".join(f"{r.id} ({r.ruleset}/{r.encounter}, {counted(r.decisions, 'decision')}, {r.status})"
                     for r in rows[:8])


def when(stamp: object) -> str:
    """A stored time as ``12-07 19:37``; ``?`` for one that is no time (a database edited by hand)."""
    if not isinstance(stamp, int | float) or isinstance(stamp, bool):  # SQLite keeps whatever was written
        return "?"
    try:
        return time.strftime("%m-%d %H:%M", time.localtime(stamp))
    except (ValueError, OverflowError, OSError):  # NaN, or a time beyond what the platform can show
        return "?"


def sessions_table(store: SessionStore) -> Table:
    """The stored sessions, most recent first, in a table that fits 80 columns.

    An id is never cut (it is what `--resume` is given); in a narrower terminal the encounter and the status
    wrap. Every cell is a `Text`: an id or an encounter's name is shown as stored, never read as markup.
    """
    rows = store.sessions()
    # no outer edge and one space either side of a rule: five columns of a skirmish's session in 74 columns
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
    table.add_column("id", no_wrap=True, min_width=max((len(str(r.id)) for r in rows), default=2))
    table.add_column("encounter", overflow="fold", min_width=8)
    table.add_column("decisions", justify="right", no_wrap=True, min_width=len("decisions"))
    table.add_column("status", overflow="fold", min_width=7)
    table.add_column("updated", no_wrap=True, min_width=len("12-07 19:37"))
    for r in rows:
        status = r.status if r.result is None else f"{r.status}: {r.result}"
        table.add_row(Text(str(r.id)), Text(f"{r.ruleset}/{r.encounter}"), Text(str(r.decisions)), Text(str(status)),
                      Text(when(r.updated)))
    return table
