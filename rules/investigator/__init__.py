"""The ``investigator`` rule system: a tactical-grid Call of Cthulhu 7e variant (prefix INV).

Rules: ``docs/rules/investigator.md``. Importing this package registers the system.
"""

from __future__ import annotations

from pathlib import Path

from trpg_arena.rules.core.system import RuleSystemInfo, register
from trpg_arena.rules.investigator.model import InvestigatorEncounter, InvestigatorOptions
from trpg_arena.rules.investigator.state import InvState
from trpg_arena.rules.investigator.system import InvestigatorSystem

INFO = RuleSystemInfo(id="investigator", title="Investigator (CoC 7e tactical grid)", prefix="INV", dice="1D100",
                      board="square", encounter=InvestigatorEncounter, options=InvestigatorOptions,
                      env_name="Investigator", env_version=0, data_dir=Path(__file__).parent,
                      condition_words={"full_mov_lockout": "unable to act after a full move",
                                       "lose_next_standard": "losing its next action",
                                       "pending_bonus": "holding a bonus die", "channeling": "channelling a spell"})
InvestigatorSystem.info = INFO
SYSTEM = register(InvestigatorSystem())

__all__ = ["INFO", "SYSTEM", "InvState", "InvestigatorEncounter", "InvestigatorOptions", "InvestigatorSystem"]
