"""The round and turn state machine (section 6): initiative, turns, re-attack phase, round cap."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import Termination, shared_decision
from trpg_arena.rules.kiai.abilities import run_area, run_status
from trpg_arena.rules.kiai.conditions import stun_tick, turn_end_tick, turn_start_expiry
from trpg_arena.rules.kiai.context import Ctx
from trpg_arena.rules.kiai.damage import finish
from trpg_arena.rules.kiai.legal import reattack_eligible, reattack_targets, tables_of
from trpg_arena.rules.kiai.state import Frame, KiaiState
from trpg_arena.rules.kiai.strike import run_strike

if TYPE_CHECKING:
    from trpg_arena.rules.kiai.state import KiaiCombat


def run_feint(combat: KiaiCombat, ctx: Ctx, st: KiaiState, fr: Frame) -> None:
    """KIA-14.1: up to three feint strikes; ends at the first failed hit check or landing strike."""
    if fr.step == "after":
        res = st.last
        stop = (res == "miss" or (res == "lands" and not ctx.opts.feint_multiple_hits)
                or st.fighters[fr.attacker].out or st.fighters[fr.target].out)
        if stop or fr.index >= 3:
            st.stack.pop()
            return
    fr.index += 1
    fr.step = "after"
    bonus = 20 if fr.index == fr.bonus_on else 0  # KIA-14.2
    st.stack.append(Frame("strike", "hit", fr.attacker, fr.target, skind="feint",
                          weapon=st.fighters[fr.attacker].main, hit_mod=bonus))


PROMPTS = {"d1": ("D1", "move / main action"), "d2": ("D2", "consecutive attack or end turn"),
           "d3": ("D3", "off-hand attack or end turn")}
RUNNERS = {"strike": run_strike, "feint": run_feint, "area": run_area, "status": run_status}


def initiative(combat: KiaiCombat, ctx: Ctx, st: KiaiState) -> None:
    """KIA-1.1, KIA-1.2, KIA-1.4: 1D10 + initiative + quick attack, in seat order; highest first, then clockwise."""
    T = ctx.tables or tables_of(ctx)
    bonus = T.initiative
    texts = T.initiative_texts
    fighters = st.fighters
    roll = combat.dice.roll
    emit = combat.emit
    recording = combat.recording
    seats = ctx.seat
    ranks = []  # KIA-1.2: (-total, -initiative, seat, seat-order position, id); the position keeps ties stable
    for i, cid in enumerate(ctx.seat_order):
        if fighters[cid].out:
            continue
        ini, quick = bonus[cid]
        die = roll(10, roller=cid, purpose="initiative")
        total = die + ini + quick
        if recording:
            head, mid = texts[cid]
            emit("initiative_rolled", f"{head}{die}{mid}{total}", actor=cid, rule="KIA-1.1", die=die,
                 initiative=ini, quick_attack=quick, total=total)
        ranks.append((-total, -ini, seats[cid], i, cid))
    if ctx.opts.turn_order == "descending":
        order = [r[4] for r in sorted(ranks)]
    else:  # clockwise (seat order) from the highest
        ring = [r[4] for r in ranks]
        i = ring.index(min(ranks)[4])
        order = ring[i:] + ring[:i]
    st.order = order
    emit("turn_order", f"round {st.round} order: {', '.join(order)}", rule="KIA-1.2", order=order)


def current(st: KiaiState) -> str:
    """The combatant whose turn it is."""
    return st.order[st.turn_index]


def advance(combat: KiaiCombat, ctx: Ctx | None = None) -> None:
    """Run until a decision point opens or the combat ends (section 6)."""
    if ctx is None:
        ctx = combat.tables
    st = combat.state
    F = st.fighters
    emit = combat.emit
    stack = st.stack
    while st.outcome is None:
        if stack:
            st.decision = None
            fr = stack[-1]
            RUNNERS[fr.kind](combat, ctx, st, fr)
            if st.decision is not None and st.outcome is None:
                return
            continue
        stage = st.stage
        if stage in PROMPTS:
            cid = st.order[st.turn_index]
            if F[cid].out:  # KIA-24.1: out during its own turn, the turn ends at once
                st.stage = "turn_end"
                continue
            kind, prompt = PROMPTS[stage]
            st.decision = shared_decision(cid, kind, f"{cid}: {prompt}")
            return
        if stage == "turn_start":
            order = st.order
            if st.turn_index >= len(order):
                st.stage = "reattack"
                st.reattack_index = 0
                st.phase = "reattack"
                emit("reattack_phase", f"round {st.round}: re-attack phase", rule="KIA-12.1")
                continue
            cid = order[st.turn_index]
            f = F[cid]
            if f.out:
                st.turn_index += 1
                continue
            st.phase = "turn"
            if f.conds:
                turn_start_expiry(combat, f)
            f.moved = f.main_done = False
            f.chain_k = f.chain_x = 0
            f.chain_passed = f.chain_fumbled = f.chain_all_out = False
            emit("turn_started", (ctx.tables or tables_of(ctx)).turn_texts[cid][0], actor=cid, rule="KIA-24.1")
            st.stage = "turn_end" if f.conds and stun_tick(combat, f) else "d1"
        elif stage == "turn_end":
            cid = st.order[st.turn_index]
            f = F[cid]
            if not f.out and f.conds:
                turn_end_tick(combat, f)
            emit("turn_ended", (ctx.tables or tables_of(ctx)).turn_texts[cid][1], actor=cid, rule="KIA-24.1")
            st.turn_index += 1
            st.stage = "turn_start"
        elif stage == "round_start":
            st.phase = "round"
            for f in F.values():  # KIA-1.5 (1)
                f.attacked = f.parry_used = f.countered = f.ran = False
            emit("round_started", f"round {st.round} starts ({5 * (st.round - 1)} s elapsed)",
                 rule="KIA-1.5", round=st.round, elapsed_seconds=5 * (st.round - 1))
            initiative(combat, ctx, st)
            st.turn_index = 0
            st.stage = "turn_start"
        elif stage == "reattack":
            order = st.order
            while st.reattack_index < len(order):
                f = F[order[st.reattack_index]]
                if reattack_eligible(ctx, st, f) and reattack_targets(ctx, st, f):
                    st.decision = shared_decision(f.id, "P1", f"{f.id}: re-attack or pass")
                    return
                st.reattack_index += 1
            st.stage = "round_end"
        elif stage == "round_end":
            emit("round_ended", f"round {st.round} ends", rule="KIA-1.5", round=st.round)
            if st.round >= ctx.round_cap:  # KIA-25.1
                finish(combat, st, None, Termination.ROUND_CAP)
                return
            st.round += 1
            st.stage = "round_start"
        else:  # pragma: no cover - a rules bug
            raise RuntimeError(f"kiai: unknown stage {stage!r}")
