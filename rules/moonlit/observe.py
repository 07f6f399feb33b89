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
from trpg_arena.rules.moonlit.state import Fighter
from trpg_arena.rules.moonlit.tables import Stats

if TYPE_CHECKING:
    from trpg_arena.rules.moonlit.state import MoonCombat

STATES = ("not_acted", "standby", "acted", "incapacitated", "dead", "fled", "absent")
COMBATANT_FEATURES = 22
GLOBAL_FEATURES = 8


ONE_HOT = {x: [1.0 if x == y else 0.0 for y in STATES] for x in STATES}


def observe_combatants(c: MoonCombat, ids: list[str]) -> list[list[float]]:
    """Features of each combatant, roughly in [-1, 1] (the env clips them), reading tables and state once."""
    stats, fighters = c.tables.stats, c.state.fighters
    return [_row(stats[cid], fighters[cid]) for cid in ids]


def _row(s: Stats, f: Fighter) -> list[float]:
    out = ONE_HOT[f.state][:]
    hit = sum(e.value for e in f.effects if e.kind == "hit") / 4 if f.effects else 0.0
    out += (f.ap / 20, f.tp / s.max_tp if s.max_tp else 0.0, f.emotion / 50, f.max_hp / s.max_hp, f.poison / 3,
            f.paralysis, f.bind, f.trance, f.baptism, bool(f.mark_ambush or f.mark_escape), f.pending is not None,
            f.countering, hit, ZONE_INDEX[f.zone] / 3 if f.zone is not None else -1.0, s.is_summon)
    return out


def observe_global(c: MoonCombat) -> list[float]:
    """Features of the whole combat."""
    st = c.state
    cap = c.tables.opts.moon_round_cap
    a = st.atk
    hit = a.hit if a is not None else None
    return [min(1.0, st.round / cap), float(st.phase == "setup"), float(st.phase == "main"), float(st.phase == "end"),
            float(a is not None), (hit.total / 20) if hit else 0.0, float(hit.crit) if hit else 0.0,
            float(hit.fumble) if hit else 0.0]
