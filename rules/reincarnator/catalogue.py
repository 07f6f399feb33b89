"""The action catalogue (the env's action space) and GM sentences for actions.

Layout, in this fixed order (every list deduplicated, combatant ids in roster order, cells row by row):
``end_turn``, ``pass``, ``grapple_resist`` x {break, escape}; per-target verbs (``delay``, ``release_grapple``,
``aim``, ``pin``, ``enter_vehicle``, ``take_cover``); per-item verbs; no-parameter verbs; per-cell movement
verbs (only those the map and roster make possible); doors; cover objects; attacks (target x weapon x
flags, explosive cells); grapple verbs; charges and crushes with (dx, dy) offsets up to the longest reach.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.compiled import compiled
from trpg_arena.rules.core.values import Action, remember
from trpg_arena.rules.reincarnator.data import Static
from trpg_arena.rules.reincarnator.encounter import ReincarnatorEncounter
from trpg_arena.rules.reincarnator.interned import act
from trpg_arena.rules.reincarnator.legal import offsets
from trpg_arena.rules.reincarnator.masks import opt
from trpg_arena.rules.reincarnator.verbs import Verb

if TYPE_CHECKING:
    from trpg_arena.rules.reincarnator.state import ReiCombat

INTO = ((), ("careful",), ("random",))
# verbs whose dest is the cell they act at (a set built once: an enum member is a slow class attribute on 3.11)
AT_A_CELL = frozenset((Verb.OPEN_DOOR, Verb.CLOSE_DOOR, Verb.RANGED_ATTACK, Verb.THROW, Verb.ACRO_FIRE))
TAKE_COVER, VEHICLE_CRUSH = Verb.TAKE_COVER, Verb.VEHICLE_CRUSH
# a crush's option is its speed (REI-4.13), worded as one
CRUSH_SPEEDS = {"normal": "at normal speed", "fast": "at accelerated speed", "acro": "with acrobatic driving"}
_SENTENCES: dict[Action, str] = {}  # `describe_action` of actions whose sentence does not read the state
SENTENCES_KEPT = 50_000


def catalogue(enc: ReincarnatorEncounter) -> list[Action]:
    """Every action that can ever be legal in `enc`, in a fixed order (built once per encounter content)."""
    return list(compiled(enc).derive("catalogue", lambda: tuple(_build(enc))))


def _build(enc: ReincarnatorEncounter) -> list[Action]:  # noqa: C901 - one block per verb family
    built = compiled(enc)
    st: Static = built.tables
    field = st.board
    ids = list(st.roster)
    targets = ids + list(st.vehicles)
    items = [k for k in st.items if k not in st.vweapon_owner]
    by_name = {k: st.items[k] for k in st.items}
    for k in list(items):  # owners name their own gear by its plain id (`Static.name`)
        own = st.items[k].id
        if own != k and own not in items:
            items.append(own)
            by_name[own] = st.items[k]
    cells = [c for c in field.grid.cells if c not in field.solid]
    naturals = list(dict.fromkeys(w for cid in ids for w in st.natural[cid]))
    melee = naturals + [k for k in items if by_name[k].kind == "melee"]
    ranged = [k for k in items if by_name[k].is_ranged]
    shells = [k for k in ranged if (am := by_name[k].ammo) is not None and am.shell is not None]
    plain_ranged = [k for k in ranged if k not in shells]
    acro = [k for k in ranged if (am := by_name[k].ammo) is not None and am.reload_kind in ("musket", "launcher")]
    blasts = [k for k in items if by_name[k].blast]
    spells = list(dict.fromkeys(s for cid in ids for s in st.spells[cid]))
    out: list[Action] = [act(Verb.END_TURN), act(Verb.PASS), act(Verb.GRAPPLE_RESIST, option="break"),
                         act(Verb.GRAPPLE_RESIST, option="escape")]
    for verb in (Verb.DELAY, Verb.RELEASE_GRAPPLE, Verb.AIM, Verb.PIN, Verb.TAKE_COVER):
        out.extend(act(verb, target=t) for t in ids)
    out.extend(act(Verb.ENTER_VEHICLE, target=v) for v in st.vehicles)
    for verb in (Verb.DROP_ITEM, Verb.CYCLE_BOLT, Verb.CONSUME, Verb.RETRIEVE, Verb.RELOAD, Verb.DRAW,
                 Verb.RELOAD_HEAVY, Verb.PICK_UP, Verb.SHEATHE, Verb.RETRIEVE_STOWED):
        out.extend(act(verb, option=k) for k in items)
    for verb in (Verb.STAND_FROM_CROUCH, Verb.PARRY, Verb.GO_PRONE, Verb.CROUCH, Verb.STAND_FROM_PRONE,
                 Verb.LEAVE_BATTLEFIELD, Verb.ACRO_PARRY, Verb.FULL_DEFENSE):
        out.append(act(verb))
    move_verbs = [Verb.MOVE, Verb.CRAWL, Verb.GRAPPLE_MOVE, Verb.ACRO_MOVE]
    if field.has_climb:
        move_verbs.append(Verb.CLIMB_JUMP)
    hidden = any(st.specs[c].start.hidden for c in ids) or (enc.start is not None and any(
        fs.hidden for fs in enc.start.combatants.values()))
    if hidden:
        move_verbs.append(Verb.STEALTH_WALK)
    if any(st.reflex_step[c] for c in ids):
        move_verbs.append(Verb.REFLEX_STEP)
    if st.vehicles:
        move_verbs += [Verb.DRIVE, Verb.DRIVE_FAST, Verb.ACRO_DRIVE, Verb.EXIT_VEHICLE]
    for verb in move_verbs:
        out.extend(act(verb, dest=c) for c in cells)
    out.extend(act(verb, dest=c) for c in field.door_cells for verb in (Verb.OPEN_DOOR, Verb.CLOSE_DOOR))
    out.extend(act(Verb.TAKE_COVER, dest=c) for c in sorted(field.objects, key=lambda c: (c[1], c[0])))
    # a gun fires as a ranged attack, and one reloaded as a musket or a launcher also as an acrobatic shot
    fire = {k: (Verb.RANGED_ATTACK, Verb.ACRO_FIRE) if k in acro else (Verb.RANGED_ATTACK,) for k in ranged}
    throwable = [k for k in items if not by_name[k].blast]
    for t in targets:
        out.extend(act(Verb.MELEE_ATTACK, target=t, option=o) for w in melee for o in (w, (w, "all_out")))
        out.extend(act(verb, target=t, option=opt(k, *v)) for k in plain_ranged for v in INTO for verb in fire[k])
        out.extend(act(Verb.THROW, target=t, option=(k, attr, *fast, *v)) for k in throwable
                   for attr in ("dex", "str") for v in INTO for fast in ((), ("fast",)))
        out.extend(act(Verb.CAST, target=t, option=opt(s, *v)) for s in spells for v in INTO)
        out.extend(act(Verb.VEHICLE_ATTACK, target=t, option=opt(k, *v)) for k in st.vweapon_owner for v in INTO)
    for c in cells:
        out.extend(act(verb, dest=c, option=k) for k in shells for verb in fire[k])
        out.extend(act(Verb.THROW, dest=c, option=(k, attr)) for k in blasts for attr in ("dex", "str"))
    softs = [k for k in items if by_name[k].soft]
    for t in ids:
        out.extend(act(Verb.BULL_RUSH, target=t, option=o) for w in melee for o in (w, (w, "all_out")))
        out.extend(act(Verb.GRAPPLE, target=t, option=o) for o in (None, "all_out"))
        out.extend(act(Verb.GRAPPLE, target=t, option=o) for k in softs for o in ((k,), (k, "all_out")))
        out.extend(a for w in melee for a in (act(Verb.PIN_STRIKE, target=t, option=w),
                                              act(Verb.PIN_STRIKE, target=t, option=(w, "all_out")),
                                              act(Verb.GRAPPLE_STRIKE, target=t, option=w)))
        out.extend(act(Verb.ESCAPE_GRAPPLE, target=t, option=o) for o in ("break", "escape"))
    reach_of: dict[str, int] = {}
    for w in melee:  # the longest reach any weapon answering to this name can have
        reaches = [it.reach for k, it in st.items.items() if w in (k, it.id)]
        reaches += [st.natural[c][w].reach for c in ids if w in st.natural[c]]
        reach_of[w] = max(reaches + [1])
    out.extend(act(verb, target=t, dest=o, option=w) for verb in (Verb.CHARGE, Verb.ACRO_CHARGE) for t in ids
               for w in melee for o in offsets(reach_of[w]))
    if st.vehicles:
        out.extend(act(Verb.VEHICLE_CRUSH, target=t, dest=o, option=sp) for t in ids for o in offsets(1)
                   for sp in ("normal", "fast", "acro"))
    return list(dict.fromkeys(out))  # each action once, where it first stands


RELATIVE_DEST = (Verb.CHARGE, Verb.ACRO_CHARGE, Verb.VEHICLE_CRUSH)  # verbs whose dest is an offset from the target


def place_of(combat: ReiCombat, a: Action) -> Any:
    """The square `a` ends on (a charge's target square plus its offset), or None."""
    if a.dest is None or a.verb not in RELATIVE_DEST or a.target is None:
        return a.dest

    f = combat.state.fighters.get(a.target)
    if f is None or f.cell is None:
        return None
    return (f.cell[0] + a.dest[0], f.cell[1] + a.dest[1])


def describe_action(combat: ReiCombat, a: Action) -> str:
    """The sentence a GM reads, e.g. ``charge D (end 5,5) with sword``.

    Every decision is logged with its sentence, and only an end cell given from a target (a charge's) reads the
    state: any other action's sentence is kept, by the action.
    """
    if a.dest is not None and a.target is not None and a.verb in RELATIVE_DEST:
        return _sentence(combat, a)
    try:
        known = _SENTENCES.get(a)
    except TypeError:  # an action with a list in it (a caller's, read from JSON) is not kept: worded as it is
        return _sentence(combat, a)
    if known is None:
        known = remember(_SENTENCES, a, _sentence(combat, a), SENTENCES_KEPT)
    return known


def _sentence(combat: ReiCombat, a: Action) -> str:
    parts = [a.verb.replace("_", " ")]
    if a.target is not None:
        parts.append(a.target)
    if a.dest is not None:
        if a.verb in RELATIVE_DEST and a.target is not None:
            end = place_of(combat, a)
            if end is not None:
                parts.append(f"(end {end[0]},{end[1]})")
        elif a.verb == TAKE_COVER:
            parts.append(f"behind the object at {a.dest[0]},{a.dest[1]}")
        elif a.verb in AT_A_CELL:
            parts.append(f"at {a.dest[0]},{a.dest[1]}")
        else:
            parts.append(f"to {a.dest[0]},{a.dest[1]}")
    if a.verb == VEHICLE_CRUSH and a.option in CRUSH_SPEEDS:
        parts.append(CRUSH_SPEEDS[a.option])  # a crush's option is its speed, not a weapon
    elif a.option is not None:
        o = a.option if isinstance(a.option, tuple) else (a.option,)
        parts.append("with " + " ".join(str(x) for x in o))
    return " ".join(parts)
