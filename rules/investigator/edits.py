"""What a GM may edit of an investigator combatant mid-fight (`core.edits`): HP, MP, luck, conditions, square.

HP runs from 0 to the maximum; 0 does what INV-11.5 does, without a roll (the GM decided): with a major
wound the fighter is prone and dying (INV-11.3), without one prone and unconscious; HP 1 or more ends dying
(INV-5.2). Unconscious, prone and a major
wound are switched directly. Taken out, a fighter counts as fled (INV-12.3) and leaves the board.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trpg_arena.rules.core.edits import EditError, EditField, Editor, free_places
from trpg_arena.rules.investigator.damage import add_condition, interrupt_channel, remove_condition
from trpg_arena.rules.investigator.flow import end_check
from trpg_arena.rules.investigator.state import Fighter
from trpg_arena.rules.investigator.verbs import Condition

if TYPE_CHECKING:
    from trpg_arena.rules.investigator.state import InvCombat

FLAGS = (Condition.UNCONSCIOUS, Condition.PRONE, Condition.MAJOR_WOUND)
RULE = "GM edit"


def _fighter(combat: InvCombat, cid: str) -> Fighter:
    return combat.state.fighters[combat.tables.idx[cid]]


def _at_zero(combat: InvCombat, f: Fighter) -> None:
    """INV-11.5 without the POW roll: 0 HP with a major wound is dying (INV-11.3), without one a stable knock-out."""
    if f.major_wound:
        add_condition(combat, f, Condition.PRONE, RULE)
        if not f.dying:
            add_condition(combat, f, Condition.DYING, RULE)
            f.dying_since = combat.state.round
    elif not f.unconscious:
        add_condition(combat, f, Condition.PRONE, RULE)
        add_condition(combat, f, Condition.UNCONSCIOUS, RULE)


def _refuse_mid_action(combat: InvCombat, f: Fighter) -> None:
    """Refuse to move a combatant whose own action is being resolved.

    Its move or step would carry on from the old square (INV-4.5), and its attack or cast was declared there.
    """
    frame = next((fr for fr in combat.state.stack if fr.actor == f.id), None)
    if frame is not None:
        raise EditError(f"{f.id} cannot be moved now: its {frame.verb or frame.kind} is being resolved; move it "
                        "once that is over", where="changes.pos")


class InvestigatorEditor(Editor):
    """Investigator's edit hook."""

    def fields(self, combat: InvCombat, cid: str) -> list[EditField]:
        """The fields the rules let a GM edit now."""
        f = _fighter(combat, cid)
        prof = combat.tables.prof(cid)
        if f.dead or f.fled:
            return []
        out = [EditField("hp", "int", f.hp, "HP", 0, prof.max_hp,
                         help="0 knocks it out (dying with a major wound), 1 or more ends dying"),
               EditField("mp", "int", f.mp, "MP", 0, max(prof.max_mp, f.mp)),
               EditField("luck", "int", f.luck, "luck", 0, 99)]
        out += [EditField(flag, "bool", getattr(f, flag), flag.replace("_", " ")) for flag in FLAGS]
        if f.pos is not None:
            out.append(EditField("pos", "place", f.pos, "square", choices=free_places(combat, cid),
                                 help="a free square that is no wall or obstacle"))
        return out

    def write(self, combat: InvCombat, cid: str, name: str, value: Any) -> None:
        """Write one checked value, with its consequences under the rules."""
        f = _fighter(combat, cid)
        combat.state.dirty = True
        if name == "hp":
            f.hp = value
            if value == 0:
                _at_zero(combat, f)
            if value >= 1 and f.dying:  # INV-5.2
                remove_condition(combat, f, Condition.DYING, RULE)
                f.dying_since = None
        elif name in FLAGS:
            (add_condition if value else remove_condition)(combat, f, name, RULE)
        elif name == "pos":
            _refuse_mid_action(combat, f)
            f.pos = value
        else:
            setattr(f, name, value)

    def takes_out(self, combat: InvCombat, cid: str, name: str, value: Any) -> bool:
        """Whether the value puts the combatant out of the fight."""
        f = _fighter(combat, cid)
        return not f.unconscious and ((name == "hp" and value == 0) or (name == "unconscious" and value is True))

    def remove(self, combat: InvCombat, cid: str) -> None:
        """Take the combatant out of the fight."""
        f = _fighter(combat, cid)
        interrupt_channel(combat, f, "taken out")
        f.fled = True
        f.pos = None
        combat.state.dirty = True
        combat.emit("fled", f"{cid} leaves the battlefield (taken out by the GM)", actor=cid, rule="INV-12.3")

    def join(self, combat: InvCombat, fresh: Any, cid: str) -> None:
        """On its square (a free one); in the initiative order by DEX, after those of equal DEX (no roll)."""
        st = combat.state
        setup = combat.tables
        f = next(x for x in fresh.fighters if x.id == cid)
        if f.pos is not None and any(g.pos == f.pos for g in st.fighters):
            raise EditError(f"square {f.pos[0]},{f.pos[1]} is taken: put {cid} on a free one",
                            where="add.position")
        st.fighters.append(f)  # the encounter lists it last, so its index is the setup's
        dex = setup.prof(cid).dex
        at = max((i + 1 for i, other in enumerate(st.order) if setup.prof(other).dex >= dex), default=0)
        st.order.insert(at, cid)
        st.dirty = True

    def busy(self, combat: InvCombat) -> str | None:
        """The procedure in progress that taking someone out would break."""
        return "an action is being resolved" if combat.state.stack else None

    def settle(self, combat: InvCombat) -> None:
        """End the combat if a side has nobody left."""
        end_check(combat, combat.tables, combat.state)
