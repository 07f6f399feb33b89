"""investigator's part of the feature layout (`trpg_arena.rules.core.features`): names, stats, reach, damage.

Distances are squares (5 yards each, Chebyshev). A combatant's reach is 1 square for melee, and for
its longest-reaching firearm or thrown weapon the weapon's base range times four (the farthest band
it may still shoot at, with penalty dice). Its damage is the mean of its best weapon's damage, plus
the damage bonus the weapon adds (full for melee, half for thrown).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from trpg_arena.rules.core.action_layout import read_spec
from trpg_arena.rules.core.encounter import EncounterBase
from trpg_arena.rules.core.features import Column, Static, SystemFeatures, read_columns
from trpg_arena.rules.investigator.compiled import Setup
from trpg_arena.rules.investigator.rolls import Expr
from trpg_arena.rules.investigator.system import DECISION_CODE, PHASE_CODE, InvestigatorSystem
from trpg_arena.rules.investigator.verbs import Verb

COLUMNS = read_columns(Path(__file__).parent / "data" / "features.yaml")
STATS, COMBATANT = COLUMNS["stats"], COLUMNS["combatant"]
assert len(COMBATANT) == InvestigatorSystem.combatant_features

_PHASES = sorted({v: k for k, v in PHASE_CODE.items()}.items())
_DECISIONS = sorted({v: k for k, v in DECISION_CODE.items()}.items())
GLOBALS = (
    Column("round", "round / round cap"),
    *(Column(f"phase_{name}", f"1 in the {name} phase") for _, name in _PHASES),
    *(Column(f"step_{name}", f"1 if the open decision is a {name.replace('_', ' ')}") for _, name in _DECISIONS),
    Column("ground_items", "1 if items lie on the ground"),
)
assert len(GLOBALS) == InvestigatorSystem.global_features


def _mean(e: Expr) -> float:
    return e.flat + sum(s * n * (d + 1) / 2 for s, n, d in e.dice)


def _static(encounter: EncounterBase, tables: Setup) -> Mapping[str, Static]:
    out = {}
    by_id = {c.id: c for c in encounter.combatants}
    for p in tables.profiles:
        spec = by_id.get(p.id)
        names = ["unarmed", *(spec.weapons if spec is not None else ())]
        db = _mean(p.db)
        melee = ranged = 0
        damage = reach = 0.0
        for wid in names:
            w = tables.weapons.get(wid)
            if w is None:
                continue
            skill = p.skill(w.skill)
            bonus = db if w.db_mode == "full" else db / 2 if w.db_mode == "half" else 0.0
            damage = max(damage, _mean(w.damage) + bonus)
            if w.kind == Verb.MELEE:
                melee = max(melee, skill)
                reach = max(reach, 1.0)
            else:
                ranged = max(ranged, skill)
                reach = max(reach, 4.0 * w.base_range)
        stats = (melee / 100, ranged / 100, p.skill("Dodge") / 100, p.armour / 5, db / 6, damage / 15,
                 min(1.0, reach / 20), p.max_mp / 20, len(p.spells) / 3, p.actions / 2, p.dex / 100)
        out[p.id] = Static(stats, reach, damage)
    return out


FEATURES = SystemFeatures(side_limit=8, distance_scale=20.0, stats=STATS, static=_static, combatant=COMBATANT,
                          globals=GLOBALS, notes=__doc__.split("\n\n", 1)[1].strip() if __doc__ else "")

# the canonical action layout, the envs' default action space (its blocks are data: one line each)
ACTIONS = read_spec(Path(__file__).parent / "data" / "actions.yaml", Verb)
