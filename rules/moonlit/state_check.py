"""The invariants moonlit's rules take for granted of a state, checked on a snapshot being restored.

The rules look fighters up by id in `state.fighters` and in the encounter's `Table`, skills and items
by id in the library, zones by name; a restored state that breaks any of these is refused here with
the field named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core import state_check as check
from trpg_arena.rules.moonlit.data import ITEMS, SKILLS, ZONES
from trpg_arena.rules.moonlit.state import MoonState, PendingAttack

if TYPE_CHECKING:
    from collections.abc import Collection

    from trpg_arena.rules.moonlit.state import MoonCombat

FIGHTER_STATES = frozenset({"absent", "acted", "dead", "fled", "incapacitated", "not_acted", "standby"})
ATTACK_STAGES = frozenset({"offense", "limit", "target", "hit", "react", "cover", "interrupt", "damage", "fizzle",
                           "global"})


def check_state(st: MoonState, combat: MoonCombat, steps: Collection[str]) -> None:
    """Raise a located `SnapshotError` for the first contradiction in `st`; `steps` are the state machine's."""
    table = combat.tables
    possible = set(table.ids)
    fighters = st.fighters
    check.keyed("state.fighters", fighters)
    check.one_of("state.step", st.step, steps)
    for cid, f in fighters.items():
        where = check.at("state.fighters", cid)
        check.known(where, cid, possible, "combatant of the encounter")
        check.one_of(f"{where}.state", f.state, FIGHTER_STATES)
        if f.zone is not None:
            check.one_of(f"{where}.zone", f.zone, ZONES)
        # AP may fall below 0: standby delays and covering are paid whatever is left (MOON-8.5, 14.1)
        for name in ("tp", "poison"):
            check.in_range(f"{where}.{name}", getattr(f, name), 0)
        if f.pending is not None:
            _check_attack(f"{where}.pending", f.pending, fighters, blank_skill=False)
        for i, e in enumerate(f.effects):
            # a lasting effect is keyed by the skill or item that gave it (MOON-14.2, 14.4), not by a combatant
            check.known(f"{check.at(f'{where}.effects', i)}.source", e.source, SKILLS.keys() | ITEMS.keys(),
                        "skill or item")
        for name in ("used_round", "used_combat"):
            for sid in getattr(f, name):
                check.known(check.at(f"{where}.{name}", sid), sid, SKILLS, "skill")
        for iid in f.items:
            check.known(check.at(f"{where}.items", iid), iid, ITEMS, "item")
        check.none_or_known(f"{where}.summon_skill", f.summon_skill, SKILLS, "skill")
    check.all_known("state.order", st.order, fighters)
    check.all_known("state.queue", st.queue, fighters)
    check.index_of("state.qpos", st.qpos, st.queue)
    check.none_or_known("state.actor", st.actor, fighters)
    check.all_known("state.vanish_later", st.vanish_later, fighters)
    check.in_range("state.downed", st.downed, 0, len(fighters))
    a = st.atk
    if a is not None:
        check.known("state.atk.attacker", a.attacker, fighters)
        check.one_of("state.atk.stage", a.stage, ATTACK_STAGES)
        _check_attack("state.atk.decl", a.decl, fighters, blank_skill=a.stage == "fizzle")
        check.in_range("state.atk.ti", a.ti, 0)  # targets can drop out under the cursor
        for name in ("reaction", "dodge_skill", "checks", "cover", "reductions"):
            for cid in getattr(a, name):
                check.known(check.at(f"state.atk.{name}", cid), cid, fighters)
        for cid, coverer in a.cover.items():
            check.known(check.at("state.atk.cover", cid), coverer, fighters)
        for cid, skill in a.dodge_skill.items():
            check.known(check.at("state.atk.dodge_skill", cid), skill, SKILLS, "skill")
        for name in ("hits", "counters", "countered", "offered"):
            check.all_known(f"state.atk.{name}", getattr(a, name), fighters)


def _check_attack(where: str, d: PendingAttack, fighters: Collection[str], *, blank_skill: bool) -> None:
    """A declared attack: its skill and offense skills exist, its targets are fighters, its zone a zone."""
    if d.skill or not blank_skill:
        check.known(f"{where}.skill", d.skill, SKILLS, "skill")
    check.all_known(f"{where}.offense", d.offense, SKILLS, "skill")
    check.all_known(f"{where}.targets", d.targets, fighters)
    if d.zone is not None:
        check.one_of(f"{where}.zone", d.zone, ZONES)
