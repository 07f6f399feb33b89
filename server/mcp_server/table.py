"""What the MCP tools do, as plain functions over the server's `SessionHub`: one dict in, one dict out.

Every tool reads and changes sessions through the same hub (and so the same SQLite store, locks and
catching up with other processes) as ``trpg-arena serve``, and answers with the same JSON: the state
of `session_state`, the open decision of `Pending.to_json` (legal actions grouped by verb, each with its
index and GM sentence). A refusal is a `ToolRefusal` carrying the located message of the CLI and the
HTTP API, and, for a stale revision, the state now; a refused call changes nothing. Its kind is the one the
HTTP API gives the same refusal (``server.errors.STATUS``: ``unknown_session``, ``illegal_action``...).

All the agent work of one call (a run of agent decisions, the proposal its answer shows, a proposal asked
for, the wait for a session another call holds) ends at one `Deadline` of `agent_seconds`, as a request to
``serve`` does: a search past it answers its best action so far, a run hands back, and once the time is
spent the answer shows an agent's open decision as ``thinking`` (the next call computes its proposal)
instead of holding the call and the session for as long as the agent's own time limit.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from trpg_arena.agents import deadline, make_agent
from trpg_arena.agents.spec import agent_info
from trpg_arena.rules import EncounterBase, IllegalActionError, TrpgArenaError
from trpg_arena.rules.core.edits import EditError
from trpg_arena.server.encounters import builtin, catalogue, check_controller_seats, check_seat, uploaded
from trpg_arena.server.errors import STATUS, located
from trpg_arena.server.hub import Entry, SessionHub, public_record
from trpg_arena.server.replay import session_replay
from trpg_arena.server.state import open_decision, session_state
from trpg_arena.server.stats import statistics
from trpg_arena.table.choices import find_legal, proposal_json
from trpg_arena.table.edits import GmEdit, editable, place_key
from trpg_arena.table.render import numbered_map
from trpg_arena.table.session import Session, SessionError, StaleRevision

Doc = dict[str, Any]
RUN_LIMIT = 400  # agent decisions one call may take before handing back (the caller asks again)
AGENT_SECONDS = 8.0  # agent work one call may do, as `serve` allows a request: a search answers its best so far


class ToolRefusal(Exception):
    """A call refused with a located message; nothing was changed. `state`: the session now (stale revisions)."""

    def __init__(self, message: str, kind: str, state: Doc | None = None, where: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.state = state
        self.where = where


def kind_of(e: Exception) -> str:
    """The snake_case kind of a refusal, as the HTTP API names it (`invalid_request` for any other)."""
    if isinstance(e, StaleRevision):
        return "stale_revision"
    return next((kind for cls, _status, kind in STATUS if isinstance(e, cls)), "invalid_request")


@contextmanager
def refusals() -> Iterator[None]:
    """Turn the project's own refusals into `ToolRefusal`, keeping their located messages (anything else: a crash)."""
    try:
        yield
    except ToolRefusal:
        raise
    except EditError as e:  # the field the rules refuse comes first, as the API's "where"
        raise ToolRefusal(f"{e.where}: {e}", kind_of(e), where=e.where) from None
    except TrpgArenaError as e:  # encounters, agents, actions, dice: located messages (the field, as the API's)
        raise ToolRefusal(str(e), kind_of(e), where=located(e)) from None
    except (ValueError, LookupError) as e:
        raise ToolRefusal(str(e), kind_of(e)) from None


@contextmanager
def _answering(s: Session) -> Iterator[None]:
    """Build an answer: once the call's agent time is spent, an agent's open decision shows as ``thinking``.

    Its proposal is then computed by the next call, with time of its own, rather than with none (a search
    cut at once would be kept as the seat's proposal) or past the call's budget.
    """
    if not deadline.expired():
        yield
        return
    s.think_here = False
    try:
        yield
    finally:
        s.think_here = True


class Table:
    """The tools' work over one hub (see the module docstring)."""

    def __init__(self, hub: SessionHub, run_limit: int = RUN_LIMIT, agent_seconds: float = AGENT_SECONDS) -> None:
        self.hub = hub
        self.run_limit = run_limit
        self.agent_seconds = agent_seconds

    @contextmanager
    def _call(self) -> Iterator[None]:
        """One tool call: its refusals located, its agent work (and its wait for a session) within one deadline."""
        with refusals(), deadline.within(deadline.Deadline(self.agent_seconds)):
            yield

    @staticmethod
    def _run(s: Session, limit: int) -> None:
        """Agent seats decide, within the call's time for agent work (a run hands back when it is spent)."""
        s.run(until=lambda _decision: deadline.expired(), max_decisions=limit)

    # --- catalogue ------------------------------------------------------------------------------
    def list_rulesets(self) -> Doc:
        """Rule systems with their built-in encounters and the agents (and presets) a seat may name."""
        systems = catalogue()
        for system in systems:
            system["presets"] = {name: sorted(agent_info(name, system["id"]).presets) for name in system["agents"]}
        return {"rulesets": systems}

    def validate_encounter(self, text: str, name: str = "upload") -> Doc:
        """An encounter text's summary, or the located error ``trpg-arena validate`` prints."""
        with refusals():
            enc = uploaded(text, None, name)
            check_controller_seats(enc)
        return {"ok": True, **_summary(enc)}

    # --- sessions -------------------------------------------------------------------------------
    def start_session(self, encounter: str | None, encounter_text: str | None, *, seed: int, pc: str, npc: str,
                      seats: dict[str, str], table_dice: bool, name: str | None, run: bool,
                      tactics: dict[str, Any] | None = None, ask_routine: bool = False) -> Doc:
        """Create and store a session (as ``POST /api/sessions``); with `run`, agent seats go first."""
        if (encounter is None) == (encounter_text is None):
            raise ToolRefusal("give exactly one of encounter (a built-in name) or encounter_text",
                              "invalid_arguments")
        with self._call():
            enc = builtin(encounter) if encounter is not None else uploaded(encounter_text, None, name or "upload")
            sent = {"pc": pc, "npc": npc, **{f"seats.{key}": seat for key, seat in seats.items()}}
            for where, seat in sent.items():
                check_seat(seat, enc.ruleset, where)
            check_controller_seats(enc)
            label = name or enc.label
            session = Session(enc, seed=seed, seats=seats, pc=pc, npc=npc, table_dice=table_dice,
                              store=self.hub.store, name=label, tactics=tactics, ask_routine=ask_routine)
            entry = self.hub.add(session, label)
            with entry.lock:
                return self._changed(entry, lambda s: None, run, None)

    def list_sessions(self) -> Doc:
        """Every stored session (those of the terminal and the browser too), most recently played first."""
        return {"sessions": [row.to_json() for row in self.hub.sessions()]}

    def get_state(self, sid: str) -> Doc:
        """The session now, with the battlefield drawn as text."""
        with self._use(sid) as (entry, s):
            return {**self._state(entry, s), "battlefield": numbered_map(s.combat)}

    def get_pending(self, sid: str) -> Doc:
        """The open decision only (null once over), with the revision to send back."""
        with self._use(sid) as (_entry, s):
            c = s.combat
            with _answering(s):
                pending = open_decision(s)[0]
            return {"session": sid, "revision": s.revision, "round": c.round, "over": c.over, "result": c.result,
                    "pending": pending}

    def propose(self, sid: str, agent: str | None) -> Doc:
        """What the seat's agent (or `agent`) would do now, with reasons and alternatives; nothing changes."""
        with self._call():
            with self._held(sid) as (_entry, s):
                pending = s.pending()
                if pending is None:
                    raise ToolRefusal(f"the combat is over ({s.combat.result}); nothing to propose", "not_now")
                if agent is None and pending.proposal is not None:
                    return {"agent": pending.seat.agent,
                            "proposal": proposal_json(s.combat, pending.proposal, pending.legal)}
                spec = agent or pending.seat.agent or "scripted"
                check_seat(spec, s.encounter.ruleset, "agent")
                rng = np.random.default_rng([s.seed, s.combat.decision_count, zlib.crc32(spec.encode())])
                made = make_agent(spec, s.encounter.ruleset, rng=rng)
                combat, legal = s.combat.clone(), pending.legal
            proposal = made.propose(combat)  # on a copy, without the lock
        return {"agent": made.spec, "proposal": proposal_json(combat, proposal, legal)}

    def submit_action(self, sid: str, revision: int, index: int | None, action: Doc | None, run: bool) -> Doc:
        """A legal action (by index or JSON form) for the open decision; on an agent's seat, an override."""
        return self._change(sid, revision, lambda s: s.submit(_legal_index(s, index, action)), run)

    def confirm(self, sid: str, revision: int, run: bool) -> Doc:
        """Accept the review seat's proposal."""
        return self._change(sid, revision, lambda s: s.confirm(), run)

    def override(self, sid: str, revision: int, index: int | None, action: Doc | None, run: bool) -> Doc:
        """Apply another legal action instead of the proposal (recorded as an override)."""
        return self._change(sid, revision, lambda s: s.override(_legal_index(s, index, action)), run)

    def run_agents(self, sid: str, revision: int, max_decisions: int | None) -> Doc:
        """Agent seats decide until a person must act (at most `max_decisions`)."""
        limit = max_decisions or self.run_limit
        return self._change(sid, revision, lambda s: self._run(s, limit), False)

    def enter_dice(self, sid: str, revision: int, faces: str, run: bool) -> Doc:
        """Faces rolled at the table for the dice asked for; the action is tried again."""
        return self._change(sid, revision, lambda s: s.enter_dice(faces), run)

    def cancel_dice(self, sid: str, revision: int) -> Doc:
        """Give up the action waiting for dice (the faces typed for it are forgotten); its decision is open again."""
        return self._change(sid, revision, lambda s: s.cancel_dice(), False)

    def undo(self, sid: str, revision: int, decisions: int | None) -> Doc:
        """Take back the last `decisions` decisions, or by default back to the last one a person made (as the API).

        An action waiting for its dice counts as the last decision (`Session.undo`).
        """
        return self._change(sid, revision, lambda s: s.undo(decisions or s.to_last_person()), False)

    def get_edits(self, sid: str) -> Doc:
        """Each combatant's fields a GM may edit now (value, kind, bounds) and whether it can be taken out."""
        with self._use(sid) as (_entry, s):
            return {"session": sid, "revision": s.revision, "combatants": editable(s.combat),
                    "place_key": place_key(s.combat)}

    def edit_combatant(self, sid: str, revision: int, combatant: str, changes: Doc, remove: bool, run: bool,
                       add: Doc | None = None) -> Doc:
        """A GM's edit (set fields, take the combatant out, add one) as a decision of the GM's (``POST .../edits``)."""
        if sum((bool(changes), remove, add is not None)) != 1:
            raise ToolRefusal("give one of changes (field -> value, see get_editable), remove: true, or add",
                              "invalid_arguments")
        edit = GmEdit(combatant, dict(changes), remove, {**add, "id": combatant} if add is not None else None)
        return self._change(sid, revision, lambda s: s.edit(edit), run)

    def get_log(self, sid: str, since: int, limit: int) -> Doc:
        """Events numbered `since` on (at most `limit`), each with round, kind, text and rule id."""
        with self._use(sid) as (_entry, s):
            log = s.combat.log
            events = [e.to_json() for e in log if e.seq >= since][:limit]
            return {"events": events, "next": events[-1]["seq"] + 1 if events else since,
                    "total": log[-1].seq + 1 if log else 0}

    def get_statistics(self, sid: str) -> Doc:
        """Damage, take-downs and decision sources per combatant and side (final once over)."""
        with self._use(sid) as (_entry, s):
            records = list(s.records)
            assert self.hub.store is not None
            replay = session_replay(self.hub.store.checkpoint(sid, 0)[1], records)
        return statistics(replay["frames"], replay["board"]["sides"], replay["report"], records)

    # --- shared ---------------------------------------------------------------------------------
    @contextmanager
    def _use(self, sid: str) -> Iterator[tuple[Entry, Session]]:
        with self._call(), self._held(sid) as held:
            yield held

    @contextmanager
    def _held(self, sid: str) -> Iterator[tuple[Entry, Session]]:
        """The session under its lock (waited for within the call's deadline: `SessionBusy` past it)."""
        with self.hub.use(sid) as entry:
            assert entry.session is not None
            yield entry, entry.session

    @staticmethod
    def _state(entry: Entry, s: Session) -> Doc:
        with _answering(s):
            return session_state(entry.id, entry.name, s)

    def _change(self, sid: str, revision: int, change: Callable[[Session], Any], run: bool) -> Doc:
        with self._call(), self.hub.use(sid) as entry:
            return self._changed(entry, change, run, revision)

    def _changed(self, entry: Entry, change: Callable[[Session], Any], run: bool, revision: int | None) -> Doc:
        """Apply `change` at `revision` (lock held), then let agent seats go on; what it did and the state now."""
        s = entry.session
        assert s is not None
        try:
            mark = s.change_at(revision, change)
        except StaleRevision as e:
            raise ToolRefusal(str(e), "stale_revision", self._state(entry, s)) from None
        agent_error = None
        if run:
            try:
                self._run(s, self.run_limit)
            except StaleRevision:
                raise
            except (TrpgArenaError, ValueError, ArithmeticError, LookupError, TypeError) as e:
                agent_error = f"the agents stopped: {e}"  # the change itself is stored
        records, events = s.since(mark)
        out = {"state": self._state(entry, s),
               "decisions": [public_record(r) for r in records], "events": [e.to_json() for e in events]}
        if agent_error is not None:
            out["agent_error"] = agent_error
        return out


def _summary(enc: EncounterBase) -> Doc:
    return {"ruleset": enc.ruleset, "encounter": enc.encounter, "combatants": len(enc.combatants),
            "sides": enc.sides(), "description": enc.description}


def _legal_index(s: Session, index: int | None, action: Doc | None) -> int:
    """The legal index named by `index` or by an action's JSON form (refused with the legal count if not legal)."""
    if (index is None) == (action is None):
        raise ToolRefusal("give exactly one of index (as get_pending lists it) or action", "invalid_arguments")
    pending = s.pending()
    if pending is None:
        raise SessionError(f"the combat is over ({s.combat.result}); undo to play on")
    if index is not None:
        return index
    assert action is not None
    # the JSON form names every field: one left out by the caller is None
    found = find_legal(pending.legal, {"verb": None, "target": None, "dest": None, "option": None, **action})
    if found is None:
        shown = " ".join(f"{k}={v}" for k, v in action.items() if v is not None)
        raise IllegalActionError(f"'{shown}' is not legal for {pending.decision.actor} now "
                                 f"({len(pending.legal)} legal actions: see get_pending)")
    return found
