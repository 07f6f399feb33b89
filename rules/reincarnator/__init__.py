"""reincarnator: team skirmish with d10 pools, a surprise round, grappling and explosives (REI spec).

Rules: ``docs/rules/reincarnator.md``; ``model.py`` documents the encounter format and its
``start`` section, ``legal.py`` the action encodings and ``catalogue.py`` the action-space layout.
"""

from __future__ import annotations

from pathlib import Path

from trpg_arena.rules.core.system import RuleSystemInfo, register
from trpg_arena.rules.reincarnator.encounter import ReincarnatorEncounter
from trpg_arena.rules.reincarnator.model import ReincarnatorOptions
from trpg_arena.rules.reincarnator.system import ReincarnatorSystem

INFO = RuleSystemInfo(id="reincarnator", title="Reincarnator (无限恐怖-style d10 pools)", prefix="REI",
                      dice="d10 pools", board="square", encounter=ReincarnatorEncounter,
                      options=ReincarnatorOptions, env_name="Reincarnator", env_version=0,
                      data_dir=Path(__file__).parent)


class _System(ReincarnatorSystem):
    info = INFO


SYSTEM = register(_System())

__all__ = ["INFO", "SYSTEM", "ReincarnatorEncounter", "ReincarnatorOptions", "ReincarnatorSystem"]
