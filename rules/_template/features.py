"""The template's part of the feature layout (`trpg_arena.rules.core.features`): names, stats, reach, damage.

Everybody stands in one zone, so every distance and every reach is 0. A combatant has no stat columns, and one
hit takes one hit point: its damage reads 1.
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


# Name here every column of the system's `observe_combatant` and `observe_global`, and say per combatant of an
# encounter what its stats are, how far its attacks reach and how much one deals. ``ACTIONS`` declares the
# canonical action layout (`trpg_arena.rules.core.action_layout`): one block per verb and form, so that every
# encounter of the system has the same action space. The docstring's paragraphs after its first line are the
# notes of the features page (`trpg-arena features <id>`): write them for its readers.
FEATURES = SystemFeatures(side_limit=8, distance_scale=1.0, stats=(), static=_static, combatant=COMBATANT,
                          globals=GLOBALS, notes=__doc__.split("\n\n", 1)[1].strip() if __doc__ else "")

ACTIONS = ActionSpec(map_limit=(1, 1), blocks=(ActionBlock(Verb.PASS), ActionBlock(Verb.HIT, target=True)))
