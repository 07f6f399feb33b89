"""The GM's edit prompt at the terminal (``e``): set a combatant's values, move it, take it out, add one.

One line per edit, words the GM would say: ``ghoul_1 hp 12``, ``kaede wounds_light 1 kiai 3``,
``ada pos 4,5``, ``count bind on``, ``ghoul_2 remove``, ``add ghoul_3 like ghoul_1 zone B_rear``; a
combatant's id alone lists its fields and what the rules allow. The edit goes to `Session.edit` like
the API's and MCP's: a value the rules refuse is printed in one line and the prompt asks again; Enter
alone goes back without editing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.text import Text

from trpg_arena.rules import TrpgArenaError
from trpg_arena.table.edits import GmEdit, editable
from trpg_arena.table.session import Session, SessionError

HELP = ("edit: '<id> <field> <value> ...' (e.g. 'ghoul_1 hp 12', 'ada pos 4,5', 'count bind on'), "
        "'<id> remove' takes it out, 'add <new id> like <id> [<field> <value> ...]' adds one "
        "(e.g. 'add ghoul_3 like ghoul_1 zone B_rear'), '<id>' lists its fields, Enter goes back")
TRUE, FALSE = {"on", "yes", "true", "y", "1"}, {"off", "no", "false", "n", "0"}


def field_line(row: dict[str, Any]) -> str:
    """A combatant's editable fields in one line: ``ghoul_1 (B, ok): hp 26 (0-26) · bind no · zone B_front``."""
    parts = []
    for f in row["fields"]:
        value = f["value"]
        shown = ",".join(map(str, value)) if isinstance(value, list) else ("yes" if value is True else "no"
                                                                            if value is False else str(value))
        bounds = f" ({f['low']}-{f['high']})" if f["kind"] == "int" else ""
        parts.append(f"{f['name']} {shown}{bounds}")
    out = " · ".join(parts) if parts else "nothing to edit (out of the fight)"
    return f"{row['id']} ({row['side']}, {row['status']}): {out}"


def parse(line: str, rows: list[dict[str, Any]]) -> GmEdit | str:
    """The edit a typed line names, or the id whose fields to list (a combatant's id alone)."""
    words = line.split()
    if words[0] == "add":
        return _addition(words[1:])
    cid = words[0]
    row = next((r for r in rows if r["id"] == cid), None)
    if row is None:
        ids = ", ".join(r["id"] for r in rows)
        raise SessionError(f"no combatant '{cid}' (combatants: {ids})")
    rest = words[1:]
    if not rest:
        return cid
    if rest == ["remove"]:
        return GmEdit(cid, remove=True)
    if len(rest) % 2:
        raise SessionError(f"'{rest[-1]}' has no value: write field and value in pairs, e.g. '{cid} hp 12'")
    kinds = {f["name"]: f["kind"] for f in row["fields"]}
    changes = {name: _value(kinds.get(name), raw) for name, raw in zip(rest[::2], rest[1::2])}
    return GmEdit(cid, changes)


def _addition(words: list[str]) -> GmEdit:
    """``add <new id> like <id> [field value ...]``: a new combatant's entry (checked as an encounter's)."""
    if not words or len(words[1:]) % 2:
        raise SessionError("write 'add <new id> like <id>' and then field and value pairs, e.g. "
                           "'add ghoul_3 like ghoul_1 zone B_rear'")
    spec: dict[str, Any] = {"id": words[0]}
    for name, raw in zip(words[1::2], words[2::2]):
        spec[name] = _entry_value(raw)
    return GmEdit(words[0], add=spec)


def _entry_value(raw: str) -> Any:
    """A typed word as an encounter's entry holds it: ``5,3`` a cell, ``12`` a number, else the word."""
    parts = raw.split(",")
    if len(parts) > 1 and all(p.lstrip("-").isdecimal() for p in parts):
        return [int(p) for p in parts]
    return int(raw) if raw.lstrip("-").isdecimal() else raw


def _value(kind: str | None, raw: str) -> Any:
    """A typed word as the field's kind reads it (an unknown field keeps the word: the rules name it)."""
    if kind == "bool":
        if raw.lower() in TRUE | FALSE:
            return raw.lower() in TRUE
        return raw
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            return raw
    return raw


def edit_prompt(session: Session, console: Console, ask: Callable[[str], str]) -> bool:
    """Ask for one edit until it is applied (True) or the GM goes back with Enter (False)."""
    rows = editable(session.combat)
    for row in rows:
        console.print(Text(field_line(row), style="" if row["fields"] else "dim"), soft_wrap=True)
    console.print(Text(HELP, style="dim"), soft_wrap=True)
    while True:
        line = ask("edit> ")
        if not line:
            return False
        if line == "?":
            console.print(HELP, soft_wrap=True)
            continue
        try:
            edit = parse(line, rows)
            if isinstance(edit, str):
                console.print(Text(field_line(next(r for r in rows if r["id"] == edit))), soft_wrap=True)
                continue
            session.edit(edit)
            return True
        except (TrpgArenaError, ValueError) as e:
            where = getattr(e, "where", None)
            console.print(Text(f"refused: {where + ': ' if where else ''}{e}", style="red"), soft_wrap=True)
