"""One shared object per distinct action: the action catalogue and every legal list hand out the same objects.

Actions are immutable values, so sharing them is safe; the env's codec looks an action up by object identity
before hashing its fields (`agents/codec.py`), so masks built from these objects skip the hashing, and the legal
lists allocate nothing per action. The rules build options as wire tuples; a new action's tuple option gets its
type per verb here (`verbs.typed_option`), once, so a lookup costs no more than it did.
"""

from __future__ import annotations

from typing import Any

from trpg_arena.rules.core.values import Action
from trpg_arena.rules.reincarnator.verbs import typed_option

_TABLE: dict[tuple[Any, ...], Action] = {}


def act(verb: str, target: str | None = None, dest: Any = None, option: Any = None) -> Action:
    """The shared `Action(verb, target, dest, option)`."""
    key = (verb, target, dest, option)
    a = _TABLE.get(key)
    if a is None:
        if len(_TABLE) > 200000:  # pragma: no cover - a bound for processes that load very many encounters
            _TABLE.clear()
        a = _TABLE[key] = Action(verb, target, dest, typed_option(verb, option))  # looked up by the wire tuple
    return a
