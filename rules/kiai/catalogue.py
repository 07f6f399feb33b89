"""The env-facing hooks of `kiai`: action catalogue, GM sentences and observation features.

Catalogue layout (fixed order; the env's ``Discrete(n)`` index):

1. ``end_turn``, ``pass``, ``dodge``, ``no_reaction``, ``attack_defense`` / ``counter`` (no ability, then
   each melee damage technique of the roster), ``concentrate_dodge`` (bonus, twice), ``flee``;
2. ``move`` then ``run`` to every unblocked hex (row-major);
3. per target combatant (roster order): ``attack`` with option ``(technique_x, all_out, ability)`` for
   technique_x in 0, step, ... below twice the highest hit value of the roster (the documented bound),
   all_out in (False, True) and ability in ("", each melee damage technique); ``two_weapon_attack``
   (all_out False/True); ``offhand_attack``; ``consecutive_attack``; ``feint`` (bonus_on 1..3);
   ``break_weapon``; ``disarm``; ``reattack`` ``(technique_x, all_out)``;
4. ``charge`` (target, hex) when the roster owns a spear-class weapon;
5. ``use_ability`` for every ability id of the roster: per target, or per hex for area abilities;
6. ``ready_weapon`` and ``pick_up`` for every weapon (``owner/weapon_id``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from trpg_arena.rules.core.compiled import compiled
from trpg_arena.rules.core.values import Action
from trpg_arena.rules.kiai.context import SPEAR_CLASS, Ctx, action
from trpg_arena.rules.kiai.model import KiaiEncounter
from trpg_arena.rules.kiai.verbs import AttackOption, Condition, ReattackOption, Verb

if TYPE_CHECKING:
    from trpg_arena.rules.kiai.state import KiaiCombat

CONDITIONS: tuple[Condition, ...] = tuple(Condition)  # their feature columns, in this order
COMBATANT_FEATURES = 8 + len(CONDITIONS)
DECISIONS = ("D1", "D2", "D3", "R1", "R2", "R3", "P1")
GLOBAL_FEATURES = 1 + len(DECISIONS)


def catalogue(enc: KiaiEncounter) -> list[Action]:
    """Every action that can ever be legal in `enc` (see the module docstring for the layout)."""
    return list(compiled(enc).derive("catalogue", lambda: tuple(_build(enc))))


def _build(enc: KiaiEncounter) -> list[Action]:
    ctx: Ctx = compiled(enc).tables
    techs = sorted({a.id for c in enc.combatants for a in c.abilities
                    if a.delivery == "melee" and a.effect == "damage"})
    acts: list[Action] = [action(Verb.END_TURN), action(Verb.PASS), action(Verb.DODGE), action(Verb.NO_REACTION)]
    for verb in (Verb.ATTACK_DEFENSE, Verb.COUNTER):
        acts.append(action(verb))
        acts.extend(action(verb, option=t) for t in techs)
    acts += [action(Verb.CONCENTRATE_DODGE, option="bonus"), action(Verb.CONCENTRATE_DODGE, option="twice")]
    acts += [action(Verb.FLEE)]
    hexes = [(c, r) for r in range(ctx.height) for c in range(ctx.width) if (c, r) not in ctx.blocked]
    acts.extend(action(Verb.MOVE, dest=h) for h in hexes)
    acts.extend(action(Verb.RUN, dest=h) for h in hexes)
    max_hit = max(c.hit for c in enc.combatants)
    step = enc.options.technique_step
    xs = [0, *range(step, 2 * max_hit, step)]
    for cid in ctx.ids:
        acts.extend(action(Verb.ATTACK, cid, None, AttackOption(x, ao, ab)) for ab in ("", *techs)
                    for ao in (False, True) for x in xs)
        acts += [action(Verb.TWO_WEAPON_ATTACK, cid, None, False), action(Verb.TWO_WEAPON_ATTACK, cid, None, True),
                 action(Verb.OFFHAND_ATTACK, cid), action(Verb.CONSECUTIVE_ATTACK, cid)]
        acts.extend(action(Verb.FEINT, cid, None, b) for b in (1, 2, 3))
        acts += [action(Verb.BREAK_WEAPON, cid), action(Verb.DISARM, cid)]
        acts.extend(action(Verb.REATTACK, cid, None, ReattackOption(x, ao)) for ao in (False, True) for x in xs)
    if any(w.category in SPEAR_CLASS for c in enc.combatants for w in c.weapons):
        acts.extend(action(Verb.CHARGE, cid, h) for cid in ctx.ids for h in hexes)
    abilities: dict[str, set[str]] = {}
    for c in enc.combatants:
        for a in c.abilities:
            if not (a.delivery == "melee" and a.effect == "damage"):
                abilities.setdefault(a.id, set()).add(a.delivery)
    for aid in sorted(abilities):
        kinds = abilities[aid]
        if kinds - {"area"}:
            acts.extend(action(Verb.USE_ABILITY, cid, None, aid) for cid in ctx.ids)
        if "area" in kinds:
            acts.extend(action(Verb.USE_ABILITY, None, h, aid) for h in hexes)
    keys = list(ctx.weapons)
    acts.extend(action(Verb.READY_WEAPON, option=k) for k in keys)
    acts.extend(action(Verb.PICK_UP, option=k) for k in keys)
    return acts


@lru_cache(maxsize=65536)  # bounded: a process meeting very many encounters only recomputes sentences
def describe(a: Action) -> str:
    """A GM sentence for an action (cached: actions are frozen, and legal lists hand out shared ones)."""
    v = a.verb
    if v in (Verb.ATTACK, Verb.REATTACK):
        # read through the option's type: a caller's action read back from JSON carries a plain tuple
        hit = AttackOption(*a.option) if v == Verb.ATTACK else ReattackOption(*a.option)
        x, ao = hit.technique, hit.all_out
        ab = hit.ability if isinstance(hit, AttackOption) else ""
        extra = [s for s in (f"technique {x}" if x else "", "all-out" if ao else "", f"with {ab}" if ab else "") if s]
        return f"{v} {a.target}" + (f" ({', '.join(extra)})" if extra else "")
    if v in (Verb.MOVE, Verb.RUN):
        return f"{v} to {list(a.dest)}"
    if v == Verb.CHARGE:
        return f"charge {a.target} from {list(a.dest)}"
    if v == Verb.TWO_WEAPON_ATTACK:
        return f"two-weapon attack {a.target}" + (" (all-out)" if a.option else "")
    if v == Verb.FEINT:
        return f"feint {a.target} (+20 on strike {a.option})"
    if v == Verb.USE_ABILITY:
        return f"use {a.option} " + (f"on {a.target}" if a.target else f"centred on {list(a.dest)}")
    if v in (Verb.ATTACK_DEFENSE, Verb.COUNTER):
        return v.replace("_", "-") + (f" with {a.option}" if a.option else "")
    if v == Verb.CONCENTRATE_DODGE:
        return f"concentrate on dodging ({a.option})"
    if v in (Verb.READY_WEAPON, Verb.PICK_UP):
        return f"{v.replace('_', ' ')} {a.option}"
    if a.target:
        return f"{v.replace('_', ' ')} {a.target}"
    return v.replace("_", " ")


_STATUS_FEATURE = tuple((i + 1) / 5 for i in range(-1, 5))
_NO_CONDITIONS = [0.0] * len(CONDITIONS)


def _obs_static(ctx: Ctx) -> tuple[dict[str, int], dict[str, tuple[float, float]]]:
    """Per combatant: max(1, kiai); per weapon key ("" unarmed): (level / 5, reach / 3)."""
    kmax = {cid: max(1, ctx.spec[cid].kiai) for cid in ctx.ids}
    wf = {k: (ctx.weapon(k).level / 5, ctx.weapon(k).reach / 3) for k in ["", *ctx.weapons]}
    ctx.obs_static = (kmax, wf)
    return ctx.obs_static


_CONDITION_SLOT: dict[str, int] = {c: 8 + i for i, c in enumerate(CONDITIONS)}


def observe_combatants(combat: KiaiCombat, ids: list[str]) -> list[list[float]]:
    """Kiai, wounds, weapon level and reach, round flags and conditions of each of `ids`, roughly in [0, 1]."""
    st = combat.state
    ctx = combat.tables
    kmax, wfs = ctx.obs_static or _obs_static(ctx)
    fighters = st.fighters
    status_feature = _STATUS_FEATURE
    slot = _CONDITION_SLOT
    rows = []
    for cid in ids:
        f = fighters[cid]
        if f.dead:
            s = 4
        else:
            w = f.wounds
            s = 3 if w[3] else 2 if w[2] else 1 if w[1] else 0 if w[0] else -1
        wf = wfs[f.main]
        row = [f.kiai / kmax[cid], status_feature[s + 1], wf[0], wf[1],
               1.0 if f.off else 0.0, 1.0 if f.attacked else 0.0, 1.0 if f.parry_used else 0.0,
               1.0 if f.countered else 0.0, *_NO_CONDITIONS]
        for c in f.conds:
            i = slot.get(c.type)
            if i is not None:
                row[i] = 1.0
        rows.append(row)
    return rows


def observe_global(combat: KiaiCombat) -> list[float]:
    """Round progress and a one-hot of the open decision kind."""
    st = combat.state
    ctx = combat.tables
    kind = st.decision.step if st.decision is not None else ""
    return [st.round / ctx.round_cap, *_ONE_HOT.get(kind, _NO_KIND)]


_ONE_HOT = {k: tuple(float(k == j) for j in DECISIONS) for k in DECISIONS}
_NO_KIND = (0.0,) * len(DECISIONS)
