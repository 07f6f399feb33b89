"""A complete minimal rule system to copy when writing a new one (docs/writing-a-rule-system.md).

Two sides trade blows in one zone: on its turn a combatant hits a foe (a d6 of `hit_on` or more
takes one hit point) or passes; a side with nobody standing loses, and the round cap ends in a draw.

The folder is the unit: every import inside it is relative and the system's id is the folder's
name without its leading underscore, so a copy under a new name (``rules/mygame``) is a new system
once its encounters say ``ruleset: mygame``. The kernel skips folders starting with ``_``, so the
template itself is never registered; the test suites run it through such a copy
(``tests/conformance/test_template.py``).
"""

from __future__ import annotations

from trpg_arena.rules.core.system import register

from .system import TemplateSystem

SYSTEM = register(TemplateSystem())
