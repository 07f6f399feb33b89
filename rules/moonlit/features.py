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
from trpg_arena.rules.core.features import Column, Static, SystemFeatures, read_columns
from trpg_arena.rules.moonlit.observe import COMBATANT_FEATURES, GLOBAL_FEATURES, STATES
from trpg_arena.rules.moonlit.tables import Stats, Table
from trpg_arena.rules.moonlit.verbs import Verb

COLUMNS = read_columns(Path(__file__).parent / "data" / "features.yaml")
STATS, GLOBALS = COLUMNS["stats"], COLUMNS["globals"]
COMBATANT = (*(Column(f"state_{s}", f"1 if its state is {s}") for s in STATES), *COLUMNS["combatant"])
assert len(COMBATANT) == COMBATANT_FEATURES
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
