"""Static facts of one encounter, compiled once per content: item ids, derived ratings, defaults, the board."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from trpg_arena.rules.core.battlefield import Battlefield
from trpg_arena.rules.reincarnator.board import Board
from trpg_arena.rules.reincarnator.encounter import ReincarnatorEncounter
from trpg_arena.rules.reincarnator.model import CombatantSpec, ItemSpec, SpellSpec, VehicleSpec

DEFAULT_HS = {"thrown": 1, "object": 1, "consumable": 1, "cluster": 1, "bow": 3, "crossbow": 3, "firearm": 5,
              "launcher": 5, "gauss": 8}


def es(value: int, enabled: bool = True) -> int:
    """Attribute extra successes (REI-3.3): 1 at 6, +1 per 5 more."""
    if not enabled or value < 6:
        return 0
    return 1 + (value - 6) // 5


@dataclass
class Static:
    """Per-encounter constants derived from the encounter (never mutated after building)."""

    enc: ReincarnatorEncounter
    board: Board  # the battlefield on the kernel grid (section 5)
    specs: dict[str, CombatantSpec] = field(default_factory=dict)
    roster: list[str] = field(default_factory=list)
    items: dict[str, ItemSpec] = field(default_factory=dict)  # uid -> definition
    item_owner: dict[str, str | None] = field(default_factory=dict)
    natural: dict[str, dict[str, ItemSpec]] = field(default_factory=dict)
    spells: dict[str, dict[str, SpellSpec]] = field(default_factory=dict)
    vehicles: dict[str, VehicleSpec] = field(default_factory=dict)
    vweapon_owner: dict[str, str] = field(default_factory=dict)
    speed: dict[str, int] = field(default_factory=dict)
    max_health: dict[str, int] = field(default_factory=dict)
    base_init: dict[str, int] = field(default_factory=dict)
    trick: dict[str, int] = field(default_factory=dict)
    acro: dict[str, int] = field(default_factory=dict)
    reflex_step: dict[str, int] = field(default_factory=dict)
    reinforce: dict[int, list[str]] = field(default_factory=dict)
    memo: dict[Any, Any] = field(default_factory=dict)  # derived constants filled on first use (mode_of)

    def weapon(self, cid: str, wid: str) -> ItemSpec | None:
        """A natural weapon of `cid` or an item by uid."""
        nat = self.natural[cid].get(wid)
        return nat if nat is not None else self.items.get(wid)

    def known_weapon(self, cid: str, wid: str) -> ItemSpec:
        """`weapon` for an id that names one (a weapon listed for `cid`); a KeyError otherwise."""
        w = self.weapon(cid, wid)
        if w is None:
            raise KeyError(f"{cid} has no weapon {wid!r}")
        return w

    def name(self, k: str, holder: str) -> str:
        """How `holder` names item `k` in actions: its own id for its own gear, else the unique id."""
        it = self.items.get(k)
        if it is not None and self.item_owner.get(k) == holder:
            return it.id
        return k

    def high_speed(self, item: ItemSpec) -> int:
        """High speed of a weapon (REI-4.11)."""
        if item.high_speed is not None:
            return item.high_speed
        return DEFAULT_HS.get(item.kind, 0)


def build_static(enc: ReincarnatorEncounter, battlefield: Battlefield) -> Static:
    """Compute the encounter's static facts (the system's compiled tables, `ReincarnatorSystem.compile`)."""
    st = Static(enc, Board(enc, battlefield))
    opts = enc.options
    specs = enc.all_specs()
    # an item id given once names its item; a repeated one is told apart by its holder (`Static.name`)
    counts = Counter(it.id for group in (*(c.items for c in specs), enc.map.items, *(v.weapons for v in enc.vehicles))
                     for it in group)
    for c in specs:
        st.specs[c.id] = c
        st.roster.append(c.id)
        for it in c.items:
            uid = it.id if counts[it.id] == 1 else f"{c.id}.{it.id}"
            st.items[uid] = it
            st.item_owner[uid] = c.id
        st.natural[c.id] = {w.id: w for w in c.natural_weapons}
        st.spells[c.id] = {s.id: s for s in c.spells}
        a = c.attributes
        st.speed[c.id] = c.speed_m if c.speed_m is not None else a.str + a.dex + 5
        st.max_health[c.id] = c.max_health if c.max_health is not None else a.sta + c.size
        st.base_init[c.id] = c.base_initiative if c.base_initiative is not None else a.dex + a.com
        g = es(a.dex, opts.extra_successes) if opts.es_action_grants else 0
        st.trick[c.id] = c.trick_actions + g  # REI-2.8
        st.acro[c.id] = c.acrobatic_actions + g // 2
        st.reflex_step[c.id] = max((ab.distance_m for ab in c.abilities if ab.kind == "reflex_step"), default=0)
    for i, it in enumerate(enc.map.items):
        uid = it.id if counts[it.id] == 1 else f"map{i}.{it.id}"
        st.items[uid] = it
        st.item_owner[uid] = None
    for v in enc.vehicles:
        st.vehicles[v.id] = v
        for it in v.weapons:
            uid = it.id if counts[it.id] == 1 else f"{v.id}.{it.id}"
            st.items[uid] = it
            st.item_owner[uid] = v.id
            st.vweapon_owner[uid] = v.id
    for r in enc.reinforcements:
        st.reinforce.setdefault(r.round, []).extend(c.id for c in r.combatants)
    return st
