"""What a GM may edit of a moonlit combatant mid-fight (`core.edits`): HP, TP, AP, conditions, zone; take it out.

HP runs from 0 to the current maximum (MOON-12.1 may have lowered it); 0 puts the combatant down as
damage would (MOON-11.2: incapacitated, a summon vanishes, with no death_rebirth: the GM decided), and
HP above 0 revives an incapacitated one as healing does (MOON-11.4). AP runs from 0 to the most anyone
of the encounter can hold, the top of the action catalogue's ``delay`` options (MOON-6.3 offers 1 .. AP-1,
so a larger AP would offer delays the env cannot name); AP 0 for a `not_acted` combatant, once AP are
rolled, ends its round's turn as any drop to 0 does (MOON-2.7). Taken out, a combatant counts as fled
(MOON-4.3) and its summons vanish.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.edits import EditError, EditField, Editor
from trpg_arena.rules.moonlit.data import ZONES
from trpg_arena.rules.moonlit.fighters import (
    GONE,
    check_end,
    end_turn_at_zero_ap,
    fall,
    set_state,
    vanish_summons_of,
)
from trpg_arena.rules.moonlit.verbs import Condition

if TYPE_CHECKING:
    from trpg_arena.rules.moonlit.state import Fighter, MoonCombat

# the on/off conditions (MOON-13); poison stacks
FLAGS = (Condition.PARALYSIS, Condition.BIND, Condition.TRANCE, Condition.BAPTISM)


class MoonlitEditor(Editor):
    """Moonlit's edit hook."""

    place_key = "zone"

    def fields(self, combat: MoonCombat, cid: str) -> list[EditField]:
        """The fields the rules let a GM edit now."""
        f = combat.state.fighters[cid]
        s = combat.tables.stats[cid]
        if f.state in GONE:
            return []  # out of play: nothing of it is read by the rules any more
        top = combat.tables.delay_bound + 1  # the highest AP whose delays the catalogue holds (MOON-6.3)
        out = [EditField("hp", "int", f.hp, "HP", 0, f.max_hp, help="0 puts it down"),
               EditField("tp", "int", f.tp, "TP", 0, s.max_tp),
               EditField("ap", "int", f.ap, "AP", 0, top,
                         help=f"action points this round; {top} is the most anyone in this encounter can hold"),
               EditField("poison", "int", f.poison, "poison", 0, 99, help="stacks (MOON-13.2)")]
        out += [EditField(flag, "bool", getattr(f, flag), flag) for flag in FLAGS]
        if f.zone is not None:
            out.append(EditField("zone", "choice", f.zone, "zone", choices=ZONES))
        return out

    def write(self, combat: MoonCombat, cid: str, name: str, value: Any) -> None:
        """Write one checked value, with its consequences under the rules."""
        f = combat.state.fighters[cid]
        if name == "ap":
            _write_ap(combat, f, value)
            return
        if name != "hp":
            setattr(f, name, value)
            return
        before, f.hp = f.hp, value
        if value == 0 and before > 0:
            fall(combat, f, "set to 0 HP by the GM")
        elif value > 0 and f.state == "incapacitated":
            st = combat.state
            if st.phase == "setup":
                # no AP roll: an edit never rolls the dice (the GM sets AP in the same edit if wanted)
                set_state(combat, f, "not_acted", "revived by the GM", "MOON-11.4")
            else:
                set_state(combat, f, "acted", "revived by the GM", "MOON-11.4")

    def takes_out(self, combat: MoonCombat, cid: str, name: str, value: Any) -> bool:
        """Whether the value puts the combatant out of the fight."""
        return name == "hp" and value == 0 and combat.state.fighters[cid].hp > 0

    def remove(self, combat: MoonCombat, cid: str) -> None:
        """Take the combatant out of the fight."""
        f = combat.state.fighters[cid]
        set_state(combat, f, "fled", "taken out by the GM", "MOON-4.3")
        f.zone = None
        f.pending = None
        vanish_summons_of(combat, cid)

    def admit(self, combat: MoonCombat, data: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
        """An arrival (MOON-4.2) at the next round, in its zone."""
        data["combatants"] = [*data.get("combatants", []), spec]
        data["arrivals"] = [*data.get("arrivals", []),
                            {"round": combat.state.round + 1, "combatant": spec.get("id"), "zone": spec.get("zone")}]
        return data

    def join(self, combat: MoonCombat, fresh: Any, cid: str) -> None:
        """Absent until its arrival's entry step puts it in its zone and the roster."""
        combat.state.fighters[cid] = fresh.fighters[cid]

    def busy(self, combat: MoonCombat) -> str | None:
        """The procedure in progress that taking someone out would break."""
        return "an attack is being resolved" if combat.state.atk is not None else None

    def settle(self, combat: MoonCombat) -> None:
        """End the combat if a side has nobody left."""
        check_end(combat)


def _write_ap(combat: MoonCombat, f: Fighter, value: int) -> None:
    """Set AP with MOON-2.7's consequence; refused where it would end the turn its combatant is choosing now."""
    st = combat.state
    ends_turn = f.state == "not_acted" and value <= 0 and st.ap_rolled
    if ends_turn and st.phase == "main" and st.decision is not None and st.decision.actor == f.id:
        raise EditError(f"{f.id} is deciding now: AP {value} would end its turn at once (MOON-2.7); "
                        "set it once the decision is another's", where="changes.ap")
    f.ap = value
    end_turn_at_zero_ap(combat, f, f"AP set to {value} by the GM")
