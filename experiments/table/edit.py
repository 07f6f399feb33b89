"""The GM's edit prompt at the terminal (``e``): set a combatant's values, move it, take it out, add one.

One line per edit, words the GM would say: ``ghoul_1 hp 12``, ``kaede wounds_light 1 kiai 3``,
``ada pos 4,5``, ``count bind on``, ``ghoul_2 remove``, ``add ghoul_3 like ghoul_1 zone B_rear``; a
combatant's id alone lists its fields and what the rules allow. The edit goes to `Session.edit` like
the API's and MCP's: a value the rules refuse is printed in one line and the prompt asks again; Enter
alone goes back without editing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.text import Text

from trpg_arena.rules import TrpgArenaError
from trpg_arena.rules.core.edits import EditError
from trpg_arena.table.edits import GmEdit, editable, place_key
from trpg_arena.table.session import Session, SessionError

TRUE, FALSE = {"on", "yes", "true", "y", "1"}, {"off", "no", "false", "n", "0"}
NUMBER = re.compile(r"-?[0-9]+")  # ASCII digits only: int() would also read '1_0' and full-width digits
NOT_YET = {"absent", "reserve"}  # moonlit's summons and arrivals, reincarnator's reinforcements: still to come


def help_line(rows: list[dict[str, Any]], place: str = "position") -> str:
    """How to write an edit, its examples taken from this combat's combatants and fields.

    `place` is the entry's place field (see `_place`); the remove example is one the rows say can be taken out now
    (never the combatant deciding: its row's `can_remove` is false).
    """
    first = next((r for r in rows if r["fields"]), None)
    examples = [f"'{_example(first, f)}'" for f in _sample_fields(first, place)] if first else []
    out = "edit: '<id> <field> <value> ...'" + (f" (e.g. {', '.join(examples)})" if examples else "")
    last = _removable(rows, place)
    out += ", '<id> remove' takes it out" + (f" (e.g. '{last['id']} remove')" if last else "")
    add = _add_example(rows, place)
    out += ", 'add <new id> like <id> [<field> <value> ...]' adds one" + (f" (e.g. '{add}')" if add else "")
    return out + ", '<id>' lists its fields, Enter goes back"


def _removable(rows: list[dict[str, Any]], place: str) -> dict[str, Any] | None:
    """The last combatant that can be taken out now (an NPC, in the roster's order), standing on its own if one does.

    One standing on its own has a place to copy for the add example (one in a vehicle has none).
    """
    able = [r for r in rows if r["can_remove"]]
    standing = [r for r in able if _place(r, place) is not None]
    found = standing or able
    return found[-1] if found else None


def _place(row: dict[str, Any], place: str) -> dict[str, Any] | None:
    """`row`'s field that says where it stands: a ``place`` (a cell, a hex), or a choice named as the entry's (zone)."""
    return next((f for f in row["fields"] if f["kind"] == "place" or f["name"] == place), None)


def _add_example(rows: list[dict[str, Any]], place: str) -> str | None:
    """``add ghoul_3 like ghoul_2 zone B_rear``: a copy of a combatant of this combat, in its zone or on a free cell."""
    like = _removable(rows, place)
    if like is None:
        return None
    field = _place(like, place)
    if field is None:
        return f"add {_new_id(like['id'], rows)} like {like['id']}"
    # a zone holds many, a cell or a hex one
    where = _other(field) if field["kind"] == "place" else _own_zone(like, field)
    return f"add {_new_id(like['id'], rows)} like {like['id']}" + (f" {field['name']} {where}" if where else "")


def _own_zone(row: dict[str, Any], field: dict[str, Any]) -> str:
    """A zone `row`'s side may start in: its own (``B_front``) if it stands in one, else the first of them.

    A newcomer starts in its side's zones (moonlit's ``B_front``, ``B_rear``), wherever its original has gone.
    """
    own = [z for z in field.get("choices", ()) if z.startswith(f"{row['side']}_")]
    value = _shown(field["value"])
    return value if value in own or not own else own[0]


def _sample_fields(row: dict[str, Any], place: str) -> list[dict[str, Any]]:
    """A number, a switch and the place of `row`, those it has: one example of each kind."""
    found = [next((f for f in row["fields"] if f["kind"] == kind), None) for kind in ("int", "bool")]
    return [f for f in (*found, _place(row, place)) if f is not None]


def _example(row: dict[str, Any], f: dict[str, Any]) -> str:
    """``kaede kiai 3``: `row`'s field `f` set to a value the rules allow that differs from its own."""
    value = f["value"]
    if f["kind"] == "int":
        shown = str(value - 1 if f["low"] is None or value > f["low"] else value + 1)
    elif f["kind"] == "bool":
        shown = "off" if value else "on"
    else:
        shown = _other(f) or _shown(value)
    return f"{row['id']} {f['name']} {shown}"


def _other(f: dict[str, Any]) -> str | None:
    """A choice of `f` other than its value now (a free cell, another zone), if any."""
    return next((c for c in f.get("choices", ()) if c != _shown(f["value"])), None)


def _new_id(cid: str, rows: list[dict[str, Any]]) -> str:
    """An id nobody has, after `cid`'s pattern: ``ghoul_3`` beside ghoul_1 and ghoul_2, ``brute_2``."""
    stem = re.sub(r"_\d+$", "", cid)
    taken = {r["id"] for r in rows}
    return next(f"{stem}_{n}" for n in range(2, len(rows) + 3) if f"{stem}_{n}" not in taken)


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value))
    return "yes" if value is True else "no" if value is False else str(value)


def field_line(row: dict[str, Any]) -> str:
    """A combatant's editable fields in one line: ``ghoul_1 (B, ok): hp 26 (0-26) · bind no · zone B_front``."""
    parts = []
    for f in row["fields"]:
        bounds = f" ({f['low']}-{f['high']})" if f["kind"] == "int" else ""
        parts.append(f"{f['name']} {_shown(f['value'])}{bounds}")
    if parts:
        out = " · ".join(parts)
    elif row["status"] in NOT_YET:  # it can still be kept out: `remove` works on it
        out = f"nothing to edit: not in the fight yet ('{row['id']} remove' keeps it out)"
    else:
        out = "nothing to edit (out of the fight)"
    return f"{row['id']} ({row['side']}, {row['status']}): {out}"


def parse(line: str, rows: list[dict[str, Any]], place: str = "position") -> GmEdit | str:
    """The edit a typed line names, or the id whose fields to list (a combatant's id alone).

    `place` is the field of an encounter's entry that says where a combatant stands (`table.edits.place_key`).
    """
    words = line.split()
    if words[0] == "add":
        return _addition(words[1:], rows, place)
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
        raise SessionError(f"'{rest[-1]}' has no value: write field and value in pairs" + (
            f", e.g. '{_example(row, row['fields'][0])}'" if row["fields"] else ""))
    pairs = _pairs(rest, "changes")
    fields = {f["name"]: f for f in row["fields"]}
    return GmEdit(cid, {name: _value(fields.get(name), name, raw) for name, raw in pairs})


def _pairs(words: list[str], where: str) -> list[tuple[str, str]]:
    """Field and value pairs, each field once: a second value for one would silently win over the first."""
    pairs = list(zip(words[::2], words[1::2]))
    seen: set[str] = set()
    for name, _ in pairs:
        if name in seen:
            raise EditError(f"{name} is given twice: give each field once", where=f"{where}.{name}")
        seen.add(name)
    return pairs


def _addition(words: list[str], rows: list[dict[str, Any]], place: str) -> GmEdit:
    """``add <new id> like <id> [field value ...]``: a new combatant's entry (checked as an encounter's)."""
    if not words or len(words[1:]) % 2:
        example = _add_example(rows, place)
        raise SessionError("write 'add <new id> like <id>' and then field and value pairs" + (
            f", e.g. '{example}'" if example else ""))
    spec: dict[str, Any] = {"id": words[0]}
    for name, raw in _pairs(words[1:], "add"):
        spec[name] = _entry_value(raw)
    return GmEdit(words[0], add=spec)


def _entry_value(raw: str) -> Any:
    """A typed word as an encounter's entry holds it: ``5,3`` a cell, ``12`` a number, else the word."""
    parts = raw.split(",")
    if len(parts) > 1 and all(NUMBER.fullmatch(p) for p in parts):
        return [int(p) for p in parts]
    return int(raw) if NUMBER.fullmatch(raw) else raw


def _value(field: dict[str, Any] | None, name: str, raw: str) -> Any:
    """A typed word as the field's kind reads it (an unknown field keeps the word: the rules name it)."""
    if field is not None and field["kind"] == "bool":
        if raw.lower() not in TRUE | FALSE:  # the rules would say 'true or false': the words typed here are these
            raise EditError(f"{field['label']} takes on or off, got '{raw}'", where=f"changes.{name}")
        return raw.lower() in TRUE
    if field is not None and field["kind"] == "int" and NUMBER.fullmatch(raw):
        return int(raw)
    return raw  # the rules refuse it, saying what the field takes


def edit_prompt(session: Session, console: Console, ask: Callable[[str], str]) -> bool:
    """Ask for one edit until it is applied (True) or the GM goes back with Enter (False)."""
    rows = editable(session.combat)
    for row in rows:
        console.print(Text(field_line(row), style="" if row["fields"] else "dim"))
    place = place_key(session.combat)
    console.print(Text(help_line(rows, place), style="dim"))
    while True:
        line = ask("edit> ")
        if not line:
            return False
        if line == "?":
            console.print(Text(help_line(rows, place)))
            continue
        try:
            edit = parse(line, rows, place)
            if isinstance(edit, str):
                console.print(Text(field_line(next(r for r in rows if r["id"] == edit))))
                continue
            session.edit(edit)
            return True
        except (TrpgArenaError, ValueError) as e:
            where = getattr(e, "where", None)
            console.print(Text(f"refused: {where + ': ' if where else ''}{e}", style="red"))
