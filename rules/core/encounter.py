"""Encounters: the setup of a combat, loaded from YAML/JSON/dict and validated with pydantic.

Each rule system declares its own encounter model (a subclass of `EncounterBase`) with typed
combatants, map and options; `load_encounter` picks it from the ``ruleset`` field and turns every
validation failure into one `EncounterError` naming the file, the field path and what was expected.

Who plays whom: an optional ``controllers`` section maps a side or a combatant id to seat text
(``human``, an agent spec such as ``mcts:hard``, ``review:scripted``, each optionally ``+dice``); a
session reads it as its default seats, and the command line overrides it.

NPC temperaments: a combatant's entry may carry a ``tactics:`` block (aggression, morale, focus,
protect; see `core.temperaments`). It is kept as the encounter's ``tactics`` map (combatant id -> block),
which may also be written at the top level; agents read it, the rules never do.

Starting mid-combat: an encounter may carry a ``start`` section (its shape is the rule system's
``StartState`` model) that fixes round, phase, turn order, positions and per-combatant state, so
acceptance scenarios and GMs can begin from any situation instead of playing up to it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from types import UnionType
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from trpg_arena.rules.core.errors import EncounterError
from trpg_arena.rules.core.temperaments import Tactics, check_names
from trpg_arena.rules.core.values import remember

if TYPE_CHECKING:
    from trpg_arena.rules.core.system import RuleSystem

# Bounds of one encounter: a table's fight is a few to a few dozen combatants; thousands would make every
# decision slow for everyone on a server (legal actions, views and agents grow with the roster).
MAX_PER_SIDE = 64
MAX_COMBATANTS = 128
# A rule system's id, its folder's name: what a built-in name's first part, a Gymnasium id and a module path all take
SYSTEM_ID = r"[a-z][a-z0-9_]*"
SYSTEM_ID_FORM = "lowercase letters, digits and underscores, starting with a letter"
BUILTIN = re.compile(rf"^({SYSTEM_ID})/([A-Za-z0-9_\-]+)$")
SEAT_TEXT = re.compile(r"^[A-Za-z][\w.-]*(:[^\s:]+)*(\+dice)?$")  # syntax only: agents are checked by the session


def located(loc: tuple[str | int, ...], message: str, value: Any = None) -> ValidationError:
    """A validation error at an exact field path (a cross-field check names the field, not the model)."""
    err = PydanticCustomError("encounter", message.replace("{", "{{").replace("}", "}}"))
    return ValidationError.from_exception_data("encounter", [InitErrorDetails(type=err, loc=loc, input=value)])


def id_used_twice(ident: str, also: str) -> str:
    """The one wording of an id given twice, in an encounter or a combat: `also` says where it stands already."""
    return f"id '{ident}' is used twice (also {also})"


class StrictModel(BaseModel):
    """Base for encounter sections: unknown fields are errors, values are validated on load."""

    model_config = ConfigDict(extra="forbid", frozen=False, validate_default=True)

    @field_validator("*", mode="before")
    @classmethod
    def _no_truth_value_for_a_number(cls, value: Any, info: ValidationInfo) -> Any:
        """A number field refuses ``true``/``false``: pydantic's lax mode read ``max_hp: true`` as 1."""
        if isinstance(value, bool) and info.field_name is not None \
                and _numbers_only(cls.model_fields[info.field_name].annotation):
            raise ValueError("a number, not true or false")
        return value


def _numbers_only(annotation: Any) -> bool:
    """Whether a field's type takes numbers (int or float, perhaps or None) and not true/false."""
    kinds = set(get_args(annotation)) if get_origin(annotation) in (Union, UnionType) else {annotation}
    return bool(kinds & {int, float}) and bool not in kinds


class EncounterBase(StrictModel):
    """Fields every encounter has; a rule system's model narrows their types and adds its own."""

    ruleset: str
    encounter: str = "unnamed"
    description: str = ""
    options: Any = None
    map: Any = None
    combatants: list[Any]
    start: Any = None
    controllers: dict[str, str] | None = None
    tactics: dict[str, Tactics] | None = None
    _source: str = PrivateAttr(default="<dict>")
    _compiled: Any = PrivateAttr(default=None)  # written by `core.compiled` only: this content's tables

    @model_validator(mode="before")
    @classmethod
    def _gather_tactics(cls, data: Any) -> Any:
        """Move each combatant's ``tactics:`` block into the encounter's ``tactics`` map (errors stay located).

        The combatants' own models know nothing of temperaments; a block is validated here, where its
        error can name ``combatants[2] (id 'cultist').tactics.morale``.
        """
        if not isinstance(data, dict) or not isinstance(data.get("combatants"), list):
            return data
        if not any(isinstance(c, dict) and "tactics" in c for c in data["combatants"]):
            return data
        gathered: dict[str, Any] = dict(data.get("tactics") or {}) if isinstance(data.get("tactics"), dict) else {}
        roster: list[Any] = []
        for i, entry in enumerate(data["combatants"]):
            if not (isinstance(entry, dict) and "tactics" in entry):
                roster.append(entry)
                continue
            block = entry["tactics"]
            try:
                tactics = Tactics.model_validate(block if block is not None else {})
            except ValidationError as e:
                first = e.errors(include_url=False)[0]
                msg = first["msg"].removeprefix("Value error, ")
                raise located(("combatants", i, "tactics", *first["loc"]), msg, first.get("input")) from None
            cid = entry.get("id")
            if not isinstance(cid, str):
                raise located(("combatants", i, "tactics"), "a combatant with tactics needs an 'id'", cid)
            if cid in gathered:
                raise located(("combatants", i, "tactics"), f"'{cid}' has tactics both here and in the "
                               "encounter's 'tactics' map: keep one", block)
            gathered[cid] = tactics
            roster.append({k: v for k, v in entry.items() if k != "tactics"})
        return {**data, "combatants": roster, "tactics": gathered}

    @field_validator("options", mode="before")
    @classmethod
    def _null_options_are_defaults(cls, options: Any) -> Any:
        """``options:`` written with nothing after it (YAML's null) means every option at its default."""
        return {} if options is None else options

    @field_validator("combatants", mode="before")
    @classmethod
    def _not_too_many(cls, roster: Any) -> Any:
        """At most `MAX_PER_SIDE` combatants a side and `MAX_COMBATANTS` in all (checked before each is read)."""
        if not isinstance(roster, list):
            return roster
        if len(roster) > MAX_COMBATANTS:
            raise ValueError(f"{len(roster)} combatants: an encounter has at most {MAX_COMBATANTS}")
        per_side = Counter(str(c.get("side")) for c in roster if isinstance(c, dict))
        for side, count in per_side.items():
            if count > MAX_PER_SIDE:
                raise ValueError(f"{count} combatants on side '{side}': a side has at most {MAX_PER_SIDE}")
        return roster

    def named_entries(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Every entry that carries a combatant's id, with its field path: the roster here.

        A system whose encounter names more entries by id alike (reinforcements, vehicles) lists them too,
        so that `_unique_ids` checks them all at once.
        """
        return [(("combatants", i), c.id) for i, c in enumerate(self.combatants)]

    @model_validator(mode="after")
    def _unique_ids(self) -> EncounterBase:
        """Every named entry has its own id (the rules, the seats and the log all name combatants by id)."""
        first: dict[str, tuple[str | int, ...]] = {}
        for loc, ident in self.named_entries():
            if ident in first:
                raise located((*loc, "id"), id_used_twice(ident, field_path(first[ident])), ident)
            first[ident] = loc
        return self

    @model_validator(mode="after")
    def _two_sides(self) -> EncounterBase:
        """A fight needs someone to fight: at least two sides (a one-sided roster would end before round 1)."""
        sides = self.sides()
        if len(sides) < 2:
            found = f"every combatant is on side '{sides[0]}'" if sides else "no combatants"
            raise located(("combatants",), f"{found}: an encounter needs at least two sides", sides)
        return self

    @model_validator(mode="after")
    def _controllers_name_seats(self) -> EncounterBase:
        """Each controller key names a side or a roster id, and its seat text is one word (``review:x+dice``)."""
        known = {c.side for c in self.combatants} | {c.id for c in self.combatants}
        for key, seat in (self.controllers or {}).items():
            if key not in known:
                raise located(("controllers", key), f"'{key}' names no side or combatant (known: "
                               f"{', '.join(sorted(known))})", key)
            if not SEAT_TEXT.match(seat):
                raise located(("controllers", key), "a seat is 'human', an agent spec such as 'mcts:hard' or "
                               "'review:<agent>', optionally ending in '+dice'", seat)
        return self

    @model_validator(mode="after")
    def _tactics_name_combatants(self) -> EncounterBase:
        """Each temperament belongs to a combatant; its focus names an enemy and its protect an ally."""
        if not self.tactics:
            return self
        sides = {c.id: c.side for c in self.combatants}
        problem = check_names(self.tactics, sides)
        if problem is not None:
            loc, message, value = problem
            index = {c.id: i for i, c in enumerate(self.combatants)}
            cid = str(loc[0])
            where: tuple[str | int, ...] = (("combatants", index[cid], "tactics", *loc[1:]) if cid in index
                                            else ("tactics", *loc))
            raise located(where, message, value)
        return self

    @property
    def source(self) -> str:
        """Where this encounter was read from (a path, a built-in name or ``<dict>``)."""
        return self._source

    @property
    def label(self) -> str:
        """The name people type for it: a built-in's file name, else its ``encounter:``.

        A built-in is named by its file (``moonlit/skirmish``, which ``--resume`` and ``autopilot`` accept)
        even where its ``encounter:`` reads ``moonlit_alley``.
        """
        rid, sep, name = self._source.partition("/")
        if sep and rid == self.ruleset and name.replace("_", "").replace("-", "").isalnum():
            return name
        return self.encounter

    def sides(self) -> list[str]:
        """Side names in order of first appearance in the roster."""
        return list(dict.fromkeys(c.side for c in self.combatants))

    def with_options(self, **changes: Any) -> EncounterBase:
        """A copy with some option flags changed (validated again)."""
        data = self.model_dump(mode="json")
        data["options"] = {**(data.get("options") or {}), **changes}
        return load_encounter(data, source=self._source)


def field_path(loc: tuple[Any, ...]) -> str:
    """A field path as messages write it: ``("combatants", 2, "id")`` is ``combatants[2].id``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "<root>"


def _from_validation(err: ValidationError, source: str, data: Any) -> EncounterError:
    first = err.errors(include_url=False)[0]
    loc = tuple(p for p in first["loc"]
                if not (isinstance(p, str) and (p.startswith("function-") or p in {"list", "dict"})))
    path = field_path(loc)
    # Name combatants by id where possible: "combatants[2] (id 'ghoul_1').skills[0]".
    if len(loc) >= 2 and loc[0] == "combatants" and isinstance(loc[1], int):
        try:
            cid = data["combatants"][loc[1]]["id"]
            path = path.replace(f"combatants[{loc[1]}]", f"combatants[{loc[1]}] (id '{cid}')", 1)
        except (KeyError, IndexError, TypeError):
            pass
    msg = first["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
    more = err.error_count() - 1
    if more:
        msg += f" (and {more} more problem{'s' if more > 1 else ''})"
    actual = first.get("input")
    if isinstance(actual, (dict, list)) or first["type"] == "missing":
        actual = None
    return EncounterError(msg, source=source, path=path, actual=actual)


_CLOADER = getattr(yaml, "CSafeLoader", None)


def _load_yaml(text: str) -> Any:
    """Parse YAML with libyaml when installed (same data, several times faster).

    On a syntax error the pure-Python loader parses again, so error messages do not depend on libyaml.
    """
    if _CLOADER is not None:
        try:
            return yaml.load(text, Loader=_CLOADER)  # noqa: S506 - CSafeLoader is the safe loader
        except yaml.YAMLError:
            pass
    return yaml.safe_load(text)


def read_encounter_file(path: Path) -> Any:
    """Parse a YAML or JSON file; syntax errors become `EncounterError` with the line."""
    if path.is_dir():  # "" is the working folder ("."): the name was left empty
        raise EncounterError("a folder, not an encounter file (name a YAML or JSON file, or a built-in such as "
                             "'moonlit/duel')", source=str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise EncounterError(f"cannot read the file: {e.strerror}", source=str(path)) from None
    except UnicodeDecodeError as e:
        raise EncounterError(f"not UTF-8 text (byte {e.start} is 0x{e.object[e.start]:02x}): is it an encounter "
                             "file?", source=str(path)) from None
    try:
        if path.suffix == ".json":
            return json.loads(text)
        return _load_yaml(text)
    except json.JSONDecodeError as e:
        raise EncounterError(f"broken JSON at line {e.lineno}, column {e.colno}: {e.msg}", source=str(path)) from None
    except RecursionError:  # the parsers recurse once per level of lists and mappings inside each other
        raise EncounterError("nested too deep to read (lists or mappings hundreds of levels inside each other)",
                             source=str(path)) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e)
        raise EncounterError(f"broken YAML{where}: {problem}", source=str(path)) from None


def builtin_encounters(system: RuleSystem) -> list[str]:
    """Names of a rule system's built-in encounters (``"<ruleset>/<name>"``)."""
    folder = system.info.data_dir / "encounters"
    return sorted(f"{system.info.id}/{p.stem}" for p in folder.glob("*.yaml")) if folder.is_dir() else []


def load_encounter(src: str | Path | dict[str, Any] | EncounterBase, *, source: str | None = None) -> EncounterBase:
    """Load and validate an encounter from a path, a built-in name (``"moonlit/duel"``) or a dict.

    Raises `EncounterError` (never a deep traceback) naming the file, the field path and what was
    expected; an unknown ``ruleset`` raises `UnknownRulesetError`.
    """
    from trpg_arena.rules.core.system import RULESETS, unknown_ruleset

    if source is not None and not isinstance(source, str):  # a saved snapshot's or session's, edited by hand
        raise EncounterError("the encounter's source must be text", path="source",
                             expected="a path or a built-in name", actual=source)
    if isinstance(src, EncounterBase):
        return src
    if isinstance(src, (str, Path)):
        if not str(src).strip():
            raise EncounterError("no encounter named (an empty name): give a file or a built-in such as 'moonlit/duel'")
        path = Path(src)
        m = BUILTIN.match(str(src))
        if not path.exists() and m:
            rid, name = m.groups()
            if rid not in RULESETS:
                raise unknown_ruleset(rid, source=str(src))
            path = RULESETS[rid].info.data_dir / "encounters" / f"{name}.yaml"
            if not path.is_file():
                names = ", ".join(builtin_encounters(RULESETS[rid])) or "none"
                raise EncounterError(f"no built-in encounter '{src}' (built-in: {names})", source=str(src))
            source = source or str(src)
        elif not path.exists():
            raise EncounterError("no such file, and not a built-in name like 'moonlit/duel'", source=str(src))
        source = source or str(path)
        stat = path.stat()
        key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, source)
        hit = _FILE_CACHE.get(key)
        if hit is not None:
            return hit
        return remember(_FILE_CACHE, key, _validate(read_encounter_file(path), source), 256)
    return _validate(src, source or "<dict>")


# Loaded encounter files, keyed by path, modification time, size and source name. Encounters are
# read-only once loaded (`with_options` copies), so combats of the same file share one object (their
# compiled tables are shared by content anyway, see `core.compiled`).
_FILE_CACHE: dict[tuple[str, int, int, str], EncounterBase] = {}


def _validate(data: Any, source: str) -> EncounterBase:
    from trpg_arena.rules.core.system import RULESETS, unknown_ruleset

    if not isinstance(data, dict):
        raise EncounterError("an encounter must be a mapping of fields", source=source, path="<root>",
                             expected="a mapping with 'ruleset' and 'combatants'", actual=type(data).__name__)
    rid = data.get("ruleset")
    if rid is None:
        raise EncounterError("missing field", source=source, path="ruleset",
                             expected="one of " + ", ".join(sorted(RULESETS)))
    if not isinstance(rid, str) or rid not in RULESETS:
        raise unknown_ruleset(rid, source=source)
    model = RULESETS[rid].info.encounter
    try:
        enc = model.model_validate(data)
    except ValidationError as e:
        raise _from_validation(e, source, data) from None
    except EncounterError as e:  # a rule system's own cross-field check: every error names the file
        if e.source is not None:
            raise
        raise type(e)(e.message, source=source, path=e.path, expected=e.expected, actual=e.actual) from None
    enc._source = source
    return enc


def overlay(target: object, start: object, *same: str, **renamed: str) -> None:
    """Copy onto `target` each field an encounter's `start` section gives (a field left out reads None).

    `same` names fields called alike on both; `renamed` maps a target field to the start field it takes
    (``reflex="reflex_available"``). A field the section leaves out keeps the value `target` has.
    """
    for name in same:
        value = getattr(start, name)
        if value is not None:
            setattr(target, name, value)
    for name, field in renamed.items():
        value = getattr(start, field)
        if value is not None:
            setattr(target, name, value)
