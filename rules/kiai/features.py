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
from trpg_arena.rules.core.features import Column, Static, SystemFeatures
from trpg_arena.rules.kiai.catalogue import COMBATANT_FEATURES, CONDITIONS, DECISIONS, GLOBAL_FEATURES
from trpg_arena.rules.kiai.model import KiaiEncounter
from trpg_arena.rules.kiai.verbs import Verb

STATS = (
    Column("hit", "hit / 100"), Column("dodge", "dodge / 100"), Column("attack", "attack / 100"),
    Column("defense", "defense / 100"), Column("life", "life / 100"), Column("agility", "agility / 30"),
    Column("kiai", "kiai / 100"), Column("spirit", "spirit / 100"), Column("magic_attack", "magic attack / 100"),
    Column("weapon_level", "best weapon level / 5"), Column("reach", "longest weapon reach / 3"),
    Column("armour", "armour level / 5"), Column("abilities", "abilities / 5"),
    Column("airborne", "1 if airborne"),
)

COMBATANT = (
    Column("kiai_now", "kiai / its maximum"), Column("wounds", "wound status: (index + 1) / 5, 0 unhurt, 1 dead"),
    Column("main_level", "level of the weapon in hand / 5"), Column("main_reach", "reach of the weapon in hand / 3"),
    Column("offhand", "holds an off-hand weapon"), Column("attacked", "attacked this round"),
    Column("parry_used", "parried this round"), Column("countered", "countered this round"),
    *(Column(f"cond_{c}", f"1 if {c.replace('_', ' ')}") for c in CONDITIONS),
)
assert len(COMBATANT) == COMBATANT_FEATURES

GLOBALS = (Column("round", "round / round cap"),
           *(Column(f"step_{d}", f"1 if the open decision is step {d}") for d in DECISIONS))
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
