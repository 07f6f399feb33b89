"""The turn structure (section 6): scene start, surprise round, initiative, turns, rounds, the end of combat."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import Outcome, Termination, shared_decision
from trpg_arena.rules.core.wording import counted
from trpg_arena.rules.reincarnator.conditions import (
    base_initiative,
    end_effects,
    key_es,
    rating,
    reset_aim,
    wound_penalty,
)
from trpg_arena.rules.reincarnator.pools import roll_pool
from trpg_arena.rules.reincarnator.state import TIERS

if TYPE_CHECKING:
    from collections.abc import Callable

    from trpg_arena.rules.reincarnator.state import ReiCombat

TIER = {t: i for i, t in enumerate(TIERS)}


# --- slots (REI-2.7-2.10) -----------------------------------------------------------------------------
_PLANS: dict[tuple[object, ...], list[str] | None] = {}
_UNPLANNED: list[str] = []  # `_PLANS.get` default, told apart by identity (a plan may be None: unpaid)


def pay_plan(combat: ReiCombat, slots: dict[str, int], parts: tuple[str, ...], exact: bool = False) -> list[str] | None:
    """Slots that pay a cost, highest part first, each with the lowest eligible tier (REI-2.10); None if unpaid."""
    subst = combat.tables.enc.options.tier_substitution and not exact
    key = (slots.get("trick", 0), slots.get("swift", 0), slots.get("move", 0), slots.get("acrobatic", 0),
           slots.get("standard", 0), parts, exact, subst)
    hit = _PLANS.get(key, _UNPLANNED)
    if hit is not _UNPLANNED:
        return None if hit is None else list(hit)
    plan = _plan(slots, parts, exact, subst)
    if len(_PLANS) < 100000:
        _PLANS[key] = plan
    return None if plan is None else list(plan)


def _plan(slots: dict[str, int], parts: tuple[str, ...], exact: bool, subst: bool) -> list[str] | None:
    left = dict(slots)
    used: list[str] = []
    for part in sorted(parts, key=lambda t: -TIER[t]):
        if exact:
            cands: tuple[str, ...] = (part,)
        elif subst:
            cands = TIERS[TIER[part]:]
        else:
            cands = ("trick", "swift") if part == "trick" else (part,)
        for c in cands:
            if left.get(c, 0) > 0:
                left[c] -= 1
                used.append(c)
                break
        else:
            return None
    return used


def pay(combat: ReiCombat, cid: str, parts: tuple[str, ...], exact: bool = False) -> None:
    """Spend the slots of a cost (already known payable) and log each."""
    f = combat.state.fighters[cid]
    used = pay_plan(combat, f.slots, parts, exact)
    assert used is not None, (cid, parts, f.slots)
    for s in used:
        f.slots[s] -= 1
        combat.emit("slot_spent", f"{cid} spends a {s} action", actor=cid, rule="REI-2.10", slot=s)


def fresh_slots(combat: ReiCombat, cid: str) -> dict[str, int]:
    """REI-2.7, 2.8: 1 standard, 1 move, 1 swift, T trick, A acrobatic."""
    st = combat.tables
    return {"trick": st.trick[cid], "swift": 1, "move": 1, "acrobatic": st.acro[cid], "standard": 1}


# --- the end (REI-2.19, section 9) ----------------------------------------------------------------------
def standing(combat: ReiCombat) -> list[str]:
    """Sides with at least one active combatant, in encounter order."""
    state = combat.state
    up = {f.side for f in state.fighters.values() if f.status == "active"}
    return [s for s in _sides(combat) if s in up]


def _sides(combat: ReiCombat) -> tuple[str, ...]:
    """The encounter's sides, in order."""
    memo = combat.tables.memo  # encounters sharing a `Static` have the same roster, hence the same sides
    sides = memo.get("sides")
    if sides is None:
        sides = memo["sides"] = tuple(combat.encounter.sides())
    return sides


def finish(combat: ReiCombat, winner: str | None, term: Termination) -> None:
    """Combat end: a scene change ending every scene effect (REI-0.2 b, 0.3)."""
    state = combat.state
    combat.emit("scene_change", "the combat ends: scene change", rule="REI-0.2", reason="combat_end",
                combatants=list(combat.tables.roster))
    for cid in combat.tables.roster:
        end_effects(combat, cid, ("scene", "combat", "until_turn_start"), "scene_change")
    sides = combat.encounter.sides()
    report = {s: {"active": sum(1 for f in state.fighters.values() if f.side == s and f.status == "active"),
                  "damage_dealt": sum(f.damage_dealt for f in state.fighters.values() if f.side == s)} for s in sides}
    text = f"combat over: side {winner} wins ({term.value})" if winner else f"combat over: draw ({term.value})"
    combat.emit("combat_end", text, rule="REI-2.19", winner=winner, result=winner or "draw",
                reason="timeout" if term == Termination.ROUND_CAP else term.value, sides=report)
    state.outcome = Outcome(winner, term, state.round)
    state.decision = None
    state.pending.clear()
    state.phase = "over"


def check_end(combat: ReiCombat) -> bool:
    """REI-2.19: one side standing wins; none standing is a draw."""
    state = combat.state
    if state.outcome is not None:
        return True
    sides = _sides(combat)
    first = None
    for f in state.fighters.values():  # two sides standing: the usual case, found without listing them
        if f.status == "active" and f.side in sides:
            if first is None:
                first = f.side
            elif f.side != first:
                return False
    up = standing(combat)
    if len(up) > 1:
        return False
    if not up:
        finish(combat, None, Termination.MUTUAL)
        return True
    losers = [f for f in state.fighters.values() if f.side != up[0] and f.status != "reserve"]
    fled = losers and all(f.status == "fled" for f in losers)
    finish(combat, up[0], Termination.FLED if fled else Termination.ELIMINATED)
    return True


# --- initiative (REI-2.1, 2.2, 2.5) ---------------------------------------------------------------------
def roll_initiative(combat: ReiCombat, ids: list[str]) -> list[str]:
    """Roll 1d10 + base for each id in roster order and return them sorted with ties broken (REI-2.1, 2.2)."""
    state = combat.state
    for cid in ids:
        f = state.fighters[cid]
        f.init_d10 = combat.dice.roll(10, roller=cid, purpose="initiative")
        base = base_initiative(combat, cid)
        f.init_total = f.init_d10 + base
        combat.emit("initiative_roll", f"{cid} initiative {f.init_d10} + {base} = "
                    f"{f.init_total}", actor=cid, rule="REI-2.1", d10=f.init_d10, total=f.init_total)
    return sort_with_ties(combat, ids)


def sort_with_ties(combat: ReiCombat, ids: list[str]) -> list[str]:
    """Order by total, tie groups across sides by side dice, within a side by base then roster (REI-2.2)."""
    state = combat.state
    st = combat.tables
    roster = {c: i for i, c in enumerate(st.roster)}
    base = {c: base_initiative(combat, c) for c in ids}  # read once each: the tie-break dice change no effect
    totals = sorted({state.fighters[c].init_total for c in ids}, reverse=True)
    out: list[str] = []
    for tot in totals:
        group = [c for c in ids if state.fighters[c].init_total == tot]
        sides = list(dict.fromkeys(state.fighters[c].side for c in sorted(group, key=lambda c: roster[c])))
        if len(sides) > 1:
            why = f"the initiative tie-break at {tot}, highest first"
            while True:
                faces = {s: combat.dice.roll(10, roller=f"side {s}", purpose=why) for s in sides}
                combat.emit("initiative_tiebreak", "tie at " + str(tot) + ": " + ", ".join(
                    f"{s} {v}" for s, v in faces.items()), rule="REI-2.2", faces=faces)
                if len(set(faces.values())) == len(sides):
                    break
                why = (f"the initiative tie-break at {tot} again: the last dice tied ("
                       + ", ".join(f"{s} {v}" for s, v in faces.items()) + ")")
            sides.sort(key=lambda s: -faces[s])
        for s in sides:
            members = [c for c in group if state.fighters[c].side == s]
            members.sort(key=lambda c: (-base[c], roster[c]))
            out.extend(members)
    return out


def start_initiative(combat: ReiCombat) -> None:
    """REI-2.1, 2.6: everyone active rolls; round 1 begins."""
    state = combat.state
    ids = [c for c in combat.tables.roster if state.fighters[c].status == "active"]
    state.order = roll_initiative(combat, ids)
    combat.emit("initiative_order", "initiative order: " + ", ".join(state.order), rule="REI-2.1",
                order=list(state.order))
    state.round = 0
    state.phase = "round_start"


# --- the loop -------------------------------------------------------------------------------------------
def advance(combat: ReiCombat) -> None:
    """Run the state machine to the next decision point or the end (section 6)."""
    state = combat.state
    for _ in range(10000):
        if state.outcome is not None:
            state.decision = None
            return
        if state.pending:
            return  # a reaction window holds its decision
        if check_end(combat):
            return
        ph = state.phase
        if ph == "turn":
            actor = state.actor or ""
            if state.fighters[actor].status != "active":
                state.phase = "turn_end"  # incapacitated or gone during its own turn (e.g. its own blast)
                continue
            state.decision = shared_decision(actor, "turn", f"{actor}'s turn")
            return
        step = PHASE_STEPS.get(ph)
        if step is None:  # pragma: no cover - defensive
            raise RuntimeError(f"reincarnator: unknown phase {ph}")
        step(combat)
    raise RuntimeError("reincarnator: advance() did not settle")


def combat_start(combat: ReiCombat) -> None:
    """REI-0.6: scene change, pre-combat scene effects end, the combat scene starts; then surprise or initiative."""
    state = combat.state
    st = combat.tables
    combat.emit("scene_change", "the combat begins: scene change", rule="REI-0.2", reason="combat_start",
                combatants=list(st.roster))
    for cid in st.roster:
        end_effects(combat, cid, ("scene",), "scene_change")
    combat.emit("scene_started", "the combat scene starts", rule="REI-0.6", scene="combat")
    sur = st.enc.surprise
    if sur is not None:  # REI-1.1, 1.5: at most one, only now
        amb = sur.ambushers if sur.ambushers is not None else [c for c in st.roster if st.specs[c].side == sur.side]
        amb = [c for c in amb if state.fighters[c].status == "active"]
        roster = {c: i for i, c in enumerate(st.roster)}
        amb.sort(key=lambda c: (-base_initiative(combat, c), roster[c]))  # REI-1.2
        if st.enc.options.surprise_single_attacker:
            amb = amb[:1]
        state.surprise_queue = amb
        state.phase = "surprise"
        # the event gets a copy: the queue is popped as the surprise turns pass, and event data never changes
        combat.emit("surprise_round_start", "surprise round: " + ", ".join(amb), rule="REI-1.1", ambushers=list(amb))
    else:
        state.phase = "initiative"


def next_surprise(combat: ReiCombat) -> None:
    """One surprise turn per ambusher: a single standard slot (REI-1.2)."""
    state = combat.state
    if state.actor is not None and state.fighters[state.actor].surprise_turn:
        state.fighters[state.actor].surprise_turn = False
        combat.emit("turn_end", f"{state.actor}'s surprise turn ends", actor=state.actor, rule="REI-1.2")
    while state.surprise_queue:
        cid = state.surprise_queue.pop(0)
        f = state.fighters[cid]
        if f.status != "active":
            continue
        state.actor = cid
        f.surprise_turn = True
        f.slots = {"trick": 0, "swift": 0, "move": 0, "acrobatic": 0, "standard": 1}
        f.acted = f.moved = f.aimed = f.parried = False
        f.free_used = []
        combat.emit("turn_start", f"{cid}'s surprise turn", actor=cid, rule="REI-1.2", surprise=True)
        state.phase = "turn"
        return
    state.actor = None
    state.phase = "initiative"


def round_start(combat: ReiCombat) -> None:
    """REI-2.5 joiners, then the first turn."""
    state = combat.state
    st = combat.tables
    state.round += 1
    combat.emit("round_start", f"round {state.round}", rule="REI-2.18", order=list(state.order))
    # those still in reserve: one the GM took out before its round never joins (its arrival is cancelled)
    joiners = [cid for cid in st.reinforce.get(state.round, []) if state.fighters[cid].status == "reserve"]
    if joiners and state.round not in state.joined_rounds:
        state.joined_rounds.append(state.round)
        for cid in joiners:
            state.fighters[cid].status = "active"
        ranked = roll_initiative(combat, list(joiners))
        state.order.extend(ranked)
        combat.emit("combatants_joined", "joining: " + ", ".join(ranked), rule="REI-2.5", joined=ranked,
                    order=list(state.order))
    state.index = 0
    begin_entry(combat)


def begin_entry(combat: ReiCombat) -> None:
    """Go to the turn at `state.index`, skipping those who cannot act (REI-2.18)."""
    state = combat.state
    while state.index < len(state.order):
        cid = state.order[state.index]
        f = state.fighters[cid]
        if f.status == "active":
            state.actor = cid
            if f.suspended:
                f.suspended = False  # REI-2.4: resume without start-of-turn processing
                combat.emit("turn_resumed", f"{cid} resumes its delayed turn", actor=cid, rule="REI-2.4")
                state.phase = "turn"
            else:
                state.phase = "turn_start"
            return
        f.suspended = False
        state.index += 1
    state.actor = None
    state.phase = "round_end"


def turn_start(combat: ReiCombat) -> None:
    """TURN_START (section 6 step 6)."""
    state = combat.state
    cid = state.actor or ""
    f = state.fighters[cid]
    combat.emit("turn_start", f"{cid}'s turn (round {state.round})", actor=cid, rule="REI-2.7")
    end_effects(combat, cid, ("until_turn_start",), "turn_start")
    f.bd_loss = 0  # REI-5.3, 5.5
    f.parry_value = 0
    f.acro_dodge = 0
    f.full_defense = False
    f.reflex = False
    f.slots = fresh_slots(combat, cid)
    f.moved = f.aimed = f.parried = f.acted = False
    f.free_used = []
    f.had_turn = True
    state.phase = "turn"
    if f.hidden:
        stealth_check(combat, cid)


def stealth_check(combat: ReiCombat, cid: str) -> None:
    """REI-6.5: COM + stealth + sneak against every enemy in sight (INT + insight)."""
    from trpg_arena.rules.reincarnator.attack import fmt
    from trpg_arena.rules.reincarnator.movement import board, closed_doors

    state = combat.state
    st = combat.tables
    me = state.fighters[cid]
    assert me.cell is not None
    doors = closed_doors(combat)
    field = board(combat)
    watchers = [c for c in st.roster if (wf := state.fighters[c]).status == "active" and wf.side != me.side
                and wf.cell is not None and field.los(wf.cell, me.cell, doors)]
    if not watchers:
        return
    pool = rating(st, cid, "com") + rating(st, cid, "stealth") + rating(st, cid, "sneak") - wound_penalty(combat, cid)
    mine = roll_pool(combat.dice, pool, st.enc.options, key_es(combat, cid, "com"), roller=cid,
                     purpose=f"stealth ({counted(pool, 'die', 'dice')})")
    combat.emit("stealth_check", f"{cid} stealth: {pool} dice {fmt(mine.dice)} -> {mine.t}", actor=cid,
                rule="REI-6.5", pool=pool, dice=[list(b) for b in mine.dice], t=mine.t)
    spotted = None
    for w in watchers:
        p2 = rating(st, w, "int") + rating(st, w, "insight") - wound_penalty(combat, w)
        r = roll_pool(combat.dice, p2, st.enc.options, key_es(combat, w, "int"), roller=w,
                      purpose=f"perception against {cid}'s stealth ({counted(p2, 'die', 'dice')})")
        combat.emit("roll", f"{w} looks for {cid}: {p2} dice {fmt(r.dice)} -> {r.t}", actor=w, rule="REI-6.5",
                    pool=p2, defence=0, dice=[list(b) for b in r.dice], r=r.r, es=r.es, t=r.t, n=r.t)
        if r.t > mine.t and spotted is None:
            spotted = w
    if spotted is not None:
        me.hidden = False
        combat.emit("detected", f"{spotted} spots {cid}", actor=spotted, rule="REI-6.5", target=cid)


def end_turn(combat: ReiCombat) -> None:
    """The actor ends its turn (REI-2.18)."""
    combat.state.phase = "turn_end"


def turn_end(combat: ReiCombat) -> None:
    """TURN_END (section 6 step 9)."""
    state = combat.state
    cid = state.actor or ""
    f = state.fighters[cid]
    if f.surprise_turn:
        state.phase = "surprise"
        return
    if f.status == "active":
        if f.slots.get("swift", 0) > 0:
            f.reflex = True  # REI-2.14
        if not f.aimed:
            reset_aim(combat, cid, "did not aim this turn")  # REI-5.1
    combat.emit("turn_end", f"{cid}'s turn ends", actor=cid, rule="REI-2.18")
    state.index += 1
    begin_entry(combat)


def round_end(combat: ReiCombat) -> None:
    """ROUND_END: re-sort if initiative changed (REI-2.3); the round cap (REI-2.19)."""
    state = combat.state
    combat.emit("round_end", f"round {state.round} ends", rule="REI-2.18")
    if state.reorder_pending:
        state.reorder_pending = False
        for cid in state.order:
            f = state.fighters[cid]
            if f.status == "active":
                f.init_total = f.init_d10 + base_initiative(combat, cid)
        prev = {c: i for i, c in enumerate(state.order)}
        state.order.sort(key=lambda c: (-state.fighters[c].init_total, prev[c]))
        combat.emit("initiative_reordered", "new order: " + ", ".join(state.order), rule="REI-2.3",
                    order=list(state.order), totals={c: state.fighters[c].init_total for c in state.order})
    if state.round >= combat.tables.enc.options.round_cap:
        finish(combat, None, Termination.ROUND_CAP)
        return
    state.phase = "round_start"


# what `advance` runs in each phase but ``turn`` (where a decision opens)
PHASE_STEPS: dict[str, Callable[[ReiCombat], None]] = {
    "setup": combat_start, "surprise": next_surprise, "initiative": start_initiative, "round_start": round_start,
    "turn_start": turn_start, "turn_end": turn_end, "round_end": round_end}
