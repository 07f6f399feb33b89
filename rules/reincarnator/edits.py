"""What a GM may edit of a reincarnator combatant mid-fight (`core.edits`): its health track, conditions, cell.

The health track holds lethal and bashing points up to the maximum health together (REI-3.10); the
status follows from it as damage would set it (active, unconscious, dying), and a track cleared below the
maximum brings an unconscious or dying fighter back. Prone, crouching and hidden are switched directly.
A fighter in a vehicle or a grapple is not moved by hand. Taken out, a fighter leaves the location as
REI-2.15 has it (it gets out of its vehicle, grapples end, scene effects end).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.edits import EditError, EditField, Editor, free_places
from trpg_arena.rules.reincarnator.conditions import (
    INCAPACITATED,
    check_cover_sources,
    end_all_grapples,
    end_effects,
    in_grapple,
    on_incapacitated,
    status_of,
)
from trpg_arena.rules.reincarnator.model import CombatantSpec
from trpg_arena.rules.reincarnator.turns import check_end
from trpg_arena.rules.reincarnator.verbs import Condition

if TYPE_CHECKING:
    from trpg_arena.rules.reincarnator.state import ReiCombat

FLAGS = (Condition.PRONE, Condition.CROUCHING, Condition.HIDDEN)


class ReincarnatorEditor(Editor):
    """Reincarnator's edit hook."""

    removed_word = "is taken out (left the location)"

    def fields(self, combat: ReiCombat, cid: str) -> list[EditField]:
        """The fields the rules let a GM edit now."""
        state = combat.state
        f = state.fighters[cid]
        mx = combat.tables.max_health[cid]
        if f.status in ("dead", "fled", "reserve"):
            return []
        out = [EditField("lethal", "int", f.lethal, "lethal damage", 0, mx,
                         help=f"with bashing at most {mx}; a full track puts it down"),
               EditField("bashing", "int", f.bashing, "bashing damage", 0, mx,
                         help=f"with lethal at most {mx}")]
        out += [EditField(flag, "bool", getattr(f, flag), flag) for flag in FLAGS]
        if f.cell is not None and f.in_vehicle is None and not in_grapple(state, cid):
            out.append(EditField("cell", "place", f.cell, "cell", choices=free_places(combat, cid),
                                 help="a free cell that is no wall or object"))
        return out

    def write(self, combat: ReiCombat, cid: str, name: str, value: Any) -> None:
        """Write one checked value, with its consequences under the rules."""
        f = combat.state.fighters[cid]
        if name not in ("lethal", "bashing"):
            setattr(f, name, value)
            if name == "cell":
                check_cover_sources(combat)
            return
        setattr(f, name, value)
        mx = combat.tables.max_health[cid]
        if f.lethal + f.bashing > mx:
            raise EditError(f"{cid}'s lethal {f.lethal} and bashing {f.bashing} exceed its health {mx}",
                            where=f"changes.{name}")
        new = status_of(f.lethal, f.bashing, f.overkill, mx)
        if new != f.status and f.status in INCAPACITATED + ("active",):
            was_active = f.status == "active"
            f.status = new
            combat.emit("status_changed", f"{cid} is {new} (set by the GM)", actor=cid, rule="REI-3.10", status=new)
            if was_active:
                on_incapacitated(combat, cid)

    def takes_out(self, combat: ReiCombat, cid: str, name: str, value: Any) -> bool:
        """Whether the value puts the combatant out of the fight."""
        f = combat.state.fighters[cid]
        if name not in ("lethal", "bashing") or f.status != "active":
            return False
        other = f.bashing if name == "lethal" else f.lethal
        return value + other >= combat.tables.max_health[cid]

    def remove(self, combat: ReiCombat, cid: str) -> None:
        """Take the combatant out of the fight."""
        f = combat.state.fighters[cid]
        vehicle = combat.state.vehicles.get(f.in_vehicle or "")
        if vehicle is not None and vehicle.driver == cid:  # it leaves the vehicle first, as getting out does
            vehicle.driver, vehicle.side = None, None
        f.in_vehicle = None
        end_all_grapples(combat, cid, "left")
        f.status = "fled"
        combat.emit("status_changed", f"{cid} leaves the battlefield (taken out by the GM)", actor=cid,
                    rule="REI-2.15", status="fled")
        end_effects(combat, cid, ("scene",), "scene_change")
        f.cell = None
        check_cover_sources(combat)

    def admit(self, combat: ReiCombat, data: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
        """A newcomer joining at the start of the next round, on a cell nobody holds (a body keeps its cell).

        Added in the surprise round (round 0, REI-1.1) it is one of the combatants, rolling round 1's initiative
        with everyone; added later it is a reinforcement (REI-2.5) of the next round. A copy of a vehicle's
        occupant rides in the vehicle, unless it is given a cell of its own: then it stands there.
        """
        _known_fields(spec)
        spec = _out_of_vehicle(data, spec)
        cell = spec.get("position")
        if isinstance(cell, list) and not spec.get("in_vehicle"):  # a copy stands where its original stands
            # a body keeps its cell (passable, never an end), so it holds it as one standing does
            holder = next((v.id for v in combat.combatants if v.node is not None and list(v.node) == cell), None)
            if holder is not None:  # as kiai refuses a hex taken twice, and `free_places` a move onto one
                raise EditError(f"cell {','.join(map(str, cell))} is already taken by {holder}: give the new "
                                "combatant a free cell", where="add.position")
        if combat.state.round < 1:  # reinforcements join from round 2 on (REI-2.5): round 1's roll is still to come
            data["combatants"] = [*data.get("combatants", []), spec]
        else:
            data["reinforcements"] = [*data.get("reinforcements", []),
                                      {"round": combat.state.round + 1, "combatants": [spec]}]
        return data

    def join(self, combat: ReiCombat, fresh: Any, cid: str) -> None:
        """In reserve with its gear until its round starts; then it rolls initiative and joins (REI-2.5)."""
        state = combat.state
        _rename_items(combat, cid)
        state.fighters[cid] = fresh.fighters[cid]
        for iid, item in fresh.items.items():
            if iid not in state.items:
                state.items[iid] = item

    def busy(self, combat: ReiCombat) -> str | None:
        """The procedure in progress that taking someone out would break."""
        return "an attack or another action is being resolved" if combat.state.pending else None

    def settle(self, combat: ReiCombat) -> None:
        """End the combat if a side has nobody left."""
        check_end(combat)


PLACE = "cell"  # what the edit fields call a fighter's place (an encounter's entry says ``position``)
PLACE_WORDS = frozenset({"hex", "pos", "zone", "square", "place", "at"})  # other systems' or a GM's words for one


def _known_fields(spec: dict[str, Any]) -> None:
    """Refuse a field no reincarnator combatant has, naming it (another system's place word says which is this one's).

    Checked first: a copy left on its original's cell would otherwise be refused for that, the field unnamed.
    """
    unknown = sorted(set(spec) - set(CombatantSpec.model_fields) - {"stat_block", PLACE})
    if unknown:
        name = unknown[0]
        place = f": a fighter's place is '{PLACE}' here, e.g. '{PLACE} 5,5'" if name in PLACE_WORDS else ""
        raise EditError(f"a reincarnator combatant has no field '{name}'{place}", where=f"add.{name}")


def _out_of_vehicle(data: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """`spec` out of its vehicle if it is given a cell other than the one the vehicle starts on (what a copy has)."""
    vehicle = next((v for v in data.get("vehicles", []) if v.get("id") == spec.get("in_vehicle")), None)
    if vehicle is None or spec.get("position") in (None, vehicle.get("position")):
        return spec
    return {k: v for k, v in spec.items() if k != "in_vehicle"}


def _rename_items(combat: ReiCombat, cid: str) -> None:
    """Give the live items the ids the new tables know them by, once newcomer `cid` carries items of the same id.

    An item id given once in an encounter is its item's id; one given twice is told apart by its holder
    (``skulker.knife``, `data.build_static`). A copy of a combatant that carries its own gear (``like:
    skulker``) makes its original's ids repeated: the original's items in the state, and the attack or grapple
    that names one, take the new ids (its holder still calls it ``knife``).
    """
    state, st = combat.state, combat.tables
    renamed = {st.items[uid].id: uid for uid, owner in st.item_owner.items()
               if owner != cid and uid not in state.items and st.items[uid].id in state.items
               and st.items[uid].id not in st.items}
    if not renamed:
        return
    state.items = {renamed.get(uid, uid): item for uid, item in state.items.items()}
    for p in state.pending:
        if p.weapon in renamed and p.weapon not in st.natural.get(p.actor, {}):
            p.weapon = renamed[p.weapon]
    for g in state.grapples:
        if g.with_ in renamed and g.with_ not in st.natural.get(g.holder, {}):
            g.with_ = renamed[g.with_]
