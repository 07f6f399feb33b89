"""The ``investigator`` rule system: a tactical-grid Call of Cthulhu 7e variant (prefix INV).

Rules: ``docs/rules/investigator.md``. Importing this package registers the system.
"""

from __future__ import annotations

from trpg_arena.rules.core.system import register
from trpg_arena.rules.investigator.model import InvestigatorEncounter, InvestigatorOptions
from trpg_arena.rules.investigator.state import InvState
from trpg_arena.rules.investigator.system import InvestigatorSystem

SYSTEM = register(InvestigatorSystem())
INFO = SYSTEM.info

__all__ = ["INFO", "SYSTEM", "InvState", "InvestigatorEncounter", "InvestigatorOptions", "InvestigatorSystem"]
