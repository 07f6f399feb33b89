"""`kiai`: percentile (D100) combat on a hex map with kiai-powered techniques and spells.

Rules: ``docs/rules/kiai.md`` (rule ids ``KIA-n.m``). Importing this package registers the
rule system; built-in encounters: ``kiai/duel``, ``kiai/skirmish``, ``kiai/brawl``.
"""

from __future__ import annotations

from trpg_arena.rules.core.system import register
from trpg_arena.rules.kiai.model import KiaiEncounter, KiaiOptions
from trpg_arena.rules.kiai.system import KiaiSystem

SYSTEM = register(KiaiSystem())
INFO = SYSTEM.info

__all__ = ["INFO", "SYSTEM", "KiaiEncounter", "KiaiOptions", "KiaiSystem"]
