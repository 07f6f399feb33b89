"""moonlit's part of the feature layout (`trpg_arena.rules.core.features`): names, stats, reach, damage.

The battlefield is four zones in a line, so distances are zone hops (0..3). Melee attacks reach the
actor's own zone only; ranged and mental attacks reach every zone (mental ones only their own zone
under ``moon_mental_range: same_zone``). An attack's mean damage is its dice (each 1D6) and flat
amount plus the weapon's flat damage, before the defender's reduction.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from trpg_arena.rules.core.action_layout import read_spec
from trpg_arena.rules.core.encounter import EncounterBase
from trpg_arena.rules.core.features import Column, Static, SystemFeatures
from trpg_arena.rules.moonlit.observe import COMBATANT_FEATURES, GLOBAL_FEATURES, STATES
from trpg_arena.rules.moonlit.tables import Stats, Table
from trpg_arena.rules.moonlit.verbs import Verb

STATS = (
    Column("body", "body / 10"), Column("action", "action / 10"), Column("melee", "melee / 10"),
    Column("ranged", "ranged / 10"), Column("mental", "mental / 10"), Column("defense", "defense + armour dice / 10"),
    Column("max_tp", "maximum TP / 100"), Column("attack_skills", "attack-type skills / 5"),
    Column("damage", "mean damage of its best attack / 30"), Column("reach", "1 if an attack reaches other zones"),
    Column("heals", "1 if it knows a healing skill"),
)

COMBATANT = (
    *(Column(f"state_{s}", f"1 if its state is {s}") for s in STATES),
    Column("ap", "action points / 20"), Column("tp", "TP / maximum TP"), Column("emotion", "emotion / 50"),
    Column("max_hp_now", "current maximum HP / base maximum"), Column("poison", "poison stacks / 3"),
    Column("paralysis", "paralysed"), Column("bind", "bound"), Column("trance", "in trance"),
    Column("baptism", "baptised"), Column("marker", "an ambush or escape marker"),
    Column("pending", "holds a pending (standby) attack"), Column("countering", "declared a counter"),
    Column("hit_bonus", "hit bonus of lasting effects / 4"), Column("zone", "zone index / 3 (-1 off the map)"),
    Column("summon", "1 for a summon"),
)
assert len(COMBATANT) == COMBATANT_FEATURES

GLOBALS = (
    Column("round", "round / round cap"), Column("phase_setup", "setup phase"), Column("phase_main", "main phase"),
    Column("phase_end", "end phase"), Column("attack_open", "an attack is being resolved"),
    Column("attack_hit", "its hit check total / 20"), Column("attack_critical", "the hit check is a critical"),
    Column("attack_fumble", "the hit check is a fumble"),
)
assert len(GLOBALS) == GLOBAL_FEATURES


def _damage(s: Stats) -> float:
    best = 0.0
    for sk in s.cat("attack"):
        d = sk.damage
        mean = d.count * (d.sides + 1) / 2 + d.flat if d is not None else 0.0
        best = max(best, mean)
    w = s.weapon
    return best + (w.damage_flat if w is not None else 0)


def _static(encounter: EncounterBase, tables: Table) -> Mapping[str, Static]:
    same_zone_mental = tables.opts.moon_mental_range == "same_zone"
    out = {}
    for cid, s in tables.stats.items():
        attacks = s.cat("attack")
        far = any(sk.type == "ranged" or (sk.type == "mental" and not same_zone_mental) for sk in attacks)
        damage = _damage(s)
        heals = any(sk.heal is not None for sk in s.cat("normal"))
        stats = (s.body / 10, s.action / 10, s.melee / 10, s.ranged / 10, s.mental / 10,
                 (s.defense + s.armour_dice) / 10, s.max_tp / 100, len(attacks) / 5, min(1.0, damage / 30),
                 float(far), float(heals))
        out[cid] = Static(stats, 3.0 if far else 0.0, damage)
    return out


FEATURES = SystemFeatures(side_limit=8, distance_scale=3.0, stats=STATS, static=_static, combatant=COMBATANT,
                          globals=GLOBALS, notes=__doc__.split("\n\n", 1)[1].strip() if __doc__ else "")

ACTIONS = read_spec(Path(__file__).parent / "data" / "actions.yaml", Verb)
