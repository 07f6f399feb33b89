"""Static tables compiled once per encounter content (`RuleSystem.compile`), shared by every combat of it."""

from __future__ import annotations

from dataclasses import dataclass

from .model import Options, TemplateEncounter


@dataclass(frozen=True)
class Tables:
    """What the rules read on every call, built from the encounter once."""

    ids: tuple[str, ...]  # roster order: the turn order (TPL-1.2)
    side: dict[str, str]
    name: dict[str, str]
    kind: dict[str, str]
    max_hp: dict[str, int]
    options: Options


def build_tables(enc: TemplateEncounter) -> Tables:
    """Compile an encounter."""
    cs = enc.combatants
    return Tables(tuple(c.id for c in cs), {c.id: c.side for c in cs}, {c.id: c.name or c.id for c in cs},
                  {c.id: c.kind for c in cs}, {c.id: c.hp for c in cs}, enc.options)
