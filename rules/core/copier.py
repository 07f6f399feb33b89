"""Copies of a rule system's state that share what cannot change: the kernel's clone and rollback base.

A state is a tree of dataclasses with precise field types (snapshots need them, see `BaseState`), so
the types say which parts are values (numbers, strings, tuples of values, enums, frozen dataclasses)
and which can change (lists, dicts, sets, mutable dataclasses). `state_copier(type)` writes one plain
Python function per dataclass from those types: values are shared, every mutable container and
dataclass is new. That is several times faster than a pickle round trip (which rebuilds every
string and number and runs `__reduce_ex__` per object) and copies nothing twice.

Sharing follows the JSON snapshot, not pickle: two fields that point at one list become two lists,
as they do after `snapshot()` and `restore()` (rules must not rely on such aliasing; the conformance
suite restores combats and plays on). A field typed `Any`, or a union of several mutable types, is
deep-copied (correct, only slower). Attributes set on a (non-slots) dataclass outside its declared
fields are shared, so a rule system keeps such caches out of its state.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import functools
import itertools
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_VALUES = (int, float, str, bool, bytes, type(None), complex)


@functools.cache
def _is_value(tp: Any) -> bool:
    """Whether values of type `tp` can never change (so a copy may share them)."""
    if tp in _VALUES or tp is typing.Literal:
        return True
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return True
    if origin in (tuple, frozenset):
        return all(_is_value(a) for a in typing.get_args(tp) if a is not Ellipsis)
    if origin in (typing.Union, types.UnionType):
        return all(_is_value(a) for a in typing.get_args(tp))
    if isinstance(tp, type):
        if issubclass(tp, enum.Enum):
            return True
        # the frozen flag has no public accessor, and typeshed leaves __dataclass_params__ out
        if dataclasses.is_dataclass(tp) and tp.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            return all(_is_value(t) for t in typing.get_type_hints(tp).values())
    return False


class _Writer:
    """Writes the copy functions of one state type and the dataclasses it holds (they share one namespace)."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {"_new": object.__new__, "_deep": copy.deepcopy}
        self.names: dict[type, str] = {}
        self._fresh = itertools.count()

    def copier(self, cls: type) -> str:
        """The name of `cls`'s copy function, written on first use (recursive types resolve by name)."""
        name = self.names.get(cls)
        if name is not None:
            return name
        name = self.names[cls] = f"_copy_{cls.__name__}_{len(self.names)}"
        self.namespace[f"_cls_{name}"] = cls
        hints = typing.get_type_hints(cls)
        fields = [(f.name, hints[f.name]) for f in dataclasses.fields(cls)]
        slots = "__slots__" in cls.__dict__
        lines = [f"def {name}(o):", f"    n = _new(_cls_{name})"]
        if slots:
            for fname, tp in fields:
                lines.append(f"    n.{fname} = {self.expr(tp, f'o.{fname}')}")
        else:
            lines.append("    d = o.__dict__.copy()")
            for fname, tp in fields:
                if not _is_value(tp):
                    lines.append(f"    d[{fname!r}] = {self.expr(tp, f'd[{fname!r}]')}")
            lines.append("    n.__dict__ = d")
        lines.append("    return n")
        exec("\n".join(lines), self.namespace)  # noqa: S102 - generated from dataclass field types only
        return name

    def expr(self, tp: Any, var: str) -> str:
        """A Python expression copying `var` of type `tp` (just `var` when it is a value)."""
        if _is_value(tp):
            return var
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin in (typing.Union, types.UnionType):
            mutable = [a for a in args if not _is_value(a)]
            if len(mutable) == 1:
                return f"(None if {var} is None else {self.expr(mutable[0], var)})" \
                    if type(None) in args and len(args) == 2 else f"_deep({var})"
            return f"_deep({var})"
        e = f"_e{next(self._fresh)}"
        if origin is list:
            inner = args[0] if args else Any
            return f"{var}[:]" if _is_value(inner) else f"[{self.expr(inner, e)} for {e} in {var}]"
        if origin is dict:
            inner = args[1] if len(args) == 2 else Any
            return f"{var}.copy()" if _is_value(inner) else \
                f"{{_k: {self.expr(inner, e)} for _k, {e} in {var}.items()}}"
        if origin is set:
            return f"set({var})" if args and _is_value(args[0]) else f"_deep({var})"
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            return f"{self.copier(tp)}({var})"
        return f"_deep({var})"


# one copier per state class, written on first use (a dict, not functools.cache: mypy takes the class of a
# mutable dataclass for unhashable, as its instances are)
_COPIERS: dict[type, Callable[[Any], Any]] = {}


def state_copier(cls: type[T]) -> Callable[[T], T]:
    """A function that copies instances of the dataclass `cls`, sharing only what cannot change."""
    fn = _COPIERS.get(cls)
    if fn is None:
        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"{cls.__name__} is not a dataclass")
        writer = _Writer()
        fn = _COPIERS[cls] = writer.namespace[writer.copier(cls)]
    return fn
