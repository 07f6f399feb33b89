"""What a GM may edit of a kiai combatant mid-fight (`core.edits`): wound boxes, kiai and spirit, conditions, hex.

Wounds are edited box by box on the wound track (KIA-7.5: light, moderate, serious, mortal, each up to the
boxes the options give). A mortal wound puts the fighter out as incapacitated (KIA-7.6); clearing the
mortal box of an incapacitated fighter brings it back (refused while another stands on its hex: section 5,
one fighter a hex). Taken out, a fighter counts as fled
(KIA-24.3) and leaves the map. A condition on it (stunned, running...) can be cleared; none is added by
hand, since its duration and source belong to the rule that set it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.edits import EditError, EditField, Editor, free_places
from trpg_arena.rules.kiai.checks import status_index
from trpg_arena.rules.kiai.context import LEVEL_NAMES
from trpg_arena.rules.kiai.damage import check_end
from trpg_arena.rules.kiai.verbs import Condition

if TYPE_CHECKING:
    from trpg_arena.rules.kiai.state import KiaiCombat


# the rule that sets each condition (section 8), which a GM's clearing cites
CONDITION_RULES: dict[str, str] = {
    Condition.STUNNED: "KIA-23.3", Condition.INTIMIDATED: "KIA-23.3", Condition.DECEIVED: "KIA-23.3",
    Condition.EXPOSED_ALL_OUT: "KIA-13.1", Condition.EXPOSED_CHARGE: "KIA-17.3", Condition.RUNNING: "KIA-8.2",
    Condition.CONCENTRATING: "KIA-20.1",
}


class KiaiEditor(Editor):
    """Kiai's edit hook."""

    def fields(self, combat: KiaiCombat, cid: str) -> list[EditField]:
        """The fields the rules let a GM edit now."""
        f = combat.state.fighters[cid]
        ctx = combat.tables
        spec = ctx.spec[cid]
        if f.dead or f.out == "fled":
            return []
        out = [EditField(f"wounds_{LEVEL_NAMES[i]}", "int", f.wounds[i], f"{LEVEL_NAMES[i]} wounds", 0, ctx.boxes[i],
                         help="any puts it out" if i == 3 else "")
               for i in range(4)]
        out += [EditField("kiai", "int", f.kiai, "kiai", 0, max(spec.kiai, f.kiai)),
                EditField("spirit", "int", f.spirit, "spirit", 0, max(spec.spirit, f.spirit))]
        # a condition on it can be cleared (its duration and source are the rules' own, so none is added by hand)
        out += [EditField(f"cond_{ctype}", "bool", True, ctype.replace("_", " "), help="untick to clear it")
                for ctype in dict.fromkeys(c.type for c in f.conds)]
        if f.hex is not None:
            out.append(EditField("hex", "place", f.hex, "hex", choices=free_places(combat, cid),
                                 help="a free, open hex"))
        return out

    def write(self, combat: KiaiCombat, cid: str, name: str, value: Any) -> None:
        """Write one checked value, with its consequences under the rules."""
        f = combat.state.fighters[cid]
        if name == "hex":
            f.hex = value
            return
        if name in ("kiai", "spirit"):
            setattr(f, name, value)
            return
        if name.startswith("cond_"):
            if value:
                raise EditError(f"{cid}'s conditions can only be cleared by hand", where=f"changes.{name}")
            ctype = name.removeprefix("cond_")
            for c in [c for c in f.conds if c.type == ctype]:
                f.conds.remove(c)
            combat.emit("condition_removed", f"{cid} is no longer {ctype} (cleared by the GM)", actor=cid,
                        rule=CONDITION_RULES[ctype], condition=ctype)
            return
        f.wounds[LEVEL_NAMES.index(name.removeprefix("wounds_"))] = value
        level = status_index(f)
        if level >= 3 and not f.out:  # KIA-7.6
            f.out = "incapacitated"
            combat.emit("out", f"{cid} is incapacitated (set by the GM)", actor=cid, rule="KIA-7.6",
                        status="incapacitated")
        elif level < 3 and f.out == "incapacitated":
            here = f.hex
            holder = next((g.id for g in combat.state.fighters.values() if g is not f and g.hex == here), None)
            if here is not None and holder is not None:
                raise EditError(f"{cid} cannot be brought back: {holder} stands on its hex {here[0]},{here[1]} "
                                f"(one fighter a hex); move {holder} first", where=f"changes.{name}")
            f.out = ""
            combat.emit("back", f"{cid} is back in the fight (set by the GM)", actor=cid, rule="KIA-7.6")

    def takes_out(self, combat: KiaiCombat, cid: str, name: str, value: Any) -> bool:
        """Whether the value puts the combatant out of the fight."""
        f = combat.state.fighters[cid]
        return name == "wounds_mortal" and value > 0 and not f.out

    def remove(self, combat: KiaiCombat, cid: str) -> None:
        """Take the combatant out of the fight."""
        f = combat.state.fighters[cid]
        f.out = "fled"
        f.hex = None
        combat.emit("fled", f"{cid} leaves the battle (taken out by the GM)", actor=cid, rule="KIA-24.3")

    def admit(self, combat: KiaiCombat, data: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
        """Appended, at the table's next free seat (KIA-1.2's clockwise order) when its own is taken."""
        listed = data.get("combatants", [])
        seats = [c.get("seat") if c.get("seat") is not None else i for i, c in enumerate(listed)]
        if spec.get("seat") is None or spec.get("seat") in seats:
            spec = {**spec, "seat": max([len(listed) - 1, *(x for x in seats if isinstance(x, int))]) + 1}
        data["combatants"] = [*listed, spec]
        return data

    def join(self, combat: KiaiCombat, fresh: Any, cid: str) -> None:
        """On its hex (a free one), in the turn order from the next round's initiative (KIA-1.1)."""
        f = fresh.fighters[cid]
        st = combat.state
        if any(g.hex == f.hex for g in st.fighters.values()):  # a fallen fighter's hex too: it keeps it (section 5)
            raise EditError(f"hex {f.hex[0]},{f.hex[1]} is taken: put {cid} on a free one", where="add.position")
        st.fighters[cid] = f

    def busy(self, combat: KiaiCombat) -> str | None:
        """The procedure in progress that taking someone out would break."""
        return "a strike is being resolved" if combat.state.stack else None

    def settle(self, combat: KiaiCombat) -> None:
        """End the combat if a side has nobody left."""
        check_end(combat, combat.tables, combat.state)
