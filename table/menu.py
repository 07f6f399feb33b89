"""A person's choice of action in small steps: verb, then target, then option, then destination.

A decision can have hundreds of legal actions (a vehicle that may drive to any of 173 squares); a
flat list of them is unusable at a table. `Menu` groups the legal set by one part of the action at a
time and shows only the groups, each with its count and a GM sentence:

1. the verb (``attack``, ``move``...), then
2. the target (a combatant, or none), then
3. the option, one part at a time (a tuple's items; a ``+``-joined option's parts), then
4. the destination: on a grid with many squares, the row first and then the square.

A step whose group is the same for every action left is skipped, and once a few actions are left
(`FLAT_LIMIT`) they are listed as they are. Typed text narrows the actions left to those whose
sentence holds every word (``knock ghoul``, or a square as ``7,3``). Nothing here knows a rule
system or a screen: the terminal autopilot and the HTTP server show the same steps.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from trpg_arena.rules import Action, Combat, TrpgArenaError
from trpg_arena.rules.core.wording import counted

FLAT_LIMIT = 12  # this many actions left or fewer: list them one by one
ROW_SPLIT = 16  # more grid squares than this to choose from: the row first, then the square


class MenuError(TrpgArenaError, ValueError):
    """A menu entry that fits nothing on offer (an unknown key, a filter nothing matches)."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One line of a step: what to type, what it stands for, how many actions it leads to, a GM sentence.

    `action` and `index` (into the legal list) are set when the line is a single action: choosing it
    ends the menu.
    """

    key: str
    label: str
    count: int
    text: str
    action: Action | None = None
    index: int | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"key": self.key, "label": self.label, "count": self.count, "text": self.text,
                "action": self.action.to_json() if self.action is not None else None, "index": self.index}


@dataclass(frozen=True, slots=True)
class Step:
    """What a person chooses from now: the facet (``verb``, ``target``...), its lines and the path so far."""

    facet: str
    choices: tuple[Choice, ...]
    remaining: int  # legal actions still possible
    path: tuple[str, ...]  # labels chosen (and filters typed) so far

    @property
    def title(self) -> str:
        """A heading such as ``choose the target (3 choices, 48 actions)``."""
        what = "an action" if self.facet == "action" else f"the {self.facet}"
        return f"choose {what} ({counted(len(self.choices), 'choice')}, {counted(self.remaining, 'action')})"

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {"facet": self.facet, "title": self.title, "remaining": self.remaining, "path": list(self.path),
                "choices": [c.to_json() for c in self.choices]}


# --- the parts an action is grouped by -------------------------------------------------------------
Facet = tuple[str, Callable[[Action], Hashable], Callable[[Hashable], str]]


def option_parts(option: Any) -> tuple[Any, ...]:
    """An action's option as its parts (a tuple, a 'a+b' string, or one value)."""
    if option is None:
        return ()
    if isinstance(option, tuple):
        return option
    if isinstance(option, str) and "+" in option:
        return tuple(option.split("+"))
    return (option,)


def _node_label(node: Any) -> str:
    return ",".join(map(str, node)) if isinstance(node, tuple) else str(node)


def _is_cell(node: Any) -> bool:
    return isinstance(node, tuple) and len(node) == 2 and all(isinstance(v, int) for v in node)


def _part_label(value: Hashable) -> str:
    if value is None:
        return "plain"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value).replace("_", " ") if value != "" else "plain"


def _option_part(i: int) -> Callable[[Action], Hashable]:
    """The facet key of an action's i-th option part (None when its option has fewer parts)."""
    def part(a: Action) -> Hashable:
        parts = option_parts(a.option)
        return parts[i] if i < len(parts) else None
    return part


def _facets(actions: list[Action], place: Callable[[Action], Any]) -> list[Facet]:
    """The parts to group `actions` by, in the order a person is asked for them.

    The destination is the place the action ends on (`place`: the rule system's `place_of`), which is
    what the map marks, even where an action's ``dest`` is an offset from its target.
    """
    facets: list[Facet] = [
        ("verb", lambda a: a.verb, lambda v: str(v).replace("_", " ")),
        ("target", lambda a: a.target, lambda v: "no target" if v is None else str(v)),
    ]
    depth = max((len(option_parts(a.option)) for a in actions), default=0)
    for i in range(depth):
        facets.append(("option" if depth == 1 else f"option {i + 1}",
                       _option_part(i), _part_label))
    if any(_is_cell(place(a)) for a in actions):  # asked for only where many squares are left (`_next`)
        facets.append(("row", lambda a: p[1] if _is_cell(p := place(a)) else p,
                       lambda v: "no destination" if v is None else f"row {v}" if isinstance(v, int) else str(v)))
    facets.append(("destination", place, lambda v: "none" if v is None else _node_label(v)))
    return facets


@dataclass(frozen=True, slots=True)
class _Frame:
    indices: tuple[int, ...]  # into the legal list
    facet: int  # the first facet not yet asked for
    label: str  # what led here (a choice or a filter)


class Menu:
    """The legal actions of the open decision as a choice in steps (see the module docstring).

    ``step()`` is what to show now; ``choose(key)`` takes a line (returning the action once one is
    chosen), ``filter(text)`` narrows by typed words, ``back()`` undoes the last choice or filter.
    """

    def __init__(self, combat: Combat, legal: list[Action] | None = None) -> None:
        self.legal = list(legal) if legal is not None else combat.legal_actions()
        if not self.legal:
            raise MenuError("no legal actions: the combat is over")
        describe = combat.system.describe
        self.texts = [describe(combat, a) for a in self.legal]
        self._haystacks = [f"{t} {a.describe()}".lower() for t, a in zip(self.texts, self.legal)]
        places = {a: combat.system.place_of(combat, a) for a in self.legal}
        self.place = places.__getitem__  # where each legal action ends on the map
        self._facets = _facets(self.legal, self.place)
        self._combat = combat  # its rule system names an option's parts for GMs (`RuleSystem.option_part`)
        self._stack = [_Frame(tuple(range(len(self.legal))), 0, "")]

    @property
    def path(self) -> tuple[str, ...]:
        """The labels chosen and filters typed so far."""
        return tuple(f.label for f in self._stack[1:])

    @property
    def actions(self) -> list[Action]:
        """The legal actions still possible after the choices and filters so far."""
        return [self.legal[i] for i in self._stack[-1].indices]

    def step(self) -> Step:
        """The current step: its facet and lines (never empty)."""
        frame = self._stack[-1]
        idx = frame.indices
        if len(idx) <= FLAT_LIMIT:
            return self._flat(idx)
        found = self._next(frame)
        if found is None:
            return self._flat(idx)  # every part alike: only the sentences tell them apart
        pos, groups = found
        name, _, label = self._facets[pos]
        if name.startswith("option"):
            name, label = self._option_facet(name, label, {self.legal[i].verb for i in idx})
        return Step(name, tuple(self._choice(str(k), label(v), members)
                                for k, (v, members) in enumerate(groups.items(), 1)), len(idx), self.path)

    def _next(self, frame: _Frame) -> tuple[int, dict[Hashable, list[int]]] | None:
        """The first facet from the frame's on that splits its actions, with the groups it makes."""
        for pos in range(frame.facet, len(self._facets)):
            if self._facets[pos][0] == "row" and len({self.place(self.legal[i]) for i in frame.indices}) <= ROW_SPLIT:
                continue  # few squares: choose the square at once
            groups = self._groups(frame.indices, pos)
            if len(groups) > 1:
                return pos, groups
        return None

    def _option_facet(self, name: str, label: Callable[[Hashable], str], verbs: set[str]
                      ) -> tuple[str, Callable[[Hashable], str]]:
        """An option part's name and labels as the rule system words them for one verb (kiai: 'technique')."""
        if len(verbs) != 1:
            return name, label
        (verb,) = verbs
        index = int(name.split()[1]) - 1 if " " in name else 0
        named = self._combat.system.option_part(self._combat, verb, index)
        if named is None:
            return name, label
        part, words = named
        return part, lambda v: words(v) or label(v)

    def _flat(self, idx: tuple[int, ...]) -> Step:
        return Step("action", tuple(self._choice(str(k), self.texts[i], (i,)) for k, i in enumerate(idx, 1)),
                    len(idx), self.path)

    def _groups(self, idx: tuple[int, ...], pos: int) -> dict[Hashable, list[int]]:
        key = self._facets[pos][1]
        groups: dict[Hashable, list[int]] = {}
        for i in idx:
            groups.setdefault(key(self.legal[i]), []).append(i)
        return groups

    def _choice(self, key: str, label: str, members: tuple[int, ...] | list[int]) -> Choice:
        first = members[0]
        if len(members) == 1:
            return Choice(key, label, 1, self.texts[first], self.legal[first], first)
        return Choice(key, label, len(members), f"e.g. {self.texts[first]}")

    def choose(self, key: str | int) -> Action | None:
        """Take the line with this key (``"2"`` or 2); the action if that settles it, else None (a next step)."""
        step = self.step()
        wanted = str(key).strip()
        choice = next((c for c in step.choices if c.key == wanted), None)
        if choice is None:
            raise MenuError(f"no choice '{wanted}' here (1-{len(step.choices)})")
        if choice.action is not None:
            return choice.action
        found = self._next(self._stack[-1])
        assert found is not None  # a line without an action comes from a splitting facet
        pos, groups = found
        members = next(m for k, m in enumerate(groups.values(), 1) if str(k) == wanted)
        self._stack.append(_Frame(tuple(members), pos + 1, choice.label))
        return None

    def filter(self, text: str) -> Action | None:
        """Keep the actions whose sentence holds every typed word; the action if just one is left.

        Raises `MenuError` (and keeps the step as it was) if nothing matches.
        """
        words = text.lower().split()
        if not words:
            raise MenuError("type a word of the action's sentence, e.g. a target or a verb")
        frame = self._stack[-1]
        # a word with a digit is a number or a square: it matches whole ("5,8" is not inside "15,8")
        tests: list[Callable[[str], object]] = [
            re.compile(rf"(?<![0-9]){re.escape(w)}(?![0-9])").search if any(ch.isdigit() for ch in w)
            else re.compile(re.escape(w)).search for w in words]
        kept = tuple(i for i in frame.indices if all(test(self._haystacks[i]) for test in tests))
        if not kept:
            raise MenuError(f"nothing matches '{text.strip()}' among the {counted(len(frame.indices), 'action')} left")
        if len(kept) == 1:
            return self.legal[kept[0]]
        self._stack.append(_Frame(kept, 0, f"'{text.strip()}'"))
        return None

    def back(self) -> bool:
        """Undo the last choice or filter; False if already at the first step."""
        if len(self._stack) == 1:
            return False
        self._stack.pop()
        return True

    def reset(self) -> None:
        """Back to the first step."""
        del self._stack[1:]

    def largest_step(self) -> int:
        """The most lines any step of this menu can show (every path explored): a measure of its usability."""
        saved = list(self._stack)
        try:
            return self._largest()
        finally:
            self._stack = saved

    def _largest(self) -> int:
        step = self.step()
        most = len(step.choices)
        for choice in step.choices:
            if choice.action is None:
                self.choose(choice.key)
                most = max(most, self._largest())
                self.back()
        return most
