"""Small frozen values shared by every rule system: `Action`, `Decision`, `DecisionKind`, `Event`, `Outcome`."""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

Node = Any  # a battlefield node: a zone name (str) or a cell (tuple of ints)
K = TypeVar("K")
V = TypeVar("V")


def remember(memo: dict[K, V], key: K, value: V, limit: int) -> V:
    """Keep `value` under `key` in `memo`, a dict of pure results emptied first once it holds `limit`; returns `value`.

    Every bounded cache in the rules keeps its results this way: a process that meets very many keys (encounters,
    boards, door states) loses only speed, never memory without bound. The memo stays a plain dict, so a hit is
    a plain dict lookup (a dict subclass's ``get`` measured some 30 ns slower).
    """
    if len(memo) >= limit:
        memo.clear()
    memo[key] = value
    return value


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, enum.Enum):
        return value.value
    return value


def _tupled(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tupled(v) for v in value)
    return value


_ACTION_JSON: dict[Any, tuple[Any, Any]] = {}  # Action -> JSON forms of its dest and option (actions are immutable)
_ACTION_FORM: dict[Any, dict[str, Any]] = {}  # Action -> its shared `json_form`


class Action(NamedTuple):
    """One choice at a decision point: ``(verb, target, dest, option)``, frozen and hashable.

    `target` is a combatant id (or a zone for zone attacks), `dest` a battlefield node, `option`
    whatever else the verb needs (a skill id, a number, a tuple of several choices). A named tuple,
    so hashing and comparing (legality checks, mask lookups) run at C speed.
    """

    verb: str
    target: str | None = None
    dest: Node = None
    option: Any = None

    def describe(self) -> str:
        """The sentence a GM reads, e.g. ``attack B1 with strike``."""
        parts = [self.verb]
        if self.option is not None:
            opt = self.option if not isinstance(self.option, tuple) else " ".join(map(str, self.option))
            parts.append(str(opt))
        if self.target is not None:
            parts.append(f"-> {self.target}")
        if self.dest is not None:
            dest = self.dest if not isinstance(self.dest, tuple) else ",".join(map(str, self.dest))
            parts.append(f"@ {dest}")
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form (tuples become lists); a fresh dict each call."""
        key = _ACTION_JSON.get(self)
        if key is None:
            key = remember(_ACTION_JSON, self, (_jsonable(self.dest), _jsonable(self.option)), 100_000)
        dest, option = key
        return {"verb": self.verb, "target": self.target, "dest": dest[:] if isinstance(dest, list) else dest,
                "option": option[:] if isinstance(option, list) else option}

    def json_form(self) -> dict[str, Any]:
        """`to_json`'s value, frozen, cached and shared: for event data (see `Event`)."""
        form = _ACTION_FORM.get(self)
        if form is None:
            form = remember(_ACTION_FORM, self, freeze(self.to_json()), 100_000)
        return form

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Action:
        """Inverse of `to_json`."""
        return cls(data["verb"], data.get("target"), _tupled(data.get("dest")), _tupled(data.get("option")))

    def __str__(self) -> str:
        return self.describe()


class PlainStrEnum(enum.StrEnum):
    """A string enum whose members read exactly as their strings: in str, format, JSON, hash and repr.

    Rule systems name their verbs and conditions with it (``Verb.MOVE``), so a misspelt name is a type
    error, while an `Action` built from a member compares, hashes, serialises and prints (`repr` too,
    which model fingerprints read) exactly as one built from the plain string, as read back from JSON.
    """

    def __repr__(self) -> str:
        return str.__repr__(self)


class DecisionKind(enum.StrEnum):
    """What kind of decision is open, in one vocabulary for every rule system.

    A UI tells a turn from a reaction with it without knowing the system; the system's own name
    of the decision point stays in `Decision.step`.
    """

    TURN = "turn"  # the decider acts in its own turn (or its slot of a phase)
    REACTION = "reaction"  # an answer to someone else's action: dodge, counter, opportunity attack, cover
    CHOICE = "choice"  # any other choice: deployment, a sub-choice of an action, an end-of-round option


@dataclass(frozen=True, slots=True)
class Decision:
    """The open decision point: who must choose, for which side, of what kind, and a prompt to show.

    Rule systems open it with their own `step` name (``"attack_declared"``, ``"D1"``) through `shared_decision`;
    `Combat.decision` fills in `kind` (from the system's `decision_kinds`) and `side`.
    """

    actor: str
    step: str
    prompt: str = ""
    kind: DecisionKind = DecisionKind.CHOICE
    side: str | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"actor": self.actor, "side": self.side, "kind": self.kind.value, "step": self.step,
                "prompt": self.prompt}


def shared_actions(typed: Callable[[str, Any], Any] | None = None,
                   limit: int = 200_000) -> Callable[..., Action]:
    """A rule system's ``act(verb, target=None, dest=None, option=None)``: the one shared `Action` of those fields.

    Its catalogue and every legal list are built from it, so they hand out the very same objects: the env's
    codec finds an action's index by object identity before hashing its fields, and a legal list allocates
    nothing per action. `typed(verb, option)` gives a new action's option its type (a wire tuple as the
    system's named tuple), once; the table is looked up by the fields as given, which equal the typed ones.
    Each system keeps its own table (its option types are its own); past `limit` actions (a process that
    loads very many encounters) it starts over, and only speed is lost.
    """
    table: dict[tuple[Any, ...], Action] = {}

    def act(verb: str, target: str | None = None, dest: Any = None, option: Any = None) -> Action:
        key = (verb, target, dest, option)
        a = table.get(key)
        if a is None:
            a = remember(table, key, Action(verb, target, dest, option if typed is None else typed(verb, option)),
                         limit)
        return a

    return act


_DECISIONS: dict[tuple[str, str, str], Decision] = {}  # see `shared_decision`


def shared_decision(actor: str, step: str, prompt: str = "") -> Decision:
    """The one `Decision` with these fields, for a rule system to open (decisions are frozen, so one serves all).

    States that reach the same decision then hold the same object, and `Combat.decision` reuses what it filled
    in for it by identity instead of building it again. Bounded: a process that meets very many combatants
    or prompts starts over (only speed is lost).
    """
    key = (actor, step, prompt)
    d = _DECISIONS.get(key)
    if d is None:
        d = remember(_DECISIONS, key, Decision(actor, step, prompt), 65536)
    return d


def _refuse(self: Any, *_args: Any, **_kwargs: Any) -> Any:
    raise TypeError(f"logged event data cannot change ({type(self).__name__})")


def _itself(self: Any, *_memo: Any) -> Any:
    return self  # a copy of what never changes is the thing itself


class FrozenList(list):
    """A list that refuses every change: event data. Compares, iterates and serialises as a plain list."""

    __slots__ = ()
    __copy__ = __deepcopy__ = _itself
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return FrozenList, (list(self),)


class FrozenDict(dict):
    """A dict that refuses every change: event data. Compares and serialises as a plain dict."""

    __slots__ = ()
    __copy__ = __deepcopy__ = _itself
    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return FrozenDict, (dict(self),)


_MUTABLE = frozenset((list, dict, set))  # exact types: the frozen ones are subclasses, and stay as they are


def freeze(value: Any) -> Any:
    """`value` with every list, dict and set in it replaced by a frozen copy (other values as they are).

    Event data is frozen on every `emit`, so the common cases stay at C speed: a container holding no
    list, dict or set is copied in one call. Tuples are values; one is searched for lists only where it
    sits in the data itself or in a list being frozen element by element.
    """
    t = type(value)
    if t is list:
        return FrozenList(value if _MUTABLE.isdisjoint(map(type, value)) else [freeze(v) for v in value])
    if t is dict:
        if _MUTABLE.isdisjoint(map(type, value.values())):
            return FrozenDict(value)
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if t is tuple:
        return value if _MUTABLE.isdisjoint(map(type, value)) else tuple(freeze(v) for v in value)
    if t is set:
        return frozenset(value)
    if t is FrozenList or t is FrozenDict or not isinstance(value, (list, dict, set)):
        return value
    return freeze(set(value) if isinstance(value, set) else dict(value) if isinstance(value, dict) else list(value))


_CONTAINERS = frozenset((list, dict, set, tuple))


def freeze_data(data: dict[str, Any]) -> FrozenDict:
    """Event data as an immutable record, whatever the rule system passed (it may go on changing its lists).

    `emit` runs several times per decision, so data of plain values (the common case) costs one look at each
    value's type (a plain loop: cheaper than a set of the types for the few values an event carries), and only
    container values are looked at further.
    """
    for value in data.values():
        if type(value) in _CONTAINERS:
            break
    else:
        return FrozenDict(data)
    for k, v in data.items():
        t = type(v)
        if t is tuple:  # a position or a pair: a value unless it holds a container
            if not _MUTABLE.isdisjoint(map(type, v)):
                data[k] = freeze(v)
        elif t in _MUTABLE:
            data[k] = freeze(v)
    return FrozenDict(data)


_NO_DATA: dict[str, Any] = FrozenDict()


class Event(NamedTuple):
    """One roll or state change: the log, the replay and the narration are made of these.

    A named tuple (frozen, cheap to build: a combat emits several per decision) whose `data` is frozen
    too (`freeze_data`): lists and dicts in it refuse changes, so a logged event never changes after
    the fact, whatever the rules do with the lists they passed.
    """

    seq: int
    round: int
    phase: str
    kind: str
    text: str
    actor: str | None = None
    rule: str | None = None
    data: dict[str, Any] = _NO_DATA

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form with a stable key order."""
        return {"seq": self.seq, "round": self.round, "phase": self.phase, "kind": self.kind,
                "actor": self.actor, "rule": self.rule, "text": self.text, "data": _jsonable(self.data)}

    def json_line(self) -> str:
        """One canonical JSON line (sorted keys, no spaces): what golden files compare byte for byte."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Event:
        """Inverse of `to_json`."""
        return cls(data["seq"], data["round"], data["phase"], data["kind"], data["text"], data.get("actor"),
                   data.get("rule"), freeze_data(dict(data.get("data") or {})))

    def __str__(self) -> str:
        return self.text


class Termination(enum.Enum):
    """Why a combat ended."""

    ELIMINATED = "eliminated"
    FLED = "fled"
    MUTUAL = "mutual"
    ROUND_CAP = "round_cap"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a combat: winning side (None for a draw) and the reason."""

    winner: str | None
    termination: Termination
    rounds: int

    @property
    def result(self) -> str:
        """The winning side's name, or ``"draw"``."""
        return self.winner if self.winner is not None else "draw"

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"winner": self.winner, "termination": self.termination.value, "rounds": self.rounds}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcome:
        """Inverse of `to_json`."""
        return cls(data["winner"], Termination(data["termination"]), data["rounds"])
