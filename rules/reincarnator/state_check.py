"""The invariants reincarnator's rules take for granted of a state, checked on a snapshot being restored.

The rules look fighters, vehicles and items up by id, index the turn order with `index` and turn cells
into bitboard bits; a restored state that breaks any of these is refused here with the field named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core import state_check as check
from trpg_arena.rules.reincarnator.state import TIERS, ReiState

if TYPE_CHECKING:
    from trpg_arena.rules.reincarnator.state import ReiCombat

STATUSES = frozenset({"active", "unconscious", "dying", "dead", "fled", "reserve"})
ITEM_PLACES = frozenset({"held", "reachable", "stowed", "ground", "gone", "vehicle"})
GRAPPLE_STATES = frozenset({"hold", "pin"})


def check_state(st: ReiState, combat: ReiCombat) -> None:
    """Raise a located `SnapshotError` for the first contradiction in `st`."""
    tables = combat.tables
    bf = combat.battlefield
    fighters, vehicles = st.fighters, st.vehicles
    check.keyed("state.fighters", fighters)
    check.keyed("state.vehicles", vehicles)
    for cid, f in fighters.items():
        where = check.at("state.fighters", cid)
        check.known(where, cid, tables.specs, "combatant of the encounter")
        check.on_board(f"{where}.cell", f.cell, bf)
        check.one_of(f"{where}.status", f.status, STATUSES)
        for name in ("lethal", "bashing", "overkill", "aim_count"):
            check.in_range(f"{where}.{name}", getattr(f, name), 0)
        for tier, n in f.slots.items():
            check.one_of(f"{check.at(f'{where}.slots', tier)} (its key)", tier, TIERS)
            check.in_range(check.at(f"{where}.slots", tier), n, 0)
        check.none_or_known(f"{where}.in_vehicle", f.in_vehicle, vehicles, "vehicle")
        check.none_or_known(f"{where}.aim_target", f.aim_target, fighters.keys() | vehicles.keys())
    for vid, v in vehicles.items():
        where = check.at("state.vehicles", vid)
        check.known(where, vid, tables.vehicles, "vehicle of the encounter")
        check.on_board(f"{where}.cell", v.cell, bf, none_ok=False)
        check.none_or_known(f"{where}.driver", v.driver, fighters)
    for uid, it in st.items.items():
        where = check.at("state.items", uid)
        check.known(where, uid, tables.items, "item of the encounter")
        check.one_of(f"{where}.loc", it.loc, ITEM_PLACES)
        check.none_or_known(f"{where}.holder", it.holder, fighters.keys() | vehicles.keys(), "fighter or vehicle")
        check.on_board(f"{where}.cell", it.cell, bf)
        check.in_range(f"{where}.loaded", it.loaded, 0)
        check.in_range(f"{where}.spares", it.spares, 0)
    for i, g in enumerate(st.grapples):
        where = check.at("state.grapples", i)
        check.known(f"{where}.holder", g.holder, fighters)
        check.known(f"{where}.held", g.held, fighters)
        check.one_of(f"{where}.state", g.state, GRAPPLE_STATES)
    check.all_known("state.order", st.order, fighters)
    check.in_range("state.index", st.index, 0)  # past the end means the round is over
    check.none_or_known("state.actor", st.actor, fighters)
    check.all_known("state.surprise_queue", st.surprise_queue, fighters)
    for i, p in enumerate(st.pending):
        where = check.at("state.pending", i)
        check.known(f"{where}.actor", p.actor, fighters)
        check.on_board(f"{where}.cell", p.cell, bf)
        check.on_board(f"{where}.origin", p.origin, bf)
