"""kiai's part of the feature layout (`trpg_arena.rules.core.features`): names, stats, reach, damage.

Distances are hexes (1 m each). A combatant's reach is the longest reach of its weapons (1 unarmed);
ranged and area abilities are not counted. Its damage is how many wound boxes one hit is expected to
fill: the hit points of a view are the wound boxes left, and a hit of attack + the weapon's level in
D10 against an average defense fills about one box per 25 points over it, so damage reads
``1 + (attack + 5.5 x level) / 25``, a rough scale the learned value refines.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from trpg_arena.rules.core.action_layout import read_spec
from trpg_arena.rules.core.features import Column, Static, SystemFeatures, read_columns
from trpg_arena.rules.kiai.catalogue import COMBATANT_FEATURES, CONDITIONS, DECISIONS, GLOBAL_FEATURES
from trpg_arena.rules.kiai.model import KiaiEncounter
from trpg_arena.rules.kiai.verbs import Verb

COLUMNS = read_columns(Path(__file__).parent / "data" / "features.yaml")
STATS = COLUMNS["stats"]
COMBATANT = (*COLUMNS["combatant"], *(Column(f"cond_{c}", f"1 if {c.replace('_', ' ')}") for c in CONDITIONS))
assert len(COMBATANT) == COMBATANT_FEATURES

GLOBALS = (*COLUMNS["globals"], *(Column(f"step_{d}", f"1 if the open decision is step {d}") for d in DECISIONS))
assert len(GLOBALS) == GLOBAL_FEATURES


def _static(encounter: KiaiEncounter, tables: object) -> Mapping[str, Static]:
    out = {}
    for c in encounter.combatants:
        level = max((w.level for w in c.weapons), default=0)
        reach = max((w.reach for w in c.weapons), default=1)
        stats = (c.hit / 100, c.dodge / 100, c.attack / 100, c.defense / 100, c.life / 100, c.agility / 30,
                 c.kiai / 100, c.spirit / 100, c.magic_attack / 100, level / 5, reach / 3, c.armour.level / 5,
                 len(c.abilities) / 5, float(c.airborne))
        out[c.id] = Static(stats, float(reach), 1 + (c.attack + 5.5 * level) / 25)
    return out


FEATURES = SystemFeatures(side_limit=8, distance_scale=10.0, stats=STATS, static=_static, combatant=COMBATANT,
                          globals=GLOBALS, notes=__doc__.split("\n\n", 1)[1].strip() if __doc__ else "")

# the canonical action layout, the envs' default action space (its blocks are data: one line each)
ACTIONS = read_spec(Path(__file__).parent / "data" / "actions.yaml", Verb)
