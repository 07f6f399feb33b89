"""The GM's edits of a running combat: set a combatant's values, move it, take it out of the fight.

Every virtual table lets the GM correct the fight by hand (a forgotten potion, a house rule, a monster
that should have fled). A rule system says what may be edited through its `Editor` (`RuleSystem.editor`):
the fields of a combatant (its damage track, pools and conditions, its place) with the values the rules
allow, how each is written into the state, and what taking a combatant out means. `edit_combatant`
applies one edit all or nothing: every value is checked first (`EditError` names the field), the state
is changed on a copy-protected path and checked with the system's `check_state`; a failure at any point
leaves the combat exactly as it was. The dice are never touched: an edit does not consume or reseed them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.errors import SnapshotError, TrpgArenaError
from trpg_arena.rules.core.values import Event

if TYPE_CHECKING:
    from trpg_arena.rules.core.combat import Combat


class EditError(TrpgArenaError, ValueError):
    """A GM edit that the rules do not allow; `where` names the field (``hp``, ``combatant``...)."""

    def __init__(self, message: str, *, where: str) -> None:
        super().__init__(message)
        self.where = where


@dataclass(frozen=True)
class EditField:
    """One editable value of a combatant: its name, what it may hold, and its value now.

    ``int`` fields hold whole numbers from `low` to `high` (None: no upper bound); ``bool`` fields true
    or false; ``place`` fields a node of the battlefield (a cell as ``[x, y]``, a zone by name);
    ``choice`` fields one of `choices`. `label` is the word the log uses (``HP``, ``light wounds``).
    """

    name: str
    kind: str
    value: Any
    label: str = ""
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    help: str = ""

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form (what the API, the page and MCP show in an edit dialog)."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "label": self.label or self.name,
                               "value": _json_value(self.value)}
        if self.kind == "int":
            out["low"], out["high"] = self.low, self.high
        if self.choices:
            out["choices"] = list(self.choices)
        if self.help:
            out["help"] = self.help
        return out


class Editor:
    """A rule system's edit hook (see the module docstring); subclass per system, set as `RuleSystem.editor`."""

    removed_word = "is taken out (fled)"  # what taking a combatant out is called in this system's log line
    place_key = "position"  # the field of an encounter's combatant entry that says where it stands
    # the status words of a combatant that has yet to join the fight (moonlit's arrivals and summons, reincarnator's
    # reinforcements in reserve): taking one out cancels its arrival; any other combatant that cannot act is out
    arriving: frozenset[str] = frozenset({"absent", "reserve"})

    def fields(self, combat: Combat, cid: str) -> list[EditField]:
        """The editable fields of combatant `cid` now (its values and the bounds the rules set)."""
        raise NotImplementedError

    def write(self, combat: Combat, cid: str, name: str, value: Any) -> None:
        """Write one checked value into the state (may emit events of the rules' own, e.g. a fall)."""
        raise NotImplementedError

    def remove(self, combat: Combat, cid: str) -> None:
        """Take `cid` out of the fight for good (it counts as having left it)."""
        raise NotImplementedError

    def busy(self, combat: Combat) -> str | None:
        """Why nobody may be taken out now (an attack or another procedure in progress), or None."""
        return None

    def settle(self, combat: Combat) -> None:
        """After an edit of a running combat: end it if a side has nobody left (the system's own end check)."""

    def admit(self, combat: Combat, data: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
        """The encounter's data with combatant `spec` added as the system lets one join mid-fight.

        Default: appended to ``combatants``. A system with arrivals (moonlit) or reinforcements
        (reincarnator) brings it in that way, at the start of the next round.
        """
        data["combatants"] = [*data.get("combatants", []), spec]
        return data

    def join(self, combat: Combat, fresh: Any, cid: str) -> None:
        """Put `cid`'s entry of `fresh` (the new encounter's initial state) into the live state."""
        raise EditError(f"{combat.system.info.id} cannot add a combatant mid-fight", where="add")

    def takes_out(self, combat: Combat, cid: str, name: str, value: Any) -> bool:
        """Whether `value` in `name` puts `cid` out of the fight (refused mid-procedure, or for the decider)."""
        return False


def can_remove(combat: Combat, cid: str) -> bool:
    """Whether the GM may take `cid` out now (what `edit_combatant(..., remove=True)` would do, not refuse)."""
    return combat.over is False and _removal_refused(combat, _editor(combat), cid) is None


def _removal_refused(combat: Combat, editor: Editor, cid: str) -> str | None:
    """Why `cid` cannot be taken out now, or None.

    It must be in the fight, or yet to join it (its arrival is then cancelled); one already out (dead, fled,
    down) is not taken out again, nor the one deciding, nor anyone while an attack or a strike is being
    resolved (the editor's `busy`).
    """
    view = _known(combat, cid)
    if not view.able:
        return None if view.status in editor.arriving else (
            f"{cid} is already out of the fight ({view.status}): there is nobody to take out")
    if combat.decision is not None and combat.decision.actor == cid:
        return f"{cid} is deciding now: take it out once the decision is another's"
    busy = editor.busy(combat)
    return f"{cid} cannot be taken out now: {busy}; try again once it is over" if busy else None


def copyable(combat: Combat) -> set[str]:
    """The ids ``like:`` can copy to add a combatant: those the encounter describes (its roster, reinforcements).

    A summon has no entry to copy: it is made from its summoner's skill when called (MOON-15.7).
    """
    return {str(c.get("id")) for c in _entries(combat.encounter.model_dump(mode="json"))}


def fields_of(combat: Combat, cid: str) -> list[EditField]:
    """The editable fields of a combatant; `EditError` if the system has no editor or `cid` is nobody."""
    editor = _editor(combat)
    _known(combat, cid)
    return editor.fields(combat, cid)


def edit_combatant(combat: Combat, cid: str, changes: Mapping[str, Any] | None = None, *,
                   remove: bool = False) -> list[Event]:
    """Apply one GM edit to `combat` (set `changes`, or take `cid` out); returns its events.

    All or nothing: `EditError` naming the field (nothing changed) for a value the rules do not allow,
    an unknown field or combatant, an edit that would leave the open decision without its decider.
    """
    editor = _editor(combat)
    if combat.over:
        raise EditError(f"the combat is over ({combat.result}): undo to edit it", where="combatant")
    view = _known(combat, cid)
    if not remove and not changes:
        raise EditError("nothing to change: give at least one field", where="changes")
    refused = _removal_refused(combat, editor, cid) if remove else None
    if refused:
        raise EditError(refused, where="combatant")
    known = {f.name: f for f in editor.fields(combat, cid)}
    checked: list[tuple[EditField, Any]] = []
    for name, raw in (changes or {}).items():
        spec = known.get(name)
        if spec is None:
            raise EditError(f"{cid} has no field '{name}' to edit (fields: {', '.join(known) or 'none'})",
                            where=f"changes.{name}")
        checked.append((spec, _check(combat, spec, raw, f"changes.{name}")))
    if not remove and all(spec.value == value for spec, value in checked):
        raise EditError(f"nothing changes: {cid} already has those values", where="changes")
    taking_out = [f"changes.{spec.name}" for spec, value in checked if editor.takes_out(combat, cid, spec.name, value)]
    if taking_out and view.able:  # a value that takes it out (HP 0) is refused where taking it out would be
        refused = _removal_refused(combat, editor, cid)
        if refused:
            raise EditError(refused, where=taking_out[0])
    before = {spec.name: spec.value for spec, _ in checked}
    return combat.outside_change(lambda: _write(combat, editor, cid, checked, remove),
                                 lambda: _text(cid, view.name, before, checked, remove, editor),
                                 {"combatant": cid, "removed": remove,
                                  "changes": {s.name: _json_value(v) for s, v in checked},
                                  "before": {k: _json_value(v) for k, v in before.items()}})


def add_combatant(combat: Combat, spec: Mapping[str, Any]) -> list[Event]:
    """Add a combatant mid-fight from a stat block (`spec`, an encounter's combatant entry); returns its events.

    ``like: <id>`` starts from an existing combatant's entry (its own fields win), so a second ghoul
    is ``{"id": "ghoul_3", "like": "ghoul_1"}``: any combatant the encounter describes, a reinforcement in
    reserve or arrived included (a summon has no entry: refused, see `copyable`). The entry is validated as
    part of the encounter (an `EditError` where ``add``, with the encounter's located message); it joins as
    the system lets one join (see `Editor.admit`), its turn from the next round on. All or nothing, no dice.
    """
    from trpg_arena.rules.core.combat import Combat as CombatType
    from trpg_arena.rules.core.compiled import compiled
    from trpg_arena.rules.core.encounter import id_used_twice, load_encounter
    from trpg_arena.rules.core.errors import EncounterError

    editor = _editor(combat)
    if combat.over:
        raise EditError(f"the combat is over ({combat.result}): undo to edit it", where="add")
    entry = dict(spec)
    cid = entry.get("id")
    if not isinstance(cid, str) or not cid:
        raise EditError(f"the new combatant needs an id, got {cid!r}", where="add.id")
    if cid in {v.id for v in combat.combatants} or cid in combat.system.possible_ids(combat.encounter):
        raise EditError(id_used_twice(cid, "a combatant of this combat"), where="add.id")
    data = combat.encounter.model_dump(mode="json")
    like = entry.pop("like", None)
    if like is not None:
        base = next((c for c in _entries(data) if c.get("id") == like), None)
        if base is None:
            raise EditError(_no_copy(combat, data, like), where="add.like")
        entry = {**base, **entry}
    data = editor.admit(combat, data, entry)
    try:
        enc = load_encounter(data, source=combat.encounter.source)
    except EncounterError as e:
        raise EditError(f"the new combatant does not fit the encounter: {e}", where="add") from None
    built = compiled(enc, combat.system)
    shim = CombatType.__new__(CombatType)  # the new encounter's initial state, built without a combat's dice
    shim.encounter, shim.system, shim.battlefield, shim.tables = enc, combat.system, built.battlefield, built.tables
    shim.scratch, shim.log, shim._seq0 = None, [], 0
    fresh = combat.system.new_state(shim)
    side = next((c.get("side") for c in _entries(data) if c.get("id") == cid), "?")

    def change() -> None:
        combat.encounter, combat.battlefield, combat.tables = enc, built.battlefield, built.tables
        editor.join(combat, fresh, cid)
        try:
            combat.system.check_state(combat.state, combat)
        except SnapshotError as e:
            raise EditError(f"the rules do not allow that: {e}", where="add") from None

    text = f"GM: adds {cid} ({side})" + (f" like {like}" if like else "") + "; it takes its turns from the next round"
    return combat.outside_change(change, lambda: text, {"combatant": cid, "added": _json_value(entry)})


def _no_copy(combat: Combat, data: dict[str, Any], like: Any) -> str:
    """Why ``like`` names nothing to copy, and what can be copied."""
    copies = ", ".join(str(c.get("id")) for c in _entries(data))
    if isinstance(like, str) and like in combat.system.possible_ids(combat.encounter):
        return (f"like: {like} is a summon, made from its summoner's skill when called, with no entry of the "
                f"encounter to copy: copy one the encounter describes ({copies})")
    return f"like: no combatant {like!r} in this encounter to copy (one of: {copies})"


def _entries(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every combatant entry of an encounter's data (reinforcements' too)."""
    out = list(data.get("combatants", []))
    for r in data.get("reinforcements", []) or []:
        out += list(r.get("combatants", []))
    return out


def _write(combat: Combat, editor: Editor, cid: str, checked: list[tuple[EditField, Any]], remove: bool) -> None:
    if remove:
        editor.remove(combat, cid)
    for spec, value in checked:
        editor.write(combat, cid, spec.name, value)
    try:
        combat.system.check_state(combat.state, combat)
    except SnapshotError as e:
        raise EditError(f"the rules do not allow that: {e}", where="changes") from None
    if combat.state.outcome is None:
        editor.settle(combat)


def _text(cid: str, name: str, before: dict[str, Any], checked: list[tuple[EditField, Any]], remove: bool,
          editor: Editor) -> str:
    """The log's line: ``GM: ghoul HP 26 -> 12``."""
    parts = [f"{spec.label or spec.name} {_shown(before[spec.name])} -> {_shown(value)}" for spec, value in checked]
    if remove:
        parts.insert(0, editor.removed_word)
    return f"GM: {cid} " + ", ".join(parts)


def _shown(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (tuple, list)):
        return ",".join(str(v) for v in value)
    return str(value)


def _as_sent(raw: Any) -> str:
    """A value as the request wrote it (JSON: ``true``, ``"x"``, ``1.5``), not as Python spells it."""
    try:
        return json.dumps(raw)
    except (TypeError, ValueError):
        return repr(raw)


def _check(combat: Combat, spec: EditField, raw: Any, where: str) -> Any:
    """`raw` as the field's value, or `EditError` naming `where` and what the rules allow."""
    label = spec.label or spec.name
    if spec.kind == "int":
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise EditError(f"{label} must be a whole number, got {_as_sent(raw)}", where=where)
        if (spec.low is not None and raw < spec.low) or (spec.high is not None and raw > spec.high):
            bound = f"at least {spec.low}" if spec.high is None else f"from {spec.low} to {spec.high}"
            raise EditError(f"{label} {raw} is not allowed here: {bound}{_help(spec)}", where=where)
        return raw
    if spec.kind == "bool":
        if not isinstance(raw, bool):
            raise EditError(f"{label} must be true or false, got {_as_sent(raw)}", where=where)
        return raw
    if spec.kind == "choice":
        if raw not in spec.choices:
            raise EditError(f"{label} must be one of {', '.join(spec.choices)}, got {_as_sent(raw)}", where=where)
        return raw
    return _place(combat, spec, raw, where)


def _help(spec: EditField) -> str:
    return f" ({spec.help})" if spec.help else ""


_COORDINATE = re.compile(r"-?[0-9]+")


def _place(combat: Combat, spec: EditField, raw: Any, where: str) -> Any:
    """A battlefield node: a zone's name, or a cell given as ``[x, y]`` / ``"x,y"``."""
    graph = combat.battlefield.graph
    node: Any = raw
    if isinstance(raw, str) and "," in raw:
        parts = raw.split(",")
        # ASCII digits only: int() would also read '1_0' as 10, ' 4' as 4 and full-width or other scripts' digits
        if not all(_COORDINATE.fullmatch(p) for p in parts):
            raise EditError(f"{spec.label or spec.name} {raw!r} is not a place (write x,y)", where=where)
        node = tuple(int(p) for p in parts)
    elif isinstance(raw, list):
        # whole numbers only: true or 1.0 would otherwise find the cell 1 stands for
        node = tuple(raw) if all(type(p) is int for p in raw) else raw
    try:
        present = node in graph
    except TypeError:
        present = False
    if not present or isinstance(node, bool):
        raise EditError(f"{spec.label or spec.name} {raw!r} is not a place on this battlefield{_help(spec)}",
                        where=where)
    if spec.choices and _shown(node) not in spec.choices:
        raise EditError(f"{spec.label or spec.name} {_shown(node)} is not free or not allowed{_help(spec)}",
                        where=where)
    return node


def _json_value(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _editor(combat: Combat) -> Editor:
    editor = getattr(combat.system, "editor", None)
    if editor is None:
        raise EditError(f"{combat.system.info.id} does not support GM edits (its RuleSystem sets no `editor`: "
                        "docs/writing-a-rule-system.md, 'GM edits', says how to add one)", where="ruleset")
    return editor


def _known(combat: Combat, cid: str) -> Any:
    if not isinstance(cid, str):
        raise EditError(f"combatant must be an id, got {cid!r}", where="combatant")
    view = next((v for v in combat.combatants if v.id == cid), None)
    if view is None:
        ids = ", ".join(v.id for v in combat.combatants)
        raise EditError(f"no combatant '{cid}' in this combat (combatants: {ids})", where="combatant")
    return view



def free_places(combat: Combat, cid: str) -> tuple[str, ...]:
    """The cells `cid` may be put on (``"x,y"``): on the board, not a wall, blocked or impassable, nobody else there.

    For the grid systems' ``place`` fields: a GM moves a combatant only where the rules could have it stand. A
    fallen combatant still on the map keeps its cell (passable, never an end: kiai's section 5, INV-11.9,
    reincarnator's bodies), so it counts as taken; one off the map (dead and removed, fled) has no node, and one yet
    to join (a reincarnator reinforcement in reserve) holds none: the rules' own movement may end on its cell.
    """
    bf = combat.battlefield
    arriving = _editor(combat).arriving
    taken = {v.node for v in combat.combatants if v.id != cid and v.node is not None and v.status not in arriving}
    return tuple(_shown(node) for node in bf.graph.nodes
                 if node not in taken and not any(bf.attr(node, flag) for flag in ("blocked", "impassable", "object"))
                 and bf.attr(node, "terrain") not in ("wall", "obstacle", "blocked"))
