"""reincarnator's part of the feature layout (`trpg_arena.rules.core.features`): names, stats, reach, damage.

Distances are 1 m squares (Chebyshev). A combatant's reach is the longest of its melee weapons' reach
and its ranged weapons' range in metres (natural weapons and held or carried items of its stat block;
spells and vehicles are not counted). Its damage is its best weapon's damage plus two, the successes
a hit usually adds: a rough scale in health boxes that the learned value refines.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from trpg_arena.rules.core.action_layout import read_spec
from trpg_arena.rules.core.encounter import EncounterBase
from trpg_arena.rules.core.features import Static, SystemFeatures, read_columns
from trpg_arena.rules.reincarnator.data import Static as ReiStatic
from trpg_arena.rules.reincarnator.model import ItemSpec
from trpg_arena.rules.reincarnator.verbs import Verb

MELEE = frozenset({"natural", "melee", "object"})
RANGED = frozenset({"firearm", "bow", "crossbow", "gauss", "launcher", "thrown"})

COLUMNS = read_columns(Path(__file__).parent / "data" / "features.yaml")
STATS, COMBATANT, GLOBALS = COLUMNS["stats"], COLUMNS["combatant"], COLUMNS["globals"]


def _weapons(st: ReiStatic, cid: str) -> list[ItemSpec]:
    spec = st.specs[cid]
    items = [i for i in spec.natural_weapons if isinstance(i, ItemSpec)]
    return items + [i for i in spec.items if isinstance(i, ItemSpec)]


def _static(encounter: EncounterBase, tables: ReiStatic) -> Mapping[str, Static]:
    out = {}
    for cid, c in tables.specs.items():
        ws = _weapons(tables, cid)
        melee = max((w.reach for w in ws if w.kind in MELEE), default=1)
        rng = max((w.range_m or 0 for w in ws if w.kind in RANGED), default=0)
        damage = max((w.damage for w in ws if w.kind in MELEE or w.kind in RANGED), default=0) + 2.0
        a, s = c.attributes, c.skills
        stats = (a.str / 10, a.dex / 10, a.int / 10, a.sta / 10, s.martial / 10, s.athletics / 10, c.size / 10,
                 c.base_defense / 10, c.dodge_defense / 5, tables.speed.get(cid, 0) / 20, (damage - 2) / 6,
                 melee / 3, min(1.0, rng / 30), len(c.spells) / 3, c.trick_actions / 2)
        out[cid] = Static(stats, float(max(melee, rng)), damage)
    return out


FEATURES = SystemFeatures(side_limit=8, distance_scale=30.0, stats=STATS, static=_static, combatant=COMBATANT,
                          globals=GLOBALS, notes=__doc__.split("\n\n", 1)[1].strip() if __doc__ else "")

# the canonical action layout, the envs' default action space (its blocks are data: one line each)
ACTIONS = read_spec(Path(__file__).parent / "data" / "actions.yaml", Verb)
