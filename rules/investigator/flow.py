"""The turn structure (spec section 6): initiative, rounds, priority phases, turns, round end, end of combat.

`advance` runs until a decision point is open or the combat is over; `apply` records a choice and resumes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.values import Action, Outcome, Termination
from trpg_arena.rules.investigator.actions import begin, run_action, settle_unfinished_move
from trpg_arena.rules.investigator.attacks import push_attack, run_attack
from trpg_arena.rules.investigator.catalogue import catalogue_of
from trpg_arena.rules.investigator.compiled import Setup
from trpg_arena.rules.investigator.damage import interrupt_channel, round_end_upkeep
from trpg_arena.rules.investigator.legal import Legal, fighter, wielded_item
from trpg_arena.rules.investigator.state import Fighter, InvState
from trpg_arena.rules.investigator.verbs import Condition, Verb
from trpg_arena.rules.investigator.windows import run_window

if TYPE_CHECKING:
    from trpg_arena.rules.investigator.state import InvCombat


# the members the functions below compare, bound once as module names: an enum member is a class attribute
# lookup (slow on Python 3.11) and these run for every action
(CONTINUE_CAST, DIVE_FOR_COVER, DODGE, END_TURN, FIGHT_BACK, OPPORTUNITY_ATTACK, PURSUIT_ATTACK, WAIT) = (
    Verb.CONTINUE_CAST, Verb.DIVE_FOR_COVER, Verb.DODGE, Verb.END_TURN, Verb.FIGHT_BACK, Verb.OPPORTUNITY_ATTACK,
    Verb.PURSUIT_ATTACK, Verb.WAIT)


def advance(combat: InvCombat) -> None:
    """Run the state machine to the next decision point or the end."""
    st: InvState = combat.state
    setup = combat.tables
    st.decision = None
    while True:
        if st.outcome is not None:
            st.decision = None
            return
        if st.dirty and st.started:
            st.dirty = False
            if end_check(combat, setup, st):
                continue
        if st.stack:
            fr = st.stack[-1]
            if fr.kind == "window":
                if run_window(combat, setup, st, fr):
                    return
            elif fr.kind == "attack":
                if run_attack(combat, setup, st, fr):
                    return
            else:
                depth = len(st.stack)
                while True:  # run consecutive steps of the same action frame in one go
                    run_action(combat, setup, st, fr)
                    if st.dirty or len(st.stack) != depth or st.stack[-1] is not fr:
                        break
            continue
        if not st.started:
            start_combat(combat, setup, st)
            continue
        if st.turn_actor:
            f = fighter(setup, st, st.turn_actor)
            if st.turn_ended or f.dead or f.fled or f.unconscious or f.dying:
                end_turn(combat, setup, st, f)
                continue
            st.decision = setup.decision(f.id, "turn_action", "")
            return
        order = st.pass_order
        if st.cursor >= len(order):
            next_pass(combat, setup, st)
            continue
        f = fighter(setup, st, order[st.cursor])
        if f.had_turn or f.dead or f.fled or f.unconscious or f.dying:
            st.cursor += 1
            continue
        if st.phase in ("cast", "shoot"):
            # a channeller is always offered the cast phase; anyone else when the offer holds an action. The offer
            # is worked out whole here and handed to the legal set that the kernel computes next (`Combat.ahead`),
            # rather than tested for a first action and then worked out again
            if (st.phase == "cast" and f.channel_spell) or may_offer(setup, f, st.phase):
                offer = Legal(combat, setup).offer(f, st.phase)
                if offer or (st.phase == "cast" and f.channel_spell):
                    st.decision = d = setup.decision(f.id, "phase_offer", st.phase)
                    combat.ahead = (st, d, offer)
                    return
            st.cursor += 1
            continue
        start_turn(combat, setup, st, f)


def may_offer(setup: Setup, f: Fighter, phase: str) -> bool:
    """A cheap necessary condition for a phase offer.

    A standard slot available, and a spell known (cast) or a loaded, unjammed firearm wielded (shoot).
    """
    if not (f.standard_used < setup.profiles[setup.idx[f.id]].actions and not f.full_mov_lockout):
        return False
    if phase == "cast":
        return bool(setup.profiles[setup.idx[f.id]].spells)
    it = wielded_item(f)
    return it is not None and it.loaded >= 1 and not it.jammed and setup.weapons[it.template].kind == "firearm"


# --- setup and rounds ------------------------------------------------------------------------------
def start_combat(combat: InvCombat, setup: Setup, st: InvState) -> None:
    """Initiative (INV-2.1, 2.2), then the first round (or the ``start`` section's pass)."""
    st.started = True
    combat.emit("combat_start", f"combat begins: {', '.join(setup.sides)}", rule="INV-1.2",
                combatants=list(setup.ids))
    if not st.order:
        st.order = roll_initiative(combat, setup)
    combat.emit("initiative_order", "initiative: " + ", ".join(st.order), rule="INV-2.1", order=list(st.order))
    if st.begin_mid_round:
        st.begin_mid_round = False
        st.dirty = True
        st.pass_order = pass_order(setup, st)
        st.cursor = st.pass_order.index(st.start_at) if st.start_at else 0
        combat.emit("round_start", f"combat starts in round {st.round}, {st.phase} phase", rule="INV-3.2",
                    order=list(st.pass_order))
        return
    start_round(combat, setup, st, st.round or 1)


def roll_initiative(combat: InvCombat, setup: Setup) -> list[str]:
    """DEX descending; each tie group draws d100s in listing order, lower first, redrawing exact ties (INV-2.2)."""
    by_dex: dict[int, list[str]] = {}
    for p in setup.profiles:
        by_dex.setdefault(p.dex, []).append(p.id)
    order: list[str] = []
    for dex in sorted(by_dex, reverse=True):
        group = by_dex[dex]
        order += _break_ties(combat, group, dex) if len(group) > 1 else group
    return order


def _break_ties(combat: InvCombat, group: list[str], dex: int, tied: int = 0) -> list[str]:
    """Draw a d100 each, lower first; those who drew the same (`tied`) draw again."""
    rolls = {}
    for cid in group:
        why = f"an initiative tie-break (DEX {dex}, like " + ", ".join(c for c in group if c != cid) + \
            ("; lower acts first)" if not tied else f"; again, all drew {tied}; lower acts first)")
        rolls[cid] = combat.dice.roll(100, roller=cid, purpose=why)
        combat.emit("initiative_roll", f"{cid} (DEX {dex}) rolls {rolls[cid]} to break a tie", actor=cid,
                    rule="INV-2.2", dice=[rolls[cid]])
    out: list[str] = []
    for v in sorted(set(rolls.values())):
        same = [c for c in group if rolls[c] == v]
        out += _break_ties(combat, same, dex, v) if len(same) > 1 else same
    return out


def start_round(combat: InvCombat, setup: Setup, st: InvState, rnd: int) -> None:
    """Reset slots and per-round counters, apply carried lockouts, order the passes (INV-3.2, INV-4.3)."""
    st.round = rnd
    for f in st.fighters:
        f.prepare_used = f.move_used = f.opportunity_used = f.had_turn = f.moved_long = False
        f.standard_used = f.steps_this_turn = f.move_spent = f.defenses = 0
        f.melee_attackers = []
        f.full_mov_lockout, f.lockout_next_round = f.lockout_next_round, False  # INV-4.9: carried into this round
        if f.lose_next_standard:
            f.lose_next_standard = False
            f.standard_used = 1
    mode = setup.opt.priority_mode
    st.pass_order = pass_order(setup, st)
    st.phase = "cast" if mode == "phases" else "single"
    st.cursor = 0
    combat.emit("round_start", f"round {rnd} begins", rule="INV-3.2", order=list(st.pass_order))
    if mode == "phases":
        combat.emit("phase_start", "cast phase", rule="INV-4.3")


def pass_order(setup: Setup, st: InvState) -> list[str]:
    """The round's order: the initiative order, or with ``dex_plus_50`` ready firearms first (INV-4.3)."""
    if setup.opt.priority_mode != "dex_plus_50":
        return list(st.order)
    rank = {c: i for i, c in enumerate(st.order)}

    def key(cid: str) -> tuple[int, int, int]:
        f = fighter(setup, st, cid)
        it = wielded_item(f)
        dex = setup.prof(cid).dex
        ready = it is not None and setup.weapons[it.template].kind == "firearm" and it.loaded >= 1 and not it.jammed
        return (-(dex + 50 if ready else dex), -dex, rank[cid])

    return sorted(st.order, key=key)


def next_pass(combat: InvCombat, setup: Setup, st: InvState) -> None:
    """The next priority phase, or the round end (INV-4.3, section 6)."""
    if st.phase in ("cast", "shoot"):
        st.phase = "shoot" if st.phase == "cast" else "general"
        st.cursor = 0
        combat.emit("phase_start", f"{st.phase} phase", rule="INV-4.3")
        return
    end_round(combat, setup, st)


def end_round(combat: InvCombat, setup: Setup, st: InvState) -> None:
    """Round end: dying deadline and upkeep (INV-11.6, 11.7), end check, round cap (INV-12.2)."""
    round_end_upkeep(combat, setup, st)
    combat.emit("round_end", f"round {st.round} ends", rule="INV-1.2")
    if end_check(combat, setup, st):
        return
    if st.round >= setup.opt.round_cap:
        finish(combat, setup, st, None, Termination.ROUND_CAP)
        return
    start_round(combat, setup, st, st.round + 1)


# --- turns -----------------------------------------------------------------------------------------
def start_turn(combat: InvCombat, setup: Setup, st: InvState, f: Fighter) -> None:
    """Begin `f`'s turn (INV-3.3)."""
    f.had_turn = True
    f.steps_this_turn = 0
    f.moved_long = False
    if f.bonus_to and f.bonus_expires == "start_of_next_turn":
        f.bonus_to, f.bonus_expires = None, ""
    st.turn_actor = f.id
    st.turn_ended = False
    st.turn_actions = 0
    if combat.recording:
        combat.emit("turn_start", f"{f.id}'s turn", actor=f.id, rule="INV-3.3")


def end_turn(combat: InvCombat, setup: Setup, st: InvState, f: Fighter) -> None:
    """End the current turn; an unused end-of-turn bonus lapses (INV-4.1)."""
    if f.bonus_to and f.bonus_expires == "end_of_turn":
        f.bonus_to, f.bonus_expires = None, ""
    st.turn_actor = ""
    st.turn_ended = False
    st.cursor += 1
    if combat.recording:
        combat.emit("turn_end", f"{f.id}'s turn ends", actor=f.id, rule="INV-3.3")


# --- end of combat -----------------------------------------------------------------------------------
def end_check(combat: InvCombat, setup: Setup, st: InvState) -> bool:
    """INV-12.2: at most one side with a combatant able to act ends the combat.

    Side by side, each side's first combatant able to act is enough to know that side can act.
    """
    fighters = st.fighters
    first = None
    for side, members in setup.side_groups():
        for i in members:
            f = fighters[i]
            if not (f.dead or f.fled or f.unconscious or f.dying):
                if first is not None:
                    return False  # two sides can still act
                first = side
                break
    if first is None:
        finish(combat, setup, st, None, Termination.MUTUAL)
    else:
        losers = [f for f in st.fighters if setup.side_of[f.id] != first]
        term = Termination.FLED if losers and all(f.fled for f in losers) else Termination.ELIMINATED
        finish(combat, setup, st, first, term)
    return True


def finish(combat: InvCombat, setup: Setup, st: InvState, winner: str | None, term: Termination) -> None:
    """Record the outcome and emit ``combat_end`` with each side's HP and able count."""
    hp = {s: sum(max(f.hp, 0) for f in st.fighters if setup.side_of[f.id] == s and not f.dead) for s in setup.sides}
    able = {s: sum(1 for f in st.fighters if setup.side_of[f.id] == s and f.able) for s in setup.sides}
    st.outcome = Outcome(winner, term, st.round)
    st.decision = None
    settle_unfinished_move(combat, setup, st)
    st.stack.clear()
    what = f"side {winner} wins" if winner else "draw"
    combat.emit("combat_end", f"combat ends after round {st.round}: {what} ({term.value})", rule="INV-12.2",
                winner=winner, termination=term.value, hp=hp, able=able,
                combatants={f.id: {"hp": f.hp, "conditions": conditions(f)} for f in st.fighters})


# the fighter's field that shows each condition (section 8), in the order a combatant's conditions are listed
SHOWN_BY = (("dead", Condition.DEAD), ("fled", Condition.FLED), ("dying", Condition.DYING),
            ("unconscious", Condition.UNCONSCIOUS), ("prone", Condition.PRONE), ("major_wound", Condition.MAJOR_WOUND),
            ("full_mov_lockout", Condition.FULL_MOV_LOCKOUT), ("lose_next_standard", Condition.LOSE_NEXT_STANDARD),
            ("untreated_wound", Condition.UNTREATED_WOUND), ("channel_spell", Condition.CHANNELING),
            ("bonus_to", Condition.PENDING_BONUS))


def conditions(f: Fighter) -> list[str]:
    """The condition names of a combatant (section 8)."""
    return [condition for field, condition in SHOWN_BY if getattr(f, field)]


# --- applying choices --------------------------------------------------------------------------------
def apply(combat: InvCombat, action: Action) -> None:
    """Apply a legal choice at the open decision point, then advance."""
    st: InvState = combat.state
    setup = combat.tables
    d = st.decision
    assert d is not None
    st.decision = None
    m = catalogue_of(setup).meta[action]
    f = fighter(setup, st, d.actor)
    if d.step == "turn_action":
        first = st.turn_actions == 0
        st.turn_actions += 1
        if f.channel_spell and first and m.verb != CONTINUE_CAST:  # INV-5.5
            interrupt_channel(combat, f, "did something else")
        if m.verb == END_TURN:
            st.turn_ended = True
        else:
            begin(st, f, m)
    elif d.step == "phase_offer":
        if m.verb == WAIT:
            if st.phase == "cast" and f.channel_spell:  # INV-5.5
                interrupt_channel(combat, f, "abandoned")
            combat.emit("wait", f"{f.id} waits", actor=f.id, rule="INV-4.3")
            st.cursor += 1
        else:
            start_turn(combat, setup, st, f)
            st.turn_actions = 1
            if f.channel_spell and m.verb != CONTINUE_CAST:
                interrupt_channel(combat, f, "did something else")
            begin(st, f, m)
    elif d.step == "reaction":
        fr = st.stack[-1]
        if m.verb == OPPORTUNITY_ATTACK:  # INV-10.1
            f.opportunity_used = True
            push_attack(st, "opportunity", f.id, fr.actor)
        elif m.verb == PURSUIT_ATTACK:  # INV-9.1
            f.standard_used += 1
            push_attack(st, "pursuit", f.id, fr.actor, m.head)
    elif d.step == "defense":
        fr = st.stack[-1]
        fr.defense = m.verb
        if m.verb in (DODGE, FIGHT_BACK, DIVE_FOR_COVER) and f.channel_spell:
            interrupt_channel(combat, f, m.verb)  # INV-5.5
    advance(combat)


def legal_actions(combat: InvCombat) -> list[Action]:
    """The legal set of the open decision."""
    st: InvState = combat.state
    d = st.decision
    assert d is not None
    lg = Legal(combat, combat.tables)
    f = fighter(lg.s, st, d.actor)
    if d.step == "turn_action":
        return lg.turn(f)
    if d.step == "phase_offer":
        ahead = combat.ahead  # the offer `advance` worked out to open this very decision, if it did
        offer = ahead[2] if ahead is not None and ahead[0] is st and ahead[1] is d else lg.offer(f, st.phase)
        return offer + [lg.cat.by[("wait",)]]
    if d.step == "reaction":
        return lg.reaction(f, st.stack[-1])
    return lg.defense(st.stack[-1])
