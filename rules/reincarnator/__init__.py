"""reincarnator: team skirmish with d10 pools, a surprise round, grappling and explosives (REI spec).

Rules: ``docs/rules/reincarnator.md``; ``model.py`` documents the encounter format and its
``start`` section, ``legal.py`` the action encodings and ``catalogue.py`` the action-space layout.
"""

from __future__ import annotations

from trpg_arena.rules.core.system import register
from trpg_arena.rules.reincarnator.encounter import ReincarnatorEncounter
from trpg_arena.rules.reincarnator.model import ReincarnatorOptions
from trpg_arena.rules.reincarnator.system import ReincarnatorSystem

SYSTEM = register(ReincarnatorSystem())
INFO = SYSTEM.info

__all__ = ["INFO", "SYSTEM", "ReincarnatorEncounter", "ReincarnatorOptions", "ReincarnatorSystem"]
