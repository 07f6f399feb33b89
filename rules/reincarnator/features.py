"""reincarnator's part of the feature layout (`trpg_arena.rules.core.features`): names, stats, reach, damage.

Distances are 1 m squares (Chebyshev). A combatant's reach is the longest of its melee weapons' reach
and its ranged weapons' range in metres (natural weapons and held or carried items of its stat block;
spells and vehicles are not counted). Its damage is its best weapon's damage plus two, the successes
a hit usually adds: a rough scale in health boxes that the learned value refines.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trpg_arena.rules.core.action_layout import ActionBlock, ActionSpec
from trpg_arena.rules.core.encounter import EncounterBase
from trpg_arena.rules.core.features import Column, Static, SystemFeatures
from trpg_arena.rules.reincarnator.data import Static as ReiStatic
from trpg_arena.rules.reincarnator.model import ItemSpec

MELEE = frozenset({"natural", "melee", "object"})
RANGED = frozenset({"firearm", "bow", "crossbow", "gauss", "launcher", "thrown"})

STATS = (
    Column("str", "STR / 10"), Column("dex", "DEX / 10"), Column("int", "INT / 10"), Column("sta", "STA / 10"),
    Column("martial", "martial / 10"), Column("athletics", "athletics / 10"), Column("size", "size / 10"),
    Column("defense", "base defense / 10"), Column("dodge_defense", "dodge defense / 5"),
    Column("speed", "speed in metres / 20"), Column("damage", "best weapon damage / 6"),
    Column("melee_reach", "longest melee reach / 3"), Column("range", "longest ranged weapon range / 30 m"),
    Column("spells", "spells known / 3"), Column("trick", "trick actions / 2"),
)

COMBATANT = (
    Column("standard", "standard action left"), Column("move", "move action left"),
    Column("swift", "swift action left"),
    Column("trick_left", "trick actions left / 2"), Column("acrobatic_left", "acrobatic actions left / 2"),
    Column("prone", "prone"), Column("crouching", "crouching"), Column("cover", "cover value / 5"),
    Column("hidden", "hidden"), Column("held", "held in a grapple"), Column("pinned", "pinned"),
    Column("holds", "holds someone in a grapple"), Column("aim", "aim count / 3"),
    Column("defense_loss", "base defense lost / 5"), Column("full_defense", "in full defense"),
    Column("parry", "parry value / 5"), Column("reflex", "reflex available"), Column("in_vehicle", "in a vehicle"),
    Column("lethal", "lethal damage / maximum health"), Column("grapple_margin", "grapple margin against it / 5"),
)

GLOBALS = (
    Column("round", "round / round cap"), Column("phase", "phase index / phases"),
    Column("attack_declared", "the open decision answers a declared attack"),
    Column("grapple_resist", "the open decision resists a grapple"), Column("surprise", "a surprise round is on"),
)


def _weapons(st: ReiStatic, cid: str) -> list[ItemSpec]:
    spec = st.specs[cid]
    items = [i for i in spec.natural_weapons if isinstance(i, ItemSpec)]
    return items + [i for i in spec.items if isinstance(i, ItemSpec)]


def _static(encounter: EncounterBase, tables: Any) -> Mapping[str, Static]:
    assert isinstance(tables, ReiStatic)
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

# charges and crushes carry an offset from their target, not a square: it is part of the option
ACTIONS = ActionSpec(map_limit=(24, 16), dest_in_option=('charge', 'acro_charge', 'vehicle_crush'), blocks=(
    ActionBlock('end_turn'),
    ActionBlock('pass'),
    ActionBlock('grapple_resist', options=2),
    ActionBlock('delay', target=True),
    ActionBlock('release_grapple', target=True),
    ActionBlock('aim', target=True),
    ActionBlock('pin', target=True),
    ActionBlock('take_cover', target=True),
    ActionBlock('drop_item', options=8),
    ActionBlock('cycle_bolt', options=8),
    ActionBlock('consume', options=8),
    ActionBlock('retrieve', options=8),
    ActionBlock('reload', options=8),
    ActionBlock('draw', options=8),
    ActionBlock('reload_heavy', options=8),
    ActionBlock('pick_up', options=16),
    ActionBlock('sheathe', options=8),
    ActionBlock('retrieve_stowed', options=8),
    ActionBlock('stand_from_crouch'),
    ActionBlock('parry'),
    ActionBlock('go_prone'),
    ActionBlock('crouch'),
    ActionBlock('stand_from_prone'),
    ActionBlock('leave_battlefield'),
    ActionBlock('acro_parry'),
    ActionBlock('full_defense'),
    ActionBlock('move', square=True),
    ActionBlock('crawl', square=True),
    ActionBlock('grapple_move', square=True),
    ActionBlock('acro_move', square=True),
    ActionBlock('stealth_walk', square=True),
    ActionBlock('reflex_step', square=True),
    ActionBlock('open_door', square=True),
    ActionBlock('close_door', square=True),
    ActionBlock('take_cover', square=True),
    ActionBlock('melee_attack', target=True, options=16),
    ActionBlock('ranged_attack', target=True, options=8),
    ActionBlock('throw', target=True, options=32),
    ActionBlock('cast', target=True, options=8),
    ActionBlock('throw', square=True, options=4),
    ActionBlock('bull_rush', target=True, options=16),
    ActionBlock('grapple', target=True, options=4),
    ActionBlock('pin_strike', target=True, options=8),
    ActionBlock('grapple_strike', target=True, options=8),
    ActionBlock('escape_grapple', target=True, options=2),
    ActionBlock('charge', target=True, options=64),
    ActionBlock('acro_charge', target=True, options=64),
    ActionBlock('enter_vehicle'),
    ActionBlock('climb_jump', square=True),
    ActionBlock('drive', square=True),
    ActionBlock('drive_fast', square=True),
    ActionBlock('acro_drive', square=True),
    ActionBlock('exit_vehicle', square=True),
    ActionBlock('vehicle_attack', target=True, options=4),
    ActionBlock('melee_attack', options=8),
    ActionBlock('ranged_attack', options=2),
    ActionBlock('throw', options=8),
    ActionBlock('cast', options=2),
    ActionBlock('vehicle_attack', options=2),
    ActionBlock('vehicle_crush', target=True, options=32),
    ActionBlock('ranged_attack', square=True, options=2),
    ActionBlock('acro_fire', target=True, options=4),
    ActionBlock('acro_fire', square=True, options=2),
    ActionBlock('acro_fire', options=4),
))
