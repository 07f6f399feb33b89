"""The initial state of a combat: from the roster, or from the encounter's mid-combat `start` section."""

from __future__ import annotations

from trpg_arena.rules.core.encounter import overlay
from trpg_arena.rules.kiai.context import Ctx
from trpg_arena.rules.kiai.model import LEVELS
from trpg_arena.rules.kiai.state import ActiveCondition, Fighter, KiaiState


def _key(cid: str, v: str) -> str:
    return v if "/" in v else f"{cid}/{v}"


def new_state(ctx: Ctx) -> KiaiState:
    """Fighters at their positions with full pools; round 1 before initiative unless `start` says otherwise."""
    enc = ctx.enc
    fighters: dict[str, Fighter] = {}
    for c in enc.combatants:
        main = f"{c.id}/{c.main}" if c.main else ""
        off = f"{c.id}/{c.off_hand}" if c.off_hand else ""
        carried = [f"{c.id}/{w.id}" for w in c.weapons if f"{c.id}/{w.id}" not in (main, off)]
        fighters[c.id] = Fighter(c.id, c.position, c.kiai, c.spirit, main=main, off=off, carried=carried)
    st = KiaiState(fighters=fighters, round=1, stage="round_start", phase="round")
    start = enc.start
    if start is None:
        return st
    st.round = start.round
    for cid, sc in start.combatants.items():
        f = fighters[cid]
        f.wounds = [sc.wounds.get(n, 0) for n in LEVELS]
        overlay(f, sc, "dead", "kiai", "spirit", "parry_used", "countered", hex="position",
                attacked="attacked_this_round", ran="ran_this_round")
        if sc.main != "<keep>":
            f.main = _key(cid, sc.main) if sc.main else ""
        if sc.off_hand != "<keep>":
            f.off = _key(cid, sc.off_hand) if sc.off_hand else ""
        if sc.carried is not None:
            f.carried = [_key(cid, k) for k in sc.carried]
        elif sc.main != "<keep>" or sc.off_hand != "<keep>":
            own = [f"{cid}/{w.id}" for w in ctx.spec[cid].weapons]
            f.carried = [k for k in own if k not in (f.main, f.off)]
        f.conds = [ActiveCondition(c.type, c.source or "", c.n, c.mode or "") for c in sc.conditions]
        if f.dead:
            f.out = "dead"
        elif f.wounds[3]:
            f.out = "incapacitated"
        if sc.fled:
            f.out = "fled"
            f.hex = None
    for g in start.ground:  # a weapon on the ground is in nobody's hands
        st.ground.append(((g.hex[0], g.hex[1]), g.weapon))
        for f in fighters.values():
            f.main = "" if f.main == g.weapon else f.main
            f.off = "" if f.off == g.weapon else f.off
            f.carried = [k for k in f.carried if k != g.weapon]
    if start.phase == "round_start":
        st.stage = "round_start"
        return st
    order = list(start.order) if start.order else [c for c in ctx.seat_order if not fighters[c].out]
    st.order = order
    if start.phase == "reattack":
        st.stage = "reattack"
        st.phase = "reattack"
        st.turn_index = len(order)
        return st
    st.turn_index = order.index(start.current) if start.current else 0
    st.stage = "turn_start"
    st.phase = "turn"
    return st
