"""Reaction windows: opportunity attacks and pursuit attacks (INV-9.1, INV-10.1-10.4).

A window frame names the triggering actor and the event: ``leave`` / ``enter`` (a long-move step),
``step`` (a one-step move leaving a nine-grid: pursuit only) or ``action`` (a cast, shot or first aid inside a
nine-grid: opportunity only). Reactors are visited in initiative order and re-checked as each window opens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trpg_arena.rules.core.battlefield import chebyshev
from trpg_arena.rules.investigator.compiled import Setup
from trpg_arena.rules.investigator.legal import fighter, std_available
from trpg_arena.rules.investigator.state import Fighter, Frame, InvState

if TYPE_CHECKING:
    from trpg_arena.rules.investigator.state import InvCombat

Cell = tuple[int, int]
WHAT = {"leave": "move out of reach", "enter": "move into reach", "step": "step away",
        "action": "action within reach"}  # the trigger events as the window_open text words them


def push_window(setup: Setup, st: InvState, event: str, actor: str, src: Cell | None, dest: Cell | None) -> None:
    """Open the windows of one trigger event (resolved by `run_window`).

    Nothing is pushed when no able hostile stands within reach of the squares involved (a cheap pre-check;
    `run_window` re-checks every reactor in initiative order).
    """
    if src is None:
        return
    side_of = setup.side_of
    side = side_of[actor]
    sx, sy = src
    dx, dy = dest if dest is not None else src
    for f in st.fighters:
        p = f.pos
        if p is None:
            continue
        px, py = p
        if (((-1 <= px - sx <= 1 and -1 <= py - sy <= 1) or (-1 <= px - dx <= 1 and -1 <= py - dy <= 1))
                and side_of[f.id] != side and not (f.dead or f.fled or f.unconscious or f.dying)):
            st.stack.append(Frame("window", "open", actor, event=event, src=src, dest=dest))
            return


def eligible(setup: Setup, st: InvState, r: Fighter, m: Fighter, fr: Frame) -> bool:
    """Whether reactor `r` gets a window for this event now (INV-10.4, INV-9.1)."""
    if (r is m or r.dead or r.fled or r.unconscious or r.dying or r.channel_spell or r.pos is None
            or setup.side_of[r.id] == setup.side_of[m.id]):
        return False
    ev = fr.event
    if ev == "action":
        return not r.opportunity_used and m.pos is not None and chebyshev(r.pos, m.pos) == 1
    assert fr.src is not None and fr.dest is not None
    was_in = chebyshev(r.pos, fr.src) == 1
    now_in = chebyshev(r.pos, fr.dest) == 1
    if ev == "enter":
        return not was_in and now_in and not r.opportunity_used
    if not was_in or now_in:
        return False
    pursuit = setup.opt.pursuit_mode == "reaction" and std_available(setup, r)
    if ev == "step":
        return pursuit
    return pursuit or not r.opportunity_used  # leave


def run_window(combat: InvCombat, setup: Setup, st: InvState, fr: Frame) -> bool:
    """Open the next eligible reactor's window; pop when none is left or the action has ended."""
    m = fighter(setup, st, fr.actor)
    order = st.order
    stack = st.stack
    fighters, idx, side_of = st.fighters, setup.idx, setup.side_of
    side = side_of[m.id]
    while fr.index < len(order):
        if (stack and stack[0].cancelled) or m.dead or m.fled or m.unconscious or m.dying or st.outcome is not None:
            break
        r = fighters[idx[order[fr.index]]]
        fr.index += 1
        # eligible's first test, inlined: allies (the mover included) and incapable reactors get no window
        if r.dead or r.fled or r.unconscious or r.dying or r.channel_spell or side_of[r.id] == side:
            continue
        if eligible(setup, st, r, m, fr):
            combat.emit("window_open", f"{r.id} may react to {m.id}'s {WHAT[fr.event]}", actor=r.id,
                        rule="INV-10.4", trigger=fr.event, mover=m.id)
            st.decision = setup.decision(r.id, "reaction", m.id, fr.event)
            return True
    st.stack.pop()
    return False
