"""`kiai`: percentile (D100) combat on a hex map with kiai-powered techniques and spells.

Rules: ``docs/rules/kiai.md`` (rule ids ``KIA-n.m``). Importing this package registers the
rule system; built-in encounters: ``kiai/duel``, ``kiai/skirmish``, ``kiai/brawl``.
"""

from __future__ import annotations

from pathlib import Path

from trpg_arena.rules.core.system import RuleSystemInfo, register
from trpg_arena.rules.kiai.model import KiaiEncounter, KiaiOptions
from trpg_arena.rules.kiai.system import KiaiSystem

INFO = RuleSystemInfo(
    id="kiai",
    title="Kiai: percentile combat on a hex map with kiai-powered techniques",
    prefix="KIA",
    dice="D100 / D10",
    board="hex",
    encounter=KiaiEncounter,
    options=KiaiOptions,
    env_name="Kiai",
    env_version=0,
    data_dir=Path(__file__).parent,
    health="wounds",  # a view's hp is the wound boxes left; its status names the wound level
)

SYSTEM = register(KiaiSystem(INFO))

__all__ = ["INFO", "SYSTEM", "KiaiEncounter", "KiaiOptions", "KiaiSystem"]
