"""The invariants investigator's rules take for granted of a state, checked on a snapshot being restored.

The rules find a fighter by its roster index (`Setup.idx`), read squares from the board's bitboard and
weapon templates by id; a restored state that breaks any of these is refused here with the field named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core import state_check as check
from trpg_arena.rules.investigator.compiled import Setup
from trpg_arena.rules.investigator.state import InvState, Item

if TYPE_CHECKING:
    from trpg_arena.rules.investigator.state import InvCombat

FRAME_KINDS = frozenset({"action", "window", "attack"})
ITEM_KINDS = frozenset({"weapon", "ammo", "material"})
# the rolls a technique's bonus can apply to (the `bonus_to` of a technique in the encounter model)
BONUS_ROLLS = frozenset({"shoot", "throw", "melee", "maneuver", "dodge", "fight_back", "first_aid"})


def check_state(st: InvState, combat: InvCombat) -> None:
    """Raise a located `SnapshotError` for the first contradiction in `st`."""
    setup = combat.tables
    bf = combat.battlefield
    ids = setup.ids
    if len(st.fighters) != len(ids):
        raise check.bad("state.fighters", len(st.fighters), f"fighters do not match the roster's {len(ids)}")
    for i, (f, cid) in enumerate(zip(st.fighters, ids)):
        where = check.at("state.fighters", i)
        if f.id != cid:  # the rules find a fighter by its place in the roster
            raise check.bad(f"{where}.id", f.id, f"is not the roster's {cid!r} at that place")
        check.on_board(f"{where}.pos", f.pos, bf)
        for name in ("standard_used", "steps_this_turn", "move_spent", "channel_done", "defenses"):
            check.in_range(f"{where}.{name}", getattr(f, name), 0)
        check.all_known(f"{where}.melee_attackers", f.melee_attackers, setup.idx)
        for k, kind in enumerate(f.bonus_to or []):  # a technique's bonus names kinds of roll, not fighters
            check.one_of(check.at(f"{where}.bonus_to", k), kind, BONUS_ROLLS)
        _check_weapons(setup, f"{where}.weapons", f.weapons)
        if f.wielded != "unarmed" and f.weapon(f.wielded) is None:
            raise check.bad(f"{where}.wielded", f.wielded, "is no weapon this fighter carries")
    check.all_known("state.order", st.order, setup.idx)
    check.all_known("state.pass_order", st.pass_order, setup.idx)
    check.in_range("state.cursor", st.cursor, 0)  # past the end means the pass is over
    check.optional_known("state.turn_actor", st.turn_actor, setup.idx)
    if st.start_at:
        check.known("state.start_at", st.start_at, st.pass_order, "combatant of the pass order")
    check.in_range("state.turn_actions", st.turn_actions, 0)
    for i, fr in enumerate(st.stack):
        where = check.at("state.stack", i)
        check.one_of(f"{where}.kind", fr.kind, FRAME_KINDS)
        check.known(f"{where}.actor", fr.actor, setup.idx)
        for name in ("sdest", "dest", "src"):
            check.on_board(f"{where}.{name}", getattr(fr, name), bf)
        for j, cell in enumerate(fr.path):
            check.on_board(check.at(f"{where}.path", j), cell, bf, none_ok=False)
        check.in_range(f"{where}.index", fr.index, 0)
        check.in_range(f"{where}.shots", fr.shots, 0)
    for i, g in enumerate(st.ground):
        check.on_board(f"state.ground[{i}].pos", g.pos, bf, none_ok=False)
        _check_weapons(setup, f"state.ground[{i}].item", [g.item])


def _check_weapons(setup: Setup, where: str, items: list[Item]) -> None:
    """Carried items (`where` is a list field) or one ground item (`where` ends in ``.item``)."""
    for j, it in enumerate(items):
        here = where if where.endswith(".item") else check.at(where, j)
        check.one_of(f"{here}.kind", it.kind, ITEM_KINDS)
        if it.kind == "weapon":
            check.known(f"{here}.template", it.template, setup.weapons, "weapon of this encounter")
        check.in_range(f"{here}.loaded", it.loaded, 0)
        check.in_range(f"{here}.count", it.count, 0)
