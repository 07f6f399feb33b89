"""A rule system's data library: YAML tables of named entries (weapons, stat blocks, spells...) under ``data/``.

An encounter may name a library entry instead of writing it out (``weapons: [katana]``, ``stat_block:
human``); a name the library lacks is refused with the names it has, inside a pydantic validator, so the
error is located at the field that named it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import AfterValidator

V = TypeVar("V")


def read_table(path: Path) -> dict[str, Any]:
    """A data file's entries by name (an empty file has none)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path.name}: expected a mapping of entries by name")
    return data


def entry(library: Mapping[str, V], name: Any, what: str) -> V:
    """The library's entry `name`; a ValueError naming every entry it has when there is none."""
    if not isinstance(name, str) or name not in library:  # a list or a mapping here is no name (and unhashable)
        raise ValueError(f"unknown {what} '{name}' (library: {', '.join(sorted(library))})")
    return library[name]


def over_entry(data: Any, key: str, library: Mapping[str, Any], what: str) -> Any:
    """A dict that names a library entry under `key` (``stat_block: human``): the entry, the dict's fields over it."""
    if isinstance(data, dict) and key in data:
        own = {k: v for k, v in data.items() if k != key}
        return {**entry(library, data[key], what), **own}
    return data


def named_in(library: Mapping[str, Any], what: str) -> AfterValidator:
    """A field's check that its value names an entry of `library`, for ``Annotated[str, ...]`` field types."""

    def check(name: str) -> str:
        entry(library, name, what)
        return name

    return AfterValidator(check)
