"""The REST API over sessions: create, read, decide, roll, undo, replay, delete.

Every route that changes a session answers ``{"state", "decisions", "events"}``: the session now, the
decisions this request took (the person's and any agent seats' after it) and the events they
emitted, so a client that does not watch the WebSocket still narrates everything. A refused request
changes nothing (see `errors` for the statuses). Each may name the state's revision it answers
(``If-Match`` or a ``revision`` field, see `revision`): a stale one is 409 with the state now.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from typing import Annotated, Any

import numpy as np
from fastapi import APIRouter, Body, Path, Query, Request, Response

from trpg_arena.agents import deadline, make_agent
from trpg_arena.rules import IllegalActionError
from trpg_arena.server.board import board_json
from trpg_arena.server.config import ServerConfig
from trpg_arena.server.encounters import builtin, catalogue, check_controller_seats, check_seat, uploaded
from trpg_arena.server.errors import ERROR_SCHEMA
from trpg_arena.server.hub import Entry, SessionHub, public_record
from trpg_arena.server.models import (
    ActionChoice,
    CreateSession,
    DiceEntry,
    EditRequest,
    EncounterUpload,
    LogReplay,
    Proceed,
    ProposalRequest,
    RewindRequest,
    RunRequest,
    SeatChange,
    StepRequest,
    Switch,
    TacticsChange,
    UndoRequest,
)
from trpg_arena.server.replay import log_replay, parse_log, session_replay
from trpg_arena.server.revision import StaleRequest, etag, requested_revision
from trpg_arena.server.state import open_decision, session_state
from trpg_arena.server.stats import statistics
from trpg_arena.server.work import GRACE, AgentBusy, off_thread
from trpg_arena.table.choices import find_legal, proposal_json
from trpg_arena.table.edits import GmEdit, editable, place_key
from trpg_arena.table.session import Mark, Session, SessionError, StaleRevision

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"description": text, "content": {"application/json": {"schema": ERROR_SCHEMA}}}
    for status, text in ((401, "no token, or a wrong one (a server with a token: beyond loopback, or --token)"),
                         (403, "a change or WebSocket from a page of an origin not allowed (--allow-origin)"),
                         (404, "no such session"), (409, "not possible now (nothing to confirm, over...)"),
                         (413, "a body over the server's --max-body"),
                         (422, "a malformed request, encounter, action or dice entry"),
                         (503, "busy: the database, the session or its agents; nothing was changed, ask again"))}
router = APIRouter(prefix="/api", responses=ERRORS)
THINK_WAIT = 0.5  # seconds a request waits (lock not held) for a proposal being computed before answering
SessionId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="a session id")]
Doc = dict[str, Any]


def _hub(request: Request) -> SessionHub:
    return request.app.state.hub


def _config(request: Request) -> ServerConfig:
    return request.app.state.config


def _change(request: Request, sid: str, change: Callable[[Session], Any], run: bool, setup: bool = False,
            body: object = None, limit: int | None = None, needs_proposal: bool = False) -> Doc:
    """Apply `change` under the session's lock, then (if `run`) let agent seats go on; answer with what happened.

    `setup`: the change is to seats or settings, which the session emits no event for: the watchers are told.
    `body`: the request's body, whose ``revision`` (or the ``If-Match`` header) names the state it answers.
    `limit`: the most agent decisions the run may take (default: the server's run limit).
    `needs_proposal`: the change applies the open decision's proposal, so it first waits (briefly, the
    lock not held) for one being computed. Agents think off the lock (`server.thinking`): the answer
    waits for their run while its decisions keep landing, and otherwise shows the state as it is
    (``thinking`` while a proposal is computed; the WebSocket tells when it is ready).
    """
    revision = requested_revision(request, body)
    hub = _hub(request)
    hub.store.check_writable()  # a file found damaged or read-only takes no change, even one that would write nothing
    with hub.use(sid, settle=THINK_WAIT if needs_proposal else 0.0) as entry:
        s = entry.session
        assert s is not None
        try:
            mark = s.change_at(revision, change)
        except StaleRevision as e:  # decided on another state (or another process decided first): nothing was done
            raise StaleRequest(str(e), session_state(entry.id, entry.name, s)) from None
        if setup:
            entry.publish({"type": "setup", "revision": s.revision})
        if run:
            entry.run_left = max(entry.run_left, limit or _config(request).run_limit)
            entry.run_error = None
    # the agents think off the lock: wait for the next proposal, and for their run while it makes progress
    # (within the request's time limit), so that quick agents answer as if they had played in the request
    clock = deadline.current()
    remaining = clock.remaining() if clock is not None else None
    hub.settle(entry, THINK_WAIT, None if remaining is None else time.monotonic() + remaining)
    with hub.use(sid) as entry:
        assert entry.session is not None
        return _answer(entry, entry.session, mark)


def _answer(entry: Entry, s: Session, mark: Mark) -> Doc:
    """The state, and the decisions and events since `mark` (lock held)."""
    if entry.store_failure is not None:
        failure, entry.store_failure = entry.store_failure, None
        raise failure
    records, events = s.since(mark)
    out = {"state": session_state(entry.id, entry.name, s),
           "decisions": [public_record(r) for r in records], "events": [e.to_json() for e in events]}
    if entry.run_error is not None:  # the change itself is stored: the answer says why the agents stopped
        out["agent_error"], entry.run_error = entry.run_error, None
    return out


def _legal_index(s: Session, choice: ActionChoice) -> int:
    """The legal index a choice names; an action that is not legal now is refused with the legal count."""
    pending = s.pending()
    if pending is None:
        raise SessionError(f"the combat is over ({s.combat.result}); undo to play on")
    if choice.index is not None:
        return choice.index
    assert choice.action is not None
    wanted = choice.action.model_dump()
    index = find_legal(pending.legal, wanted)
    if index is None:
        shown = " ".join(f"{k}={v}" for k, v in wanted.items() if v is not None)
        raise IllegalActionError(f"'{shown}' is not legal for {pending.decision.actor} now "
                                 f"({len(pending.legal)} legal actions: see pending.groups)")
    return index


# --- catalogue ---------------------------------------------------------------------------------------
@router.get("/rulesets", summary="Rule systems, their built-in encounters and the agents a seat may name")
def rulesets() -> Doc:
    """Every rule system with its board kind, dice, built-in encounters and agents."""
    return {"rulesets": catalogue()}


@router.post("/encounters/validate", summary="Validate an encounter without starting anything")
def validate(body: EncounterUpload) -> Doc:
    """The encounter's summary, or 422 with the located error ``trpg-arena validate`` prints."""
    enc = builtin(body.encounter) if body.encounter else uploaded(body.encounter_text, body.encounter_data,
                                                                   body.filename or "upload")
    check_controller_seats(enc)
    return {"ok": True, "ruleset": enc.ruleset, "encounter": enc.encounter, "combatants": len(enc.combatants),
            "sides": enc.sides(), "description": enc.description}


# --- sessions ----------------------------------------------------------------------------------------
@router.get("/sessions", summary="Stored sessions, most recently played first")
def list_sessions(request: Request) -> Doc:
    """Every session of the store, including those started from the terminal."""
    return {"sessions": [row.to_json() for row in _hub(request).sessions()]}


@router.post("/sessions", status_code=201, summary="Start a session from a built-in or uploaded encounter")
def create_session(request: Request, body: CreateSession) -> Doc:
    """Create and store a session; with ``run``, agent seats play until a person must act."""
    enc = builtin(body.encounter) if body.encounter else uploaded(body.encounter_text, body.encounter_data,
                                                                   body.filename or "upload")
    for where, seat in (("pc", body.pc), ("npc", body.npc), *((f"seats.{k}", v) for k, v in body.seats.items())):
        check_seat(seat, enc.ruleset, where)
    check_controller_seats(enc)
    hub = _hub(request)
    name = body.name or enc.label
    session = Session(enc, seed=body.seed, seats=body.seats, pc=body.pc, npc=body.npc, table_dice=body.table_dice,
                      store=hub.store, name=name, options=body.options, ask_routine=body.ask_routine,
                      tactics=body.tactics)
    if body.autorun:
        session.set_autorun(True)
    entry = hub.add(session, name)
    return _change(request, entry.id, lambda s: None, body.run)


@router.get("/sessions/{sid}", summary="A session's state: combatants, turn order, the open decision")
def get_session(request: Request, response: Response, sid: SessionId) -> Doc:
    """Round, combatants (place, HP, conditions), turn order, seats and the pending decision grouped by verb.

    The ``ETag`` header is the state's revision: send it back as ``If-Match`` with a change decided on it.
    """
    with _hub(request).use(sid, settle=THINK_WAIT) as entry:
        assert entry.session is not None
        response.headers["etag"] = etag(entry.session.revision)
        return session_state(entry.id, entry.name, entry.session)


@router.delete("/sessions/{sid}", status_code=204, summary="Delete a session and everything stored for it")
def delete_session(request: Request, sid: SessionId) -> Response:
    """Delete it; pages watching it are told and disconnected (with ``If-Match``: only if still at that revision)."""
    try:
        _hub(request).delete(sid, requested_revision(request))
    except StaleRevision as e:
        with _hub(request).use(sid) as entry:
            assert entry.session is not None
            raise StaleRequest(str(e), session_state(entry.id, entry.name, entry.session)) from None
    return Response(status_code=204)


@router.get("/sessions/{sid}/board", summary="The battlefield's places, for drawing")
def get_board(request: Request, sid: SessionId) -> Doc:
    """Board kind and size, every place with its drawing position and terrain (keys as the state uses)."""
    with _hub(request).use(sid) as entry:
        assert entry.session is not None
        return board_json(entry.session.combat)


@router.get("/sessions/{sid}/pending", summary="The open decision only")
def get_pending(request: Request, sid: SessionId) -> Doc:
    """The open decision (null once over), as in the state."""
    with _hub(request).use(sid, settle=THINK_WAIT) as entry:
        assert entry.session is not None
        return {"pending": open_decision(entry.session)[0]}


@router.post("/sessions/{sid}/actions", summary="Submit a person's action for the open decision")
def submit(request: Request, sid: SessionId, body: ActionChoice) -> Doc:
    """Apply a legal action (by index or JSON form); for an agent's seat, this overrides its proposal."""
    return _change(request, sid, lambda s: s.submit(_legal_index(s, body)), body.run, body=body, needs_proposal=True)


@router.post("/sessions/{sid}/proposal", summary="Ask an agent what it would do now (nothing changes)")
def propose(request: Request, sid: SessionId, body: ProposalRequest) -> Doc:
    """The seat's proposal (agent and review seats) or the named agent's: action, reasons, alternatives."""
    hub = _hub(request)
    revision = requested_revision(request, body)  # a malformed If-Match is refused before any wait
    if body.agent is None:  # the seat's own proposal: computed off the lock (`server.thinking`), waited for here
        with hub.use(sid) as entry:
            pass
        clock = deadline.current()
        remaining = clock.remaining() if clock is not None else None
        hub.settle(entry, THINK_WAIT if remaining is None else remaining + GRACE)
    with hub.use(sid) as entry:
        s = entry.session
        assert s is not None
        try:
            s.expect(revision)  # with If-Match: a proposal for that state only, as a change would be
        except StaleRevision as e:
            raise StaleRequest(str(e), session_state(entry.id, entry.name, s)) from None
        pending = s.pending()
        if pending is None:
            raise SessionError(f"the combat is over ({s.combat.result}); nothing to propose")
        if body.agent is None and pending.proposal is not None:
            return {"agent": pending.seat.agent, "proposal": proposal_json(s.combat, pending.proposal, pending.legal)}
        if body.agent is None and pending.thinking:
            raise AgentBusy(f"the proposal of {pending.seat} is still being computed; ask again in a few seconds")
        spec = body.agent or pending.seat.agent or "scripted"
        check_seat(spec, s.encounter.ruleset, "agent")
        rng = np.random.default_rng([s.seed, s.combat.decision_count, zlib.crc32(spec.encode())])
        agent = make_agent(spec, s.encounter.ruleset, rng=rng)
        combat, legal = s.combat.clone(), pending.legal
    # the search runs on a copy, without the session's lock: every other request on the session goes on
    proposal = off_thread(lambda: agent.propose(combat), f"proposal of {agent.spec}")
    return {"agent": agent.spec, "proposal": proposal_json(combat, proposal, legal)}


@router.post("/sessions/{sid}/confirm", summary="Accept the agent's proposal")
def confirm(request: Request, sid: SessionId, body: Proceed) -> Doc:
    """Apply the review seat's proposal for the open decision."""
    return _change(request, sid, lambda s: s.confirm(), body.run, body=body, needs_proposal=True)


@router.post("/sessions/{sid}/override", summary="Apply another action instead of the agent's proposal")
def override(request: Request, sid: SessionId, body: ActionChoice) -> Doc:
    """Apply a legal action other than (or equal to) the proposal; recorded as an override."""
    return _change(request, sid, lambda s: s.override(_legal_index(s, body)), body.run, body=body,
                   needs_proposal=True)


@router.post("/sessions/{sid}/step", summary="Apply the open agent or review seat's proposal: one decision")
def step(request: Request, sid: SessionId, body: StepRequest) -> Doc:
    """One decision by the seat's agent (what a bot calls to run an NPC's turn decision by decision)."""
    return _change(request, sid, lambda s: s.step(), body.run, body=body, needs_proposal=True)


@router.post("/sessions/{sid}/run", summary="Let agent seats decide until a person must act")
def run(request: Request, sid: SessionId, body: RunRequest) -> Doc:
    """Agent seats (and review seats with autorun) decide, up to ``max_decisions``."""
    return _change(request, sid, lambda s: None, True, body=body, limit=body.max_decisions)


@router.put("/sessions/{sid}/autorun", summary="Apply review seats' proposals without confirmation, or stop")
def autorun(request: Request, sid: SessionId, body: Switch) -> Doc:
    """Turn autorun on or off (stored with the session)."""
    return _change(request, sid, lambda s: s.set_autorun(body.on), body.run, setup=True, body=body)


@router.post("/sessions/{sid}/dice", summary="Enter the faces rolled at the table")
def enter_dice(request: Request, sid: SessionId, body: DiceEntry) -> Doc:
    """Faces for the dice asked for; the action is tried again (it may ask for more dice)."""
    return _change(request, sid, lambda s: s.enter_dice(body.faces), body.run, body=body)


@router.delete("/sessions/{sid}/dice", summary="Give up the action waiting for dice")
def cancel_dice(request: Request, sid: SessionId) -> Doc:
    """Forget the action waiting for dice; the decision is open again."""
    return _change(request, sid, lambda s: s.cancel_dice(), False)


@router.post("/sessions/{sid}/undo", summary="Take decisions back")
def undo(request: Request, sid: SessionId, body: UndoRequest) -> Doc:
    """Undo ``decisions`` decisions, or back to before the last one a person made (agents do not replay it)."""
    return _change(request, sid, lambda s: s.undo(body.decisions or s.to_last_person()), False, body=body)


@router.post("/sessions/{sid}/rewind", summary="Go back to the first decision of a round")
def rewind(request: Request, sid: SessionId, body: RewindRequest) -> Doc:
    """Undo everything from the first decision of ``round`` on."""
    return _change(request, sid, lambda s: s.rewind(body.round), False, body=body)


@router.put("/sessions/{sid}/seats/{key}", summary="Seat a person or an agent for a side, a combatant, pc or npc")
def set_seat(request: Request, sid: SessionId, key: Annotated[str, Path(max_length=100)], body: SeatChange) -> Doc:
    """Change who decides for ``key`` (a side, a combatant id, ``pc`` or ``npc``)."""

    def change(s: Session) -> None:
        check_seat(body.seat, s.encounter.ruleset)
        s.set_seat(key, body.seat)

    return _change(request, sid, change, body.run, setup=True, body=body)


@router.delete("/sessions/{sid}/seats/{key}", summary="Give a side or combatant back the seat it falls back on")
def clear_seat(request: Request, sid: SessionId, key: Annotated[str, Path(max_length=100)],
               body: Annotated[Proceed | None, Body()] = None) -> Doc:
    """Remove ``key``'s own seat: a combatant's decisions go to its side's seat, a side's to ``pc`` / ``npc``.

    The body (``revision``, ``run``) may be left out, as a DELETE's usually is.
    """
    body = body or Proceed()
    return _change(request, sid, lambda s: s.clear_seat(key), body.run, setup=True, body=body)


@router.put("/sessions/{sid}/tactics/{cid}", summary="Give a combatant a temperament (its NPC agent follows it)")
def set_tactics(request: Request, sid: SessionId, cid: Annotated[str, Path(max_length=100)],
                body: TacticsChange) -> Doc:
    """Aggression, morale, focus and protect for ``cid``, replacing the encounter's; ``null`` removes it."""
    return _change(request, sid, lambda s: s.set_tactics(cid, body.tactics), body.run, setup=True, body=body)


@router.put("/sessions/{sid}/table-dice", summary="Roll every seat's dice at the table, or let the engine roll")
def table_dice(request: Request, sid: SessionId, body: Switch) -> Doc:
    """Switch physical dice for the whole table on or off."""
    return _change(request, sid, lambda s: s.set_table_dice(body.on), body.run, setup=True, body=body)


@router.put("/sessions/{sid}/ask-routine", summary="Ask people the routine decisions (moonlit's escape), or not")
def ask_routine(request: Request, sid: SessionId, body: Switch) -> Doc:
    """Off (the default), a person's routine decision gets its usual answer at once (moonlit: stay)."""
    return _change(request, sid, lambda s: s.set_ask_routine(body.on), body.run, setup=True, body=body)


@router.get("/sessions/{sid}/edits", summary="What the GM may edit of each combatant now")
def get_edits(request: Request, sid: SessionId) -> Doc:
    """Each combatant's editable fields (value, kind, bounds) under its rule system, and whether it can be taken out."""
    with _hub(request).use(sid) as entry:
        assert entry.session is not None
        c = entry.session.combat
        return {"revision": entry.session.revision, "combatants": editable(c), "place_key": place_key(c)}


@router.post("/sessions/{sid}/edits", summary="A GM's edit: set a combatant's values, move it, or take it out")
def post_edit(request: Request, sid: SessionId, body: EditRequest) -> Doc:
    """Apply one edit as a decision of the GM's: logged, stored, undoable; 422 naming the field the rules refuse."""
    add = {**body.add, "id": body.combatant} if body.add is not None else None
    edit = GmEdit(body.combatant, dict(body.changes), body.remove, add)
    return _change(request, sid, lambda s: s.edit(edit), body.run, body=body)


@router.get("/sessions/{sid}/log", summary="The narrated event log")
def get_log(request: Request, sid: SessionId,
            since: Annotated[int, Query(ge=0, le=10**9, description="the first event's number")] = 0,
            limit: Annotated[int, Query(ge=1, le=5000, description="at most this many events (ask again "
                                                                    "from `next` for more)")] = 1000) -> Doc:
    """Events from number ``since`` on (at most ``limit``), each with its round, kind, text and rule id."""
    with _hub(request).use(sid) as entry:
        assert entry.session is not None
        log = entry.session.combat.log
        events = [e.to_json() for e in log if e.seq >= since][:limit]
        return {"events": events, "next": events[-1]["seq"] + 1 if events else since,
                "total": log[-1].seq + 1 if log else 0}


@router.get("/sessions/{sid}/records", summary="The decisions taken, with who took them and how")
def get_records(request: Request, sid: SessionId) -> Doc:
    """Every live decision: round, actor, action, sentence, source (agent, confirmed, override, human), dice."""
    with _hub(request).use(sid) as entry:
        assert entry.session is not None
        return {"records": [public_record(r) for r in entry.session.records]}


def _session_frames(request: Request, sid: str) -> tuple[Entry, Doc, list[dict[str, Any]]]:
    hub = _hub(request)
    with hub.use(sid) as entry:
        assert entry.session is not None
        records = list(entry.session.records)
        replay = session_replay(hub.store.checkpoint(sid, 0)[1], records)
        return entry, replay, records


@router.get("/sessions/{sid}/statistics", summary="Statistics: damage, take-downs, decision sources, HP over time")
def get_statistics(request: Request, sid: SessionId) -> Doc:
    """Per combatant and side (so far, or final once over), and each side's HP after every decision."""
    _, replay, records = _session_frames(request, sid)
    return statistics(replay["frames"], replay["board"]["sides"], replay["report"], records)


@router.get("/sessions/{sid}/replay", summary="The session as frames, for stepping through on the map")
def get_replay(request: Request, sid: SessionId) -> Doc:
    """The board and one frame per decision (combatants after it, its events), plus the statistics."""
    entry, replay, records = _session_frames(request, sid)
    report = replay.pop("report")
    return {**replay, "id": sid, "name": entry.name,
            "statistics": statistics(replay["frames"], replay["board"]["sides"], report, records)}


@router.post("/replays", summary="Replay a log written by `trpg-arena play --log`")
def replay_log(body: LogReplay) -> Doc:
    """The logged combat as frames, checked event by event against the log (422 at the first that differs)."""
    events = parse_log(body.log)
    if body.encounter is not None:
        enc = builtin(body.encounter)
    elif body.encounter_text is not None:
        enc = uploaded(body.encounter_text, None, body.filename or "upload")
    else:
        enc = None
    replay = log_replay(events, enc, body.seed, body.options or {})
    report = replay.pop("report")
    return {**replay, "statistics": statistics(replay["frames"], replay["board"]["sides"], report)}
