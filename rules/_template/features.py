"""The template's part of the feature layout (`trpg_arena.rules.core.features`).

A new rule system names the columns of its `observe_combatant` and `observe_global` here, and says
per combatant of an encounter what its stats are, how far its attacks reach and how much one deals.
``ACTIONS`` declares its canonical action layout (`trpg_arena.rules.core.action_layout`): one block
per verb and form, so that every encounter of the system has the same action space.
The template's fighters all stand in one zone and hit for one point.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trpg_arena.rules.core.action_layout import ActionBlock, ActionSpec
from trpg_arena.rules.core.encounter import EncounterBase
from trpg_arena.rules.core.features import Column, Static, SystemFeatures

from .verbs import Verb

COMBATANT = (Column("hp_left", "hit points / maximum"),)
GLOBALS = (Column("round", "round / round cap"),)


def _static(encounter: EncounterBase, tables: Any) -> Mapping[str, Static]:
    return {c.id: Static((), 0.0, 1.0) for c in encounter.combatants}


FEATURES = SystemFeatures(side_limit=8, distance_scale=1.0, stats=(), static=_static, combatant=COMBATANT,
                          globals=GLOBALS, notes=__doc__.split("\n\n", 1)[1].strip() if __doc__ else "")

ACTIONS = ActionSpec(map_limit=(1, 1), blocks=(ActionBlock(Verb.PASS), ActionBlock(Verb.HIT, target=True)))
