"""A GM's edit mid-fight as a session decision: `GmEdit`, read from what callers send, applied by the rules.

Every surface (the HTTP API, the terminal table, MCP) builds a `GmEdit` and hands it to `Session.edit`,
which applies it to the combat (`apply_edit`: the rule system's editor, see `rules.core.edits`), logs
it as the GM's decision (``GM: ghoul HP 26 -> 12``), stores it like any other decision, and replays it
on undo and resume (`replay_records`). A value the rules do not allow is an `EditError` naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.edits import EditError, add_combatant, can_remove, copyable, edit_combatant, fields_of

if TYPE_CHECKING:
    from trpg_arena.rules import Combat, Event

GM = "GM"  # the decider named in a GM edit's record and statistics


@dataclass(frozen=True)
class GmEdit:
    """Set some of a combatant's fields (`changes`: field name -> value), take it out (`remove`), or add one.

    `add` is a new combatant's entry, as an encounter lists it (``like: <id>`` copies an existing
    one's, its own fields winning); `combatant` is then its id.
    """

    combatant: str
    changes: Mapping[str, Any] = field(default_factory=dict)
    remove: bool = False
    add: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form (what a session's record keeps)."""
        out = {"combatant": self.combatant, "changes": {k: _plain(v) for k, v in self.changes.items()},
               "remove": self.remove}
        if self.add is not None:
            out["add"] = dict(self.add)
        return out

    @classmethod
    def from_json(cls, data: Any) -> GmEdit:
        """An edit from its JSON form; `EditError` naming the field for anything else."""
        if not isinstance(data, Mapping):
            raise EditError(f"an edit is an object with combatant and changes, got {type(data).__name__}",
                            where="edit")
        unknown = sorted(set(data) - {"combatant", "changes", "remove", "add"})
        if unknown:
            raise EditError(f"unknown field '{unknown[0]}' in an edit (combatant, changes, remove, add)",
                            where=unknown[0])
        add = data.get("add")
        if add is not None:
            if not isinstance(add, Mapping) or not isinstance(add.get("id"), str) or not add.get("id"):
                raise EditError("add must be a combatant's entry with its id", where="add")
            return cls(str(add["id"]), {}, False, dict(add))
        cid, changes, remove = data.get("combatant"), data.get("changes") or {}, data.get("remove", False)
        if not isinstance(cid, str) or not cid:
            raise EditError(f"combatant must be a combatant's id, got {cid!r}", where="combatant")
        if not isinstance(changes, Mapping) or not all(isinstance(k, str) for k in changes):
            raise EditError("changes must map field names to values", where="changes")
        if not isinstance(remove, bool):
            raise EditError(f"remove must be true or false, got {remove!r}", where="remove")
        return cls(cid, dict(changes), remove)


def apply_edit(combat: Combat, edit: GmEdit) -> list[Event]:
    """Apply `edit` to `combat` all or nothing (the live dice untouched); returns its events."""
    if edit.add is not None:
        return add_combatant(combat, entry_of(combat, edit.add))
    return edit_combatant(combat, edit.combatant, edit.changes, remove=edit.remove)


def entry_of(combat: Combat, add: Mapping[str, Any]) -> Mapping[str, Any]:
    """A new combatant's entry as an encounter writes it: its place may also go by the edit fields' name.

    The fields a GM edits call a combatant's place ``hex`` (kiai), ``cell`` (reincarnator) or ``pos``
    (investigator), where an encounter's entry says ``position``: ``add goblin_c like goblin_a hex 5,5``
    means what the listing above it says. Both at once is refused, naming the field. A square may be written
    ``"5,5"`` as the edit fields write it, or ``[5, 5]`` as an encounter does.
    """
    key = place_key(combat)
    named = sorted(n for n in place_fields(combat) if n != key and n in add)
    if named and (key in add or len(named) > 1):
        raise EditError(f"the new combatant's place is given twice ({' and '.join([key, *named])}): give one",
                        where=f"add.{named[0]}")
    entry = {(key if named and name == named[0] else name): value for name, value in add.items()}
    place = entry.get(key)
    if isinstance(place, str) and CELL.fullmatch(place):  # "5,5", as the edit fields write a square
        entry[key] = [int(n) for n in place.split(",")]
    return entry


CELL = re.compile(r"-?[0-9]+,-?[0-9]+")  # a square written "x,y" (ASCII digits only)


def place_fields(combat: Combat) -> set[str]:
    """The names the edit fields give a combatant's place in this combat (``hex``, ``cell``, ``zone``...)."""
    return {f.name for v in combat.combatants for f in fields_of(combat, v.id) if f.kind == "place"}


def editable(combat: Combat) -> list[dict[str, Any]]:
    """Every combatant with the fields a GM may edit now (JSON-safe): what an edit dialog shows."""
    copies = copyable(combat)
    return [{"id": v.id, "name": v.name, "side": v.side, "status": v.status, "can_remove": can_remove(combat, v.id),
             "can_copy": v.id in copies, "fields": [f.to_json() for f in fields_of(combat, v.id)]}
            for v in combat.combatants]


def place_key(combat: Combat) -> str:
    """The field of a combatant's entry that says where it stands (``position``, moonlit's ``zone``)."""
    editor = getattr(combat.system, "editor", None)
    return str(getattr(editor, "place_key", "position"))


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value
