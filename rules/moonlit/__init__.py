"""The ``moonlit`` rule system: Sen'ya Tsukihime-style 2D6 combat across four zones (prefix MOON).

Rules: ``docs/rules/moonlit.md``. Importing this package registers the system.
"""

from __future__ import annotations

from trpg_arena.rules.core.system import register
from trpg_arena.rules.moonlit.model import MoonlitEncounter, MoonlitOptions
from trpg_arena.rules.moonlit.state import MoonState
from trpg_arena.rules.moonlit.system import MoonlitSystem

SYSTEM = register(MoonlitSystem())
INFO = SYSTEM.info

__all__ = ["INFO", "SYSTEM", "MoonState", "MoonlitEncounter", "MoonlitOptions", "MoonlitSystem"]
