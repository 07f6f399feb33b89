"""trpg-arena rules: the kernel and one plugin package per rule system.

Public engine API::

    from trpg_arena.rules import Combat, load_encounter, ScriptedDice, IllegalActionError

Rule systems register themselves when their package is imported; `RULESETS` and `get_ruleset`
import every subpackage on first use.
"""

from __future__ import annotations

from trpg_arena.rules.core.battlefield import Battlefield, hex_grid, square_grid, zone_line
from trpg_arena.rules.core.combat import Combat
from trpg_arena.rules.core.dice import Dice, DiceExpr, ScriptedDice
from trpg_arena.rules.core.encounter import EncounterBase, StrictModel, builtin_encounters, load_encounter
from trpg_arena.rules.core.errors import (
    DiceEntryError,
    DiceNeeded,
    DiceScriptError,
    EncounterError,
    IllegalActionError,
    InvalidActionError,
    ResetNeeded,
    SnapshotError,
    TrpgArenaError,
    UnknownRulesetError,
)
from trpg_arena.rules.core.system import (
    RULESETS,
    BaseState,
    CombatantView,
    RuleSystem,
    RuleSystemInfo,
    get_ruleset,
    register,
)
from trpg_arena.rules.core.table_dice import DiceRequest, TableDice
from trpg_arena.rules.core.values import Action, Decision, DecisionKind, Event, Outcome, Termination

__all__ = [
    "RULESETS", "Action", "BaseState", "Battlefield", "Combat", "CombatantView", "Decision", "DecisionKind", "Dice",
    "DiceEntryError", "DiceExpr", "DiceNeeded", "DiceRequest", "DiceScriptError", "EncounterBase", "EncounterError",
    "Event", "IllegalActionError", "InvalidActionError", "Outcome", "ResetNeeded", "RuleSystem", "RuleSystemInfo",
    "ScriptedDice", "SnapshotError", "StrictModel", "TableDice", "Termination", "TrpgArenaError",
    "UnknownRulesetError", "builtin_encounters", "get_ruleset", "hex_grid", "load_encounter", "register",
    "square_grid", "zone_line",
]
