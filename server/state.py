"""A session as one JSON document: the combat (round, combatants, turn order), its seats and the open decision."""

from __future__ import annotations

from typing import Any

from trpg_arena.rules import TrpgArenaError
from trpg_arena.server.board import combatants_json, turn_order
from trpg_arena.table.session import Session


def open_decision(session: Session) -> tuple[dict[str, Any] | None, str | None]:
    """The open decision's JSON (None once over), and why its seat's agent cannot play, if it cannot."""
    try:
        pending = session.pending()
    except (TrpgArenaError, ValueError) as e:  # its seat's agent cannot play (a spec stored before it was checked)
        return None, f"the agent of this decision's seat cannot play: {e} (seat another agent or a person)"
    return (pending.to_json(session.combat) if pending is not None else None), None


def session_state(sid: str, name: str, session: Session) -> dict[str, Any]:
    """What a client needs to show the table now (the board's places come once, from ``/board``)."""
    c = session.combat
    pending, agent_error = open_decision(session)
    outcome = c.outcome
    state = {
        "id": sid, "name": name, "ruleset": c.system.info.id, "title": c.system.info.title,
        "revision": session.revision,  # changes with every change: send it back with a change decided on this
        "encounter": c.encounter.label, "source": c.encounter.source, "board_kind": c.battlefield.kind,
        "seed": session.seed, "round": c.round, "phase": c.phase, "over": c.over, "result": c.result,
        "outcome": outcome.to_json() if outcome else None, "sides": c.sides,
        "combatants": combatants_json(c), "turn_order": turn_order(c),
        "order_values": c.system.order_values(c),  # what puts each one there: "init 16", "AP 13", "DEX 60"
        "seats": {k: str(s) for k, s in session.seats.items()},
        "tactics": session.tactics_json(),  # NPC temperaments by combatant id: what its agent follows
        "defaults": {k: str(s) for k, s in session.defaults.items()},
        "table_dice": session.table_dice, "autorun": session.autorun,
        "ask_routine": session.ask_routine, "routine": dict(c.system.info.routine),
        "decisions": len(session.records), "events": c.log[-1].seq + 1 if c.log else 0,
        "pending": pending,
    }
    if agent_error is not None:
        state["agent_error"] = agent_error
    return state
