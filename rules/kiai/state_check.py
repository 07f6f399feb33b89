"""The invariants kiai's rules take for granted of a state, checked on a snapshot being restored.

The rules look fighters up by id in `state.fighters` and in the encounter's tables (`Ctx`), index the
turn order with `turn_index`, read hexes from the map's geometry and weapons and abilities by key; a
restored state that breaks any of these is refused here with the field named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core import state_check as check
from trpg_arena.rules.kiai.state import KiaiState

if TYPE_CHECKING:
    from trpg_arena.rules.kiai.state import KiaiCombat

STAGES = frozenset({"round_start", "turn_start", "d1", "d2", "d3", "turn_end", "reattack", "round_end"})
IN_TURN = frozenset({"d1", "d2", "d3", "turn_end"})  # stages at which `turn_index` names the acting fighter
OUT = frozenset({"", "incapacitated", "dead", "fled"})
FRAME_KINDS = frozenset({"strike", "feint", "area", "status"})


def check_state(st: KiaiState, combat: KiaiCombat) -> None:
    """Raise a located `SnapshotError` for the first contradiction in `st`."""
    ctx = combat.tables
    bf = combat.battlefield
    roster = set(ctx.ids)
    check.keyed("state.fighters", st.fighters)
    for cid in ctx.ids:
        if cid not in st.fighters:
            raise check.bad("state.fighters", cid, "is missing: a combatant of the encounter has no state")
    for cid, f in st.fighters.items():
        where = check.at("state.fighters", cid)
        check.known(where, cid, roster, "combatant of the encounter")
        check.on_board(f"{where}.hex", f.hex, bf)
        if len(f.wounds) != len(ctx.boxes):
            raise check.bad(f"{where}.wounds", f.wounds, f"must hold {len(ctx.boxes)} counts")
        for level, n in enumerate(f.wounds):
            check.in_range(check.at(f"{where}.wounds", level), n, 0)
        check.one_of(f"{where}.out", f.out, OUT)
        for hand in ("main", "off"):
            check.optional_known(f"{where}.{hand}", getattr(f, hand), ctx.weapons, "weapon of this encounter")
        check.all_known(f"{where}.carried", f.carried, ctx.weapons, "weapon of this encounter")
        for i, cond in enumerate(f.conds):
            check.optional_known(f"{check.at(f'{where}.conds', i)}.source", cond.source, roster)
        check.in_range(f"{where}.chain_k", f.chain_k, 0)
    check.all_known("state.order", st.order, roster)
    check.unique("state.order", st.order)
    check.one_of("state.stage", st.stage, STAGES)
    if st.stage in IN_TURN:  # past the end is only the end of the round, between turns
        check.index_of("state.turn_index", st.turn_index, st.order, end_ok=False)
    check.in_range("state.turn_index", st.turn_index, 0)
    if st.stage in IN_TURN and not st.order:
        raise check.bad("state.order", st.order, f"is empty during a turn (stage {st.stage!r})")
    check.in_range("state.reattack_index", st.reattack_index, 0)
    for i, fr in enumerate(st.stack):
        where = check.at("state.stack", i)
        check.one_of(f"{where}.kind", fr.kind, FRAME_KINDS)
        check.known(f"{where}.attacker", fr.attacker, roster)
        check.optional_known(f"{where}.target", fr.target, roster)
        check.all_known(f"{where}.targets", fr.targets, roster)
        check.all_known(f"{where}.hits", [cid for cid, _ in fr.hits], roster)
        check.optional_known(f"{where}.weapon", fr.weapon, ctx.weapons, "weapon of this encounter")
        if fr.ability:
            check.known(f"{where}.ability", fr.ability, ctx.abilities.get(fr.attacker, {}), "ability of the attacker")
        check.on_board(f"{where}.center", fr.center, bf)
        check.in_range(f"{where}.index", fr.index, 0)
    for i, (place, key) in enumerate(st.ground):
        check.on_board(f"state.ground[{i}][0]", place, bf, none_ok=False)
        check.known(f"state.ground[{i}][1]", key, ctx.weapons, "weapon of this encounter")
