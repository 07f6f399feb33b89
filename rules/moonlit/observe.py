"""Observation features for the env's ``Box`` (the generic part, side/position/hp/able, is added by the env).

Per combatant (`COMBATANT_FEATURES` = 22): state one-hot (not_acted, standby, acted, incapacitated, dead, fled,
absent); AP / 20; TP / max TP; emotion / 50; current max HP / base max HP; poison stacks / 3; paralysis; bind;
trance; baptism; ambush marker (either); holds a pending attack; countering; hit bonus of lasting effects / 4;
zone index / 3 (-1 off the map); is a summon.

Global (`GLOBAL_FEATURES` = 8): round / round cap; phase one-hot (setup, main, end); an attack in progress;
its hit check total / 20; critical; fumble.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.moonlit.data import ZONE_INDEX
from trpg_arena.rules.moonlit.fighters import st_of, tb

if TYPE_CHECKING:
    from trpg_arena.rules.core.combat import Combat

STATES = ("not_acted", "standby", "acted", "incapacitated", "dead", "fled", "absent")
COMBATANT_FEATURES = 22
GLOBAL_FEATURES = 8


def observe_combatant(c: Combat, cid: str) -> list[float]:
    """Features of one combatant, roughly in [-1, 1]."""
    st = st_of(c)
    s = tb(c).stats[cid]
    f = st.fighters[cid]
    out = [1.0 if f.state == x else 0.0 for x in STATES]
    out += [max(-1.0, min(1.0, f.ap / 20)), f.tp / s.max_tp if s.max_tp else 0.0, min(1.0, f.emotion / 50),
            f.max_hp / s.max_hp, min(1.0, f.poison / 3), float(f.paralysis), float(f.bind), float(f.trance),
            float(f.baptism), float(f.mark_ambush or f.mark_escape), float(f.pending is not None),
            float(f.countering), min(1.0, sum(e.value for e in f.effects if e.kind == "hit") / 4),
            ZONE_INDEX[f.zone] / 3 if f.zone is not None else -1.0, float(s.is_summon)]
    return out


def observe_global(c: Combat) -> list[float]:
    """Features of the whole combat."""
    st = st_of(c)
    cap = tb(c).opts.moon_round_cap
    a = st.atk
    hit = a.hit if a is not None else None
    return [min(1.0, st.round / cap), float(st.phase == "setup"), float(st.phase == "main"), float(st.phase == "end"),
            float(a is not None), (hit.total / 20) if hit else 0.0, float(hit.crit) if hit else 0.0,
            float(hit.fumble) if hit else 0.0]
