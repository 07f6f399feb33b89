"""`Session`: one combat, a seat per side or combatant, and the one loop that asks whoever decides.

Every surface is a driver of this loop: the terminal autopilot and the HTTP server (people, agents
and agents under review, stored after every decision), the headless runner and the Gymnasium
env's opponents (agents only, nothing stored).

- **Seats.** A decision goes to the seat of its combatant, else of its side, else the default for
  PCs or NPCs (`Seat`: a person, an agent, or an agent under review).
- **Proposals.** An agent seat's proposal is computed once per decision (`pending`) and applied by
  `step`/`run`; a review seat's waits for `confirm` or `override` (or runs with `autorun`). A driver
  that must not think while it holds the session (the server) sets `think_here` off: the proposal is
  then computed elsewhere on a copy (`think`, `Thought`) and handed back (`take`); until then the
  decision shows as `thinking` and what needs the proposal raises `ProposalNotReady`.
- **Dice by hand.** A seat (or the whole table) may roll physical dice: the engine's request
  (`DiceRequest`) is shown, the faces are entered with `enter_dice`, and the action is tried again;
  a wrong entry is refused and nothing changes. A roll is its roller's, whoever decides: a seat with
  ``+dice`` rolls its combatants' attacks, defences and checks by hand, also when another seat's decision
  brings them about, and never another seat's rolls (the engine rolls those, as with no table at all).
- **Routine decisions.** What a table rarely wants asked (the rule system's `routine` steps: moonlit's
  "escape or stay?" every round) is answered for a person's seat with its usual choice, recorded as a
  ``routine`` decision, unless the session asks for them (`ask_routine`, stored; off by default).
- **History.** Each decision is a record (action, faces typed, agents' states after it). `undo` and
  `rewind` rebuild the combat from the nearest checkpoint and replay the records; with a
  `SessionStore` every record is appended durably, so `Session.load` continues exactly.
- **Store first.** A change (a decision, an undo, a seat, dice asked for) is part of the session only
  once it is stored: a failed write (`StoreBusy`...) leaves the session as it was and is raised.
- **Revisions.** `revision` changes with every change; each mutating method takes an optional
  ``revision=`` and refuses with `StaleRevision` (changing nothing) when the session has moved on, so a
  caller acting on what it saw never acts on another decision. Several processes may share a store:
  a copy that is behind is refused by the store, catches up (`refresh`, listeners hear what it
  missed) and raises `StaleRevision` instead of writing.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from trpg_arena.agents.proposal import Proposal
from trpg_arena.agents.spec import check_agent, make_agent
from trpg_arena.agents.temperament import temper
from trpg_arena.rules import Action, Combat, Decision, EncounterBase, Event, TrpgArenaError, load_encounter
from trpg_arena.rules.core.errors import DiceNeeded, SnapshotError
from trpg_arena.rules.core.table_dice import DiceRequest, TableDice
from trpg_arena.rules.core.temperaments import Tactics, check_names
from trpg_arena.rules.core.wording import counted
from trpg_arena.table.choices import pending_json
from trpg_arena.table.edits import GM, GmEdit, apply_edit
from trpg_arena.table.seats import Seat, SeatKind
from trpg_arena.table.store import SessionMissing, SessionStore, StoreBusy, StoreConflict, StoreError

CHECKPOINT_EVERY = 32  # decisions between full snapshots: undo and resume replay at most this many


@dataclass(frozen=True)
class Mark:
    """A point in a session's history: how many decisions it had and the number of its next event."""

    decisions: int
    event: int


class SessionError(TrpgArenaError, ValueError):
    """A session request that does not fit the open decision (nothing to confirm, no dice asked for...)."""


class TacticsError(SessionError):
    """A temperament that does not fit the encounter (a wrong value, or a name that is no combatant)."""


class SeatKeyError(TrpgArenaError, ValueError):
    """A seat key that names no side or combatant: malformed input (422), not a request that does not fit now."""


class ProposalNotReady(SessionError):
    """The open decision's proposal is still being computed elsewhere (`think_here` off): ask again shortly."""


class StaleRevision(SessionError):
    """A change asked for at a revision the session has moved past (here or in another process): nothing was done.

    `revision` is the session's now; read its state again and decide on that.
    """

    def __init__(self, message: str, *, revision: int) -> None:
        super().__init__(message)
        self.revision = revision


Write = Callable[[SessionStore, str, int], int]  # stores a change at a revision; returns the new revision


@dataclass(frozen=True)
class Pending:
    """The open decision of a session: who decides, how, the agent's proposal and any dice asked for."""

    decision: Decision
    seat: Seat
    proposal: Proposal | None
    dice: DiceRequest | None
    legal: list[Action]
    thinking: bool = False  # the agent's proposal is being computed elsewhere (see `Session.think`)

    @property
    def needs_person(self) -> bool:
        """Whether a person must act now (choose, confirm or override, or enter dice)."""
        return self.dice is not None or self.seat.kind is not SeatKind.AGENT

    def to_json(self, combat: Combat) -> dict[str, Any]:
        """JSON-safe form: who decides and how, the proposal, any dice asked for, the legal actions by verb.

        The one form of an open decision: the server's API, the page and MCP clients read exactly this.
        """
        return pending_json(combat, self)


Listener = Callable[[dict[str, Any]], None]


@dataclass
class Thought:
    """An agent's proposal to compute away from the session: copies of the agent and the combat at one revision.

    `compute` touches neither the session nor its live dice; `Session.take` applies the result only if
    the session is still where it was (same revision and decision), so a stale thought is dropped.
    """

    key: str
    revision: int
    decision: int
    agent: Any
    combat: Combat

    def compute(self) -> Proposal:
        """The proposal (the copy of the agent advances as the live one would have)."""
        return self.agent.propose(self.combat)


class Session:
    """One combat and its seats; see the module docstring. Build with `Session(...)`, `load` or `attach`."""

    def __init__(self, encounter: str | Path | dict[str, Any] | EncounterBase, *, seed: int = 0,
                 seats: Mapping[str, str | Seat] | None = None, pc: str | Seat = "human",
                 npc: str | Seat = "scripted", table_dice: bool = False, store: SessionStore | None = None,
                 name: str | None = None, options: dict[str, Any] | None = None, ask_routine: bool = False,
                 tactics: Mapping[str, Tactics | dict[str, Any] | None] | None = None) -> None:
        enc = load_encounter(encounter)
        if options:
            enc = enc.with_options(**options)
        # the encounter's `controllers:` section gives default seats; those passed here win
        self._setup(enc, seed, {**(enc.controllers or {}), **(seats or {})}, Seat.parse(pc), Seat.parse(npc),
                    table_dice)
        self._set_tactics(parse_tactics(tactics or {}, enc))  # checked before anything is built or stored
        self.ask_routine = ask_routine
        for _, seat in self._known_seats():  # every agent spec valid before anything is built or stored
            if seat.agent is not None:
                check_agent(seat.agent, enc.ruleset)
        self.combat = Combat(enc, dice=TableDice(_engine_dice(seed)))
        self._check_seat_keys()
        self.records: list[dict[str, Any]] = []
        self.history = True
        first = self._checkpoint()
        self._checkpoints: dict[int, bytes] = {0: _pack(first)}  # compressed: see `_pack`
        self.store = store
        self.id: str | None = None
        self.revision = 0
        if store is not None:
            self.id = store.create(name or enc.label, enc.ruleset, enc.label, self.setup_json(), first)
        self._settle_routine()

    def _setup(self, enc: EncounterBase, seed: int, seats: Mapping[str, str | Seat], pc: Seat, npc: Seat,
               table_dice: bool) -> None:
        self.encounter = enc
        self.seed = seed
        self.seats = {k: Seat.parse(v) for k, v in seats.items()}
        self.defaults = {"pc": pc, "npc": npc}
        self.table_dice = table_dice
        self.autorun = False
        self.ask_routine = False
        self._settling = False
        self.agents: dict[str, Any] = {}
        # stored states of agents that cannot be built now (a seat's model file is gone): put back if the seat is
        # built again, stored on with every decision, dropped when the GM gives the seat another agent
        self._unbuilt: dict[str, Any] = {}
        self._seat_of: dict[str, tuple[str, Seat]] = {}
        self._proposal: tuple[int, Proposal] | None = None
        self._proposal_error: tuple[int, int, Exception] | None = None  # (revision, decision, why it failed)
        self.think_here = True  # compute proposals when asked; off: only `take` them (see the module docstring)
        self._dice_request: DiceRequest | None = None
        self._trying: tuple[Action, str, Proposal | None] | None = None
        self._pending: tuple[tuple[object, ...], Pending | None] | None = None  # see `pending`
        self.listeners: list[Listener] = []
        self.tactics: dict[str, Tactics | None] = {}  # the session's temperaments over the encounter's (None: none)
        self._temperaments: dict[str, Tactics] = dict(enc.tactics or {})  # what the agents read (shared)

    def _set_tactics(self, tactics: Mapping[str, Tactics | None]) -> None:
        """The session's temperaments (over the encounter's); agents built already follow them at once."""
        self.tactics = dict(tactics)
        merged = effective_tactics(self.encounter, self.tactics)
        self._temperaments.clear()
        self._temperaments.update({k: v for k, v in merged.items() if v is not None})
        if self._temperaments:
            self.agents = {k: temper(a, self._temperaments) for k, a in self.agents.items()}

    def temperament(self, cid: str) -> Tactics | None:
        """A combatant's temperament in this session (the session's over the encounter's), or None."""
        return self._temperaments.get(cid)

    def tactics_json(self) -> dict[str, dict[str, Any]]:
        """Every temperament in play, by combatant id: the fields set and a GM's summary line."""
        return {cid: t.to_json() for cid, t in self._temperaments.items()}

    def set_tactics(self, cid: str, tactics: Tactics | dict[str, Any] | None, *, revision: int | None = None) -> None:
        """Give a combatant a temperament (None: none at all), over the encounter's; stored like a seat."""
        self.expect(revision)
        parsed = parse_tactics({**self.tactics, cid: tactics}, self.encounter)  # a wrong value changes nothing
        self._change_setup(lambda: self._set_tactics(parsed))

    def _check_seat_keys(self, keys: list[str] | None = None) -> None:
        known = set(self.combat.sides) | set(self.combat.system.possible_ids(self.combat.encounter))
        for key in self.seats if keys is None else keys:
            if key not in known:
                raise SeatKeyError(f"seat '{key}' names no side or combatant (sides: {', '.join(self.combat.sides)};"
                                   f" combatants: {', '.join(sorted(known - set(self.combat.sides)))})")

    @classmethod
    def attach(cls, combat: Combat, agents: Mapping[str, Any]) -> Session:
        """A headless session over an existing combat: agent objects per side (or combatant), no history.

        The fast driver for runners, benchmarks and the envs' opponents: decisions go straight to
        ``agent.act`` and nothing is recorded.
        """
        self = cls.__new__(cls)
        self._setup(combat.encounter, 0, {}, Seat(SeatKind.HUMAN), Seat(SeatKind.HUMAN), False)
        self.combat = combat
        # the encounter's NPC temperaments apply to every driver (runners, series, envs' opponents)
        self.agents = {k: temper(a, self._temperaments) for k, a in agents.items()}
        self.seats = {k: Seat(SeatKind.AGENT, getattr(a, "spec", "") or type(a).__name__) for k, a in agents.items()}
        self.records = []
        self.history = False
        self.store = None
        self.id = None
        self.revision = 0
        self._checkpoints = {}
        return self

    # --- seats ------------------------------------------------------------------------------------
    def seat_for(self, actor: str) -> tuple[str, Seat]:
        """The seat that answers `actor`'s decisions and the key it is found under."""
        found = self._seat_of.get(actor)
        if found is not None:
            return found
        side = self.combat.side_of(actor)
        owner = actor.split(".", 1)[0]  # a summon answers to its summoner's seat
        for key in (actor, owner):
            if key in self.seats:
                found = (key, self.seats[key])
                break
        else:
            if side in self.seats:
                found = (side, self.seats[side])
            else:
                kind = next((v.kind for v in self.combat.combatants if v.id in (actor, owner)), "npc")
                group = "pc" if kind == "pc" else "npc"
                found = (group, self.defaults[group])
        self._seat_of[actor] = found
        return found

    def _roller_seat(self, roller: str, decider: str) -> Seat:
        """The seat whose dice a roll is: its roller's (as `seat_for`), a side's for a side's die (``side cult``).

        A roll that names neither (``the GM``'s blast, an unnamed roll) goes with the decision it follows.
        """
        side = roller.removeprefix("side ")
        if side != roller and side in self.combat.sides:
            if side in self.seats:
                return self.seats[side]
            kind = next((v.kind for v in self.combat.combatants if v.side == side), "npc")
            return self.defaults["pc" if kind == "pc" else "npc"]
        if roller:
            try:
                return self.seat_for(roller)[1]
            except KeyError:
                pass  # no combatant
        return self.seat_for(decider)[1]

    def set_seat(self, key: str, seat: str | Seat, *, revision: int | None = None) -> None:
        """Give a side, a combatant, or the ``pc`` / ``npc`` default a new seat (stored)."""
        self.expect(revision)
        parsed = Seat.parse(seat)
        if parsed.agent is not None:
            check_agent(parsed.agent, self.encounter.ruleset)  # before any change: a wrong value changes nothing
        if key not in ("pc", "npc"):
            self._check_seat_keys([key])  # before any change: a key naming nobody changes nothing
        before = self.defaults[key] if key in ("pc", "npc") else self.seats.get(key)

        def change() -> None:
            if key in ("pc", "npc"):
                self.defaults[key] = parsed
            else:
                self.seats[key] = parsed
            old = self.agents.pop(key, None)
            if old is not None and parsed.agent == getattr(old, "spec", None):
                self.agents[key] = old  # the same agent keeps its memory and RNG
            if parsed != before:
                self._unbuilt.pop(key, None)  # another agent starts afresh, as when its seat was built
            self._proposal = None

        self._change_setup(change)
        self._settle_routine()

    def clear_seat(self, key: str, *, revision: int | None = None) -> None:
        """Take back a side's or combatant's own seat (stored): its decisions go to the seat it falls back on.

        Nothing of its own, nothing changes. ``pc`` and ``npc`` are where every seat falls back: they can be
        given another seat, not taken away.
        """
        self.expect(revision)
        if key in ("pc", "npc"):
            raise SessionError(f"'{key}' is the seat every {key.upper()} falls back on: give it another seat instead")
        self._check_seat_keys([key])
        if key not in self.seats:
            return

        def change() -> None:
            del self.seats[key]
            self.agents.pop(key, None)
            self._unbuilt.pop(key, None)
            self._proposal = None

        self._change_setup(change)
        self._settle_routine()

    def set_table_dice(self, on: bool, *, revision: int | None = None) -> None:
        """Switch the whole table to physical dice (every seat) or back to the engine's.

        Switched off while a roll waits (and the roller's seat does not roll by hand itself), the waiting
        action goes on at once: the faces typed for it so far stand, the program rolls the rest (but those of
        seats that roll by hand, which are asked for).
        """
        self.expect(revision)
        self._change_setup(lambda: setattr(self, "table_dice", on))
        request, d = self._dice_request, self.combat.decision
        if not on and self._trying is not None and request is not None and d is not None:
            if not self._roller_seat(request.roller, d.actor).by_hand:
                action, source, proposal = self._trying
                self._apply(action, source, proposal)

    def set_autorun(self, on: bool, *, revision: int | None = None) -> None:
        """Let review seats' proposals be applied without a confirmation (stored), or stop doing so."""
        self.expect(revision)
        self._change_setup(lambda: setattr(self, "autorun", on))

    def settle_routine(self) -> None:
        """Give people's open routine questions their usual answers now (each a stored ``routine`` decision).

        Every change does this; a table opening a session left where such a question stood unanswered (its
        answer's dice were being asked, which only memory held) calls it so the question is not put to a person:
        the answer is given again and its dice asked for. Nothing happens while dice are asked.
        """
        if self.dice_asked is None:
            self._settle_routine()

    def set_ask_routine(self, on: bool, *, revision: int | None = None) -> None:
        """Ask people the routine decisions too (stored), or answer them with the usual choice again (at once)."""
        self.expect(revision)
        self._change_setup(lambda: setattr(self, "ask_routine", on))
        self._settle_routine()

    def _change_setup(self, change: Callable[[], None]) -> None:
        """Make a change to seats or settings and store it; if the store refuses, the session is as it was."""
        saved = (dict(self.seats), dict(self.defaults), self.table_dice, self.autorun, self.ask_routine,
                 dict(self.agents), dict(self._unbuilt), self._proposal)
        tactics = dict(self.tactics)

        def roll_back() -> None:
            (self.seats, self.defaults, self.table_dice, self.autorun, self.ask_routine, self.agents,
             self._unbuilt, self._proposal) = saved
            self._set_tactics(tactics)
            self._seat_of.clear()

        change()
        self._seat_of.clear()
        self._commit(lambda store, sid, rev: store.update_setup(sid, self.setup_json(), rev), roll_back)

    def _agent(self, key: str, seat: Seat) -> Any:
        agent = self.agents.get(key)
        if agent is None:
            rng = np.random.default_rng([self.seed, zlib.crc32(key.encode()), 1])
            agent = make_agent(seat.agent or "scripted", self.encounter.ruleset, rng=rng)
            agent = self.agents[key] = temper(agent, self._temperaments)
            stored = self._unbuilt.pop(key, None)
            if stored is not None:  # it could not be built when the session was restored: it goes on from there
                agent.set_state(stored)
        return agent

    # --- the loop ---------------------------------------------------------------------------------
    @property
    def dice_asked(self) -> DiceRequest | None:
        """The dice the action being tried waits for (typed at the table), if any; held in memory only."""
        return self._dice_request

    def pending(self) -> Pending | None:
        """The open decision with its seat, the agent's proposal (agent and review seats) and any dice asked for.

        Built once per state of the session: a request reads it several times (to find the action it names, to
        check the decision is open, to answer with the state), and gets the same object each time until
        something it depends on changes.
        """
        memo = self._pending
        if memo is not None and _same(memo[0], self._pending_key()):
            return memo[1]
        pending = self._open_decision()
        self._pending = (self._pending_key(), pending)  # after building it: building may compute the proposal
        return pending

    def _pending_key(self) -> tuple[object, ...]:
        """Everything the open decision's `Pending` is made of; any change here builds it again.

        The revision changes with every stored change (seats, edits, undo, another process's decisions), the
        combat object on undo or reload and its decision count with every action; the dice asked for and the
        proposal (or its failure) change in memory without a revision.
        """
        d = self.combat.decision
        return (self.combat, self.combat.decision_count, self.revision, self.think_here, self._dice_request,
                self._proposal, self._proposal_error, self.seat_for(d.actor) if d is not None else None)

    def _open_decision(self) -> Pending | None:
        c = self.combat
        d = c.decision
        if d is None:
            return None
        key, seat = self.seat_for(d.actor)
        if self.think_here or seat.kind is SeatKind.HUMAN:
            return Pending(d, seat, self._propose(key, seat), self._dice_request, c.legal_actions())
        proposal = self._ready()
        return Pending(d, seat, proposal, self._dice_request, c.legal_actions(), thinking=proposal is None)

    def _ready(self) -> Proposal | None:
        """The open decision's proposal if computed (here or taken from elsewhere); its failure is raised again."""
        n = self.combat.decision_count
        if self._proposal is not None and self._proposal[0] == n:
            return self._proposal[1]
        failed = self._proposal_error
        if failed is not None and failed[:2] == (self.revision, n):
            raise failed[2]
        return None

    def _known(self) -> bool:
        """Whether the open decision's proposal is computed, or known to fail."""
        n = self.combat.decision_count
        failed = self._proposal_error
        return ((self._proposal is not None and self._proposal[0] == n)
                or (failed is not None and failed[:2] == (self.revision, n)))

    def _propose(self, key: str, seat: Seat) -> Proposal | None:
        if seat.kind is SeatKind.HUMAN:
            return None
        ready = self._ready()
        if ready is not None:
            return ready
        if not self.think_here:
            raise ProposalNotReady(f"{self.combat.decision.actor if self.combat.decision else 'the'} agent "
                                   f"({seat}) is still thinking: ask again when its proposal is shown")
        proposal = self._agent(key, seat).propose(self.combat)
        self._proposal = (self.combat.decision_count, proposal)
        return proposal

    def think(self) -> Thought | None:
        """The open decision's proposal to compute elsewhere, or None (a person's seat, over, dice asked, known).

        The copies are taken now (cheap): computing them needs no lock on the session.
        """
        d = self.combat.decision
        if d is None or self._dice_request is not None:
            return None
        key, seat = self.seat_for(d.actor)
        if seat.kind is SeatKind.HUMAN or self._known():
            return None
        try:
            live = self._agent(key, seat)
            agent = make_agent(seat.agent or "scripted", self.encounter.ruleset, rng=np.random.default_rng(0))
            agent = temper(agent, dict(self._temperaments))
            agent.set_state(live.get_state())  # exactly where the live agent is: the same proposal
        except (TrpgArenaError, ValueError, LookupError, TypeError) as e:  # a spec stored before it was checked
            self._proposal_error = (self.revision, self.combat.decision_count, e)
            return None
        combat = self.combat.clone()
        combat.log = list(self.combat.log)  # a search reuses its tree by reading the decisions since its last
        return Thought(key, self.revision, self.combat.decision_count, agent, combat)

    def take(self, thought: Thought, result: Proposal | Exception) -> bool:
        """Hand back a `Thought`'s proposal (or why it failed); False, changing nothing, if the session moved on."""
        d = self.combat.decision
        if (d is None or thought.revision != self.revision or thought.decision != self.combat.decision_count
                or self.seat_for(d.actor)[0] != thought.key or self._known()):
            return False
        if isinstance(result, Exception):
            self._proposal_error = (self.revision, thought.decision, result)
            return True
        self._agent(thought.key, self.seat_for(d.actor)[1]).set_state(thought.agent.get_state())
        self._proposal = (thought.decision, result)
        return True

    def run(self, until: Callable[[Decision], bool] | None = None, max_decisions: int | None = None) -> int:
        """Let agent seats (and review seats, with `autorun`) decide until a person must act; returns how many.

        Stops at a person's decision, a review seat's (unless `autorun`), dice to enter, a decision for
        which `until` is true, after `max_decisions`, or at the end.
        """
        c = self.combat
        taken = 0
        history = self.history
        while max_decisions is None or taken < max_decisions:
            d = c.decision
            if d is None or (until is not None and until(d)) or self._dice_request is not None:
                break
            key, seat = self.seat_for(d.actor)
            if seat.kind is SeatKind.HUMAN:
                break
            # a review seat waits for the GM, unless its proposal is a routine question's usual answer
            routine = seat.kind is SeatKind.REVIEW and not self.autorun
            if routine and not self._routine_proposal(key, seat):
                break
            if not history:
                c.act(self.agents[key].act(c))
            else:
                try:
                    proposal = self._propose(key, seat)
                except ProposalNotReady:
                    break  # being computed elsewhere: whoever computes it goes on
                assert proposal is not None
                try:
                    if self._apply(proposal.action, "routine" if routine else "agent", proposal) is None:
                        break
                except StaleRevision:
                    break  # another process decided first: this copy has caught up; whoever asked sees it now
                except StoreBusy:
                    if taken == 0:
                        raise
                    break  # what was decided is stored: say so, and let the next call meet the busy file
            taken += 1
        if not history:
            self.revision += taken
        return taken

    def step(self, *, revision: int | None = None) -> list[Event] | None:
        """Apply the open agent or review seat's proposal (one decision); None if dice are now needed."""
        self.expect(revision)
        p = self._require_open()
        if p.proposal is None:
            raise SessionError(f"{p.decision.actor}'s decision is a person's ({p.seat}): submit an action")
        return self._apply(p.proposal.action, "agent" if p.seat.kind is SeatKind.AGENT else "confirmed",
                           p.proposal)

    def confirm(self, *, revision: int | None = None) -> list[Event] | None:
        """Accept the agent's proposal for the open decision."""
        self.expect(revision)
        p = self._require_open()
        if p.proposal is None:
            raise SessionError(f"nothing to confirm: {p.decision.actor} is played by a person ({p.seat})")
        return self._apply(p.proposal.action, "confirmed", p.proposal)

    def override(self, action: Action | int, *, revision: int | None = None) -> list[Event] | None:
        """Apply another action instead of the agent's proposal."""
        self.expect(revision)
        p = self._require_open()
        if p.proposal is None:
            raise SessionError(f"nothing to override: {p.decision.actor} is played by a person ({p.seat})")
        return self._apply(self._legal_action(p, action), "override", p.proposal)

    def submit(self, action: Action | int, *, revision: int | None = None) -> list[Event] | None:
        """A person's action for the open decision (an override, if an agent had proposed another)."""
        self.expect(revision)
        p = self._require_open()
        chosen = self._legal_action(p, action)
        if p.proposal is not None:
            return self._apply(chosen, "confirmed" if chosen == p.proposal.action else "override", p.proposal)
        return self._apply(chosen, "human", None)

    def _require_open(self) -> Pending:
        """The open decision; `ProposalNotReady` while its proposal is computed elsewhere."""
        p = self.pending()
        if p is None:
            raise SessionError(f"the combat is over ({self.combat.result}); undo to play on")
        if p.dice is not None:
            raise SessionError(f"dice are needed first: {p.dice.text()} ({p.dice.faces_help})")
        if p.thinking:
            raise ProposalNotReady(f"{p.decision.actor}'s agent ({p.seat}) is still thinking: ask again when its "
                                   "proposal is shown")
        return p

    @staticmethod
    def _legal_action(p: Pending, action: Action | int) -> Action:
        if isinstance(action, int) and not isinstance(action, bool):
            if not 0 <= action < len(p.legal):
                raise SessionError(f"no legal action #{action} (0-{len(p.legal) - 1})")
            return p.legal[action]
        if not isinstance(action, Action):
            raise SessionError(f"expected an Action or a legal index, got {action!r}")
        return action

    # --- dice by hand -----------------------------------------------------------------------------
    def enter_dice(self, entry: str | list[int] | tuple[int, ...], *, revision: int | None = None
                   ) -> list[Event] | None:
        """Faces for the roll asked for; the action is tried again. A wrong entry raises and changes nothing."""
        self.expect(revision)
        request, trying = self._dice_request, self._trying
        if request is None or trying is None:
            raise SessionError("no dice are asked for now")
        dice = self._table()
        typed = dice.entered
        dice.enter(request, entry)
        try:
            return self._apply(*trying)
        except StoreError:
            # not stored, so not taken: the same dice are asked for again, with the faces typed before this entry
            dice = self._table()
            dice.discard_entered()
            dice.queue(typed)
            self._dice_request, self._trying = request, trying
            raise

    def cancel_dice(self, *, revision: int | None = None) -> None:
        """Give up the action waiting for dice (its faces are forgotten); the decision is open again."""
        self.expect(revision)
        if self._dice_request is None:
            raise SessionError("no dice are asked for now")
        self._commit(lambda store, sid, rev: store.touch(sid, rev), lambda: None)
        self._table().settle(False)
        self._table().discard_entered()
        self._dice_request = None
        self._trying = None
        # watchers showing the dice prompt must hear that it is gone (the revision alone tells nobody)
        self._notify({"type": "dice_cancelled", "revision": self.revision})

    def _table(self) -> TableDice:
        dice = self.combat.dice
        if not isinstance(dice, TableDice):
            raise SessionError("this session's dice cannot be rolled by hand")
        return dice

    # --- applying ---------------------------------------------------------------------------------
    def _apply(self, action: Action, source: str, proposal: Proposal | None) -> list[Event] | None:
        c = self.combat
        d = c.decision
        assert d is not None
        dice = self._table()
        dice.by_hand = self.table_dice
        actor = d.actor
        dice.hand = lambda roller: self._roller_seat(roller, actor).by_hand  # each roll by its roller's seat
        dice.context = f"{d.actor}: {c.system.describe(c, action)}"
        dice.begin()
        round_before = c.round
        try:
            events = c.act(action)
        except DiceNeeded as need:
            dice.settle(False)  # the combat is unchanged: only the request is new, and it is stored as a change
            self._commit(lambda store, sid, rev: store.touch(sid, rev), lambda: None)
            self._dice_request = need.request
            self._trying = (action, source, proposal)
            self._notify({"type": "dice", "request": need.request.to_json(), "revision": self.revision})
            return None
        except BaseException:
            dice.settle(False)
            raise
        typed = dice.settle(True)
        record = {"n": len(self.records), "round": round_before, "actor": d.actor, "side": d.side,
                  "kind": d.kind.value, "step": d.step, "action": action.to_json(),
                  "text": events[0].text if events else action.describe(), "source": source,
                  "by_hand": dice.by_hand, "faces": [[sides, face] for sides, face, _ in typed],
                  "rollers": [roller for _, _, roller in typed],
                  "proposal": proposal.to_json() if proposal is not None else None,
                  "agents": self._agent_states()}
        self._store(record, events)
        self._settle_routine()
        return events

    def _store(self, record: dict[str, Any], events: list[Event]) -> None:
        """Store a record already applied to the combat, then keep it; if the store refuses, undo it in memory."""
        c = self.combat
        n = len(self.records) + 1
        checkpoint = self._checkpoint() if n % CHECKPOINT_EVERY == 0 or c.over else None
        status = "over" if c.over else "running"
        # stored first: if the store refuses, the combat goes back to the last stored decision
        self._commit(lambda store, sid, rev: store.append(sid, n - 1, record, status=status, result=c.result,
                                                         checkpoint=checkpoint, revision=rev),
                     lambda: self._rebuild_memory(self.records, dict(self._checkpoints)))
        self._dice_request = None
        self._trying = None
        self._proposal = None
        self.records.append(record)
        if checkpoint is not None:
            self._checkpoints[n] = _pack(checkpoint)
        self._notify({"type": "decision", "record": record, "events": [e.to_json() for e in events],
                      "revision": self.revision})

    # --- GM edits ---------------------------------------------------------------------------------
    def edit(self, edit: GmEdit, *, revision: int | None = None) -> list[Event]:
        """Apply a GM's edit (a combatant's values, its place, taking it out) as a decision of the GM's.

        Checked by the rules (`EditError` naming the field, nothing changed), stored first like every
        decision, undone by `undo`, replayed on resume. The open decision stays open; an agent's proposal
        made before the edit is dropped (it was made on another state). Refused while dice are asked for.
        """
        self.expect(revision)
        if not self.history:
            raise SessionError("a headless session keeps no history: edit its combat directly")
        if self._dice_request is not None:
            raise SessionError(f"dice are asked for ({self._dice_request.text()}): enter them or cancel the "
                               "roll before editing")
        c = self.combat
        round_before = c.round
        events = apply_edit(c, edit)
        record = {"n": len(self.records), "round": round_before, "actor": GM, "side": None, "kind": "edit",
                  "step": "edit", "action": None, "edit": edit.to_json(), "text": events[0].text, "source": "gm",
                  "by_hand": False, "faces": [], "proposal": None, "agents": self._agent_states()}
        self._store(record, events)
        self._proposal_error = None
        return events

    def routine_action(self) -> Action | None:
        """The usual answer to the open decision if it is a routine one the table does not ask a person (else None)."""
        c = self.combat
        d = c.decision
        if self.ask_routine or not self.history or d is None or self._dice_request is not None:
            return None
        verb = c.system.info.routine.get(d.step)
        if verb is None or self.seat_for(d.actor)[1].kind is not SeatKind.HUMAN:
            return None
        return next((a for a in c.legal_actions() if a.verb == verb), None)

    def _routine_proposal(self, key: str, seat: Seat) -> bool:
        """Whether a review seat's open decision is a routine question whose proposal is the usual answer.

        Moonlit's escape or stay: unless the table asks, it is then given like a person's routine answer,
        unconfirmed. A proposal other than the usual answer (a cowardly NPC that escapes) still waits for the GM.
        """
        c = self.combat
        d = c.decision
        if self.ask_routine or not self.history or d is None or self._dice_request is not None:
            return False
        verb = c.system.info.routine.get(d.step)
        if verb is None:
            return False
        try:
            proposal = self._propose(key, seat)
        except ProposalNotReady:
            return False  # being computed elsewhere: whoever takes it runs on
        return proposal is not None and proposal.action.verb == verb

    def _settle_routine(self) -> None:
        """Answer routine decisions of people's seats as usual (each one a stored ``routine`` decision)."""
        if self._settling:  # `_apply` of a routine answer calls this again: the loop below goes on
            return
        self._settling = True
        try:
            while (action := self.routine_action()) is not None:
                if self._apply(action, "routine", None) is None:
                    return
        finally:
            self._settling = False

    def _commit(self, write: Write, roll_back: Callable[[], None]) -> None:
        """Store a change already made in memory, and count it; if the store refuses, `roll_back` undoes it.

        A session without a store only counts it. A refusal because another process changed the session
        first (`StoreConflict`) makes this copy the store's (`refresh`) and raises `StaleRevision`.
        """
        if self.store is None or self.id is None:
            self.revision += 1
            return
        try:
            self.revision = write(self.store, self.id, self.revision)
        except StoreConflict:
            roll_back()
            self._catch_up()
            raise StaleRevision(f"session {self.id} was changed elsewhere (now revision {self.revision}, "
                                f"{len(self.records)} decisions): nothing was done here; decide again",
                                revision=self.revision) from None
        except BaseException:
            roll_back()
            raise

    def expect(self, revision: int | None) -> None:
        """Refuse with `StaleRevision` unless the session is at `revision` (None: no check).

        A stored session first catches up with what other processes stored, so a revision read from any
        of them is judged against the file.
        """
        if revision is None:
            return
        if revision != self.revision:
            self.refresh()
        if revision != self.revision:
            raise StaleRevision(f"this request answers revision {revision}, but the session is at revision "
                                f"{self.revision} ({len(self.records)} decisions): nothing was done; read the "
                                "state again", revision=self.revision)

    def change_at(self, revision: int | None, change: Callable[[Session], Any]) -> Mark:
        """Apply `change` if the session is at `revision` (`StaleRevision` otherwise, nothing done).

        Returns where what the change brings starts, for `since` (what a caller answers with).
        """
        self.expect(revision)
        mark = Mark(len(self.records), self.combat.log[-1].seq + 1 if self.combat.log else 0)
        change(self)
        return mark

    def since(self, mark: Mark) -> tuple[list[dict[str, Any]], list[Event]]:
        """The decisions and events that came after `mark` (events only where decisions did and are still held)."""
        log = self.combat.log  # numbered without gaps: the new events are its tail
        fresh = log and len(self.records) > mark.decisions and mark.event >= log[0].seq
        return self.records[mark.decisions:], (list(log[mark.event - log[0].seq:]) if fresh else [])

    def _agent_states(self) -> dict[str, Any]:
        return {**self._unbuilt, **{key: agent.get_state() for key, agent in self.agents.items()}}

    def _checkpoint(self) -> dict[str, Any]:
        return {"combat": self.combat.snapshot(), "dice": self.combat.dice.state(), "agents": self._agent_states()}

    # --- undo -------------------------------------------------------------------------------------
    def undo(self, n: int = 1, *, revision: int | None = None) -> None:
        """Take back the last `n` decisions (the combat is exactly as it was before them).

        An action waiting for its dice is the last decision: taking it back forgets it (as `cancel_dice`),
        and its decision is open again; the recorded decisions before it are the others.
        """
        self.expect(revision)
        if not self.history:
            raise SessionError("a headless session keeps no history to undo")
        waiting = int(self._dice_request is not None)
        if n < 1 or n > len(self.records) + waiting:
            raise SessionError(f"cannot undo {counted(n, 'decision')}: {len(self.records)} taken so far"
                               + (" and one waiting for its dice" if waiting else ""))
        if waiting and n == 1:
            self.cancel_dice()
            return
        self._rebuild(len(self.records) - n + waiting)  # the action waiting for dice is forgotten with them

    def to_last_person(self) -> int:
        """How many decisions to undo to reopen the last decision a person made or confirmed (else the last one).

        What "undo" means at the table (terminal, browser, HTTP API, MCP): agents' decisions after a person's
        are taken back with it, since a person is the one who wants to choose again. A person's action waiting
        for its dice is that decision (1: only it is taken back, not the one before it with its roll).
        """
        waiting = self._trying[1] if self._dice_request is not None and self._trying is not None else None
        if waiting is not None and waiting not in ("agent", "routine"):
            return 1
        if all(record["source"] == "routine" for record in self.records):
            # routine answers are given again at once: taking them back would change nothing
            raise SessionError("nothing to undo: no decision has been taken")
        # an agent's action waiting for dice is taken back with the decisions before it: alone it is taken again
        first = 1 if waiting is None else 2
        for back, record in enumerate(reversed(self.records), first):
            if record["source"] not in ("agent", "routine"):
                return back
        return first

    def rewind(self, round_: int, *, revision: int | None = None) -> None:
        """Go back to the first decision of round `round_` (everything after it is undone)."""
        self.expect(revision)
        target = next((r["n"] for r in self.records if r["round"] >= round_), None)
        if target is None:
            if self.combat.round >= round_:
                return  # no decision of that round taken yet: this is its first
            raise SessionError(f"round {round_} has not been reached (now round {self.combat.round})")
        self._rebuild(target)
        self._settle_routine()  # the round's start again: its routine answers are not a person's to give

    def _rebuild(self, target: int) -> None:
        records, checkpoints = list(self.records), dict(self._checkpoints)
        self._rebuild_memory(records[:target], {n: cp for n, cp in checkpoints.items() if n <= target})
        c = self.combat
        self._commit(lambda store, sid, rev: store.undo_to(sid, target, status="over" if c.over else "running",
                                                          result=c.result, revision=rev),
                     lambda: self._rebuild_memory(records, checkpoints))
        self._notify({"type": "undo", "decisions": target, "revision": self.revision})

    def _rebuild_memory(self, records: list[dict[str, Any]], checkpoints: dict[int, bytes]) -> None:
        """The combat after `records`, from the latest of `checkpoints` (which become the session's)."""
        base = max(n for n in checkpoints if n <= len(records))
        self._restore(_unpack(checkpoints[base]), records[base:])
        self.records = list(records)
        self._checkpoints = checkpoints

    def _restore(self, checkpoint: dict[str, Any], replay: list[dict[str, Any]]) -> list[list[Event]]:
        """Put the combat at `checkpoint`, replay `replay` records, and the agents as they were after the last.

        Returns the events of each replayed record.
        """
        steps = replay_records(checkpoint, replay)
        combat, _ = next(steps)
        events = [evs for _, evs in steps]  # the same combat object, advanced to after the last record
        self.combat = combat
        states = replay[-1]["agents"] if replay else checkpoint["agents"]
        known = dict(self._known_seats())
        self._unbuilt = {}
        for key, state in states.items():
            try:
                agent = self._agent(key, known.get(key, Seat(SeatKind.AGENT, "scripted")))
            except TrpgArenaError:
                # its agent cannot be built now (say its model file is gone): the session still opens, so the
                # GM can give the seat another agent; asked to act as it is, the seat says why it cannot
                self._unbuilt[key] = state
                continue
            agent.set_state(state)
        for key in [k for k in self.agents if k not in states]:
            del self.agents[key]  # first used after this point: rebuilt fresh from its seed when needed
        self._seat_of.clear()
        self._proposal = None
        self._dice_request = None
        self._trying = None
        return events

    def replay(self) -> Iterator[tuple[dict[str, Any] | None, list[Event], Combat]]:
        """The decisions taken so far, again from the start on a separate combat: each record, its events, the combat.

        For summaries that need the state between decisions (statistics, exports); the session is untouched.
        The first item is the start (record None, the events logged before the first decision); the combat
        yielded is the same object each time, advanced by one record.
        """
        if not self.history:
            raise SessionError("a headless session keeps no history to replay")
        steps = replay_records(_unpack(self._checkpoints[0]), self.records)
        combat, _ = next(steps)
        yield None, list(combat.log), combat
        for rec, (combat, events) in zip(self.records, steps):
            yield rec, events, combat

    def _known_seats(self) -> list[tuple[str, Seat]]:
        return list(self.seats.items()) + list(self.defaults.items())

    # --- persistence ------------------------------------------------------------------------------
    def setup_json(self) -> dict[str, Any]:
        """The setup a stored session is rebuilt from: encounter, seed, seats, dice mode."""
        out = {"encounter": self.encounter.model_dump(mode="json"), "source": self.encounter.source,
               "seed": self.seed, "seats": {k: str(s) for k, s in self.seats.items()},
               "pc": str(self.defaults["pc"]), "npc": str(self.defaults["npc"]), "table_dice": self.table_dice,
               "autorun": self.autorun, "ask_routine": self.ask_routine}
        if self.tactics:
            out["tactics"] = {k: None if t is None else t.model_dump(mode="json", exclude_defaults=True)
                              for k, t in self.tactics.items()}
        return out

    @classmethod
    def load(cls, store: SessionStore, sid: str) -> Session:
        """Continue a stored session exactly where its last stored decision left it."""
        with store.reading():  # one state of the file, whatever another process writes meanwhile
            setup = store.setup(sid)
            try:
                enc = load_encounter(setup["encounter"], source=setup.get("source"))
                self = cls.__new__(cls)
                self._setup(enc, int(setup["seed"]), setup.get("seats", {}), Seat.parse(setup.get("pc", "human")),
                            Seat.parse(setup.get("npc", "scripted")), bool(setup.get("table_dice")))
                self.autorun = bool(setup.get("autorun"))
                self.ask_routine = bool(setup.get("ask_routine"))
                self._set_tactics(parse_tactics(setup.get("tactics") or {}, enc))
                self.store = store
                self.id = sid
                self.history = True
                self.records = []
                self.revision = -1  # not yet read: the catch-up reads everything
                self._catch_up()
            except StoreError:
                raise
            except (TrpgArenaError, LookupError, TypeError, ValueError, AttributeError, ArithmeticError) as e:
                # ArithmeticError: a stored RNG word out of its range (numpy's OverflowError)
                why = str(e) if isinstance(e, TrpgArenaError) else f"{type(e).__name__}: {e}"
                raise StoreError(f"{store.path}: session {sid} cannot be restored ({why})") from None
        return self

    # --- other processes --------------------------------------------------------------------------
    def refresh(self) -> bool:
        """Catch up with what other processes stored for this session; True if there was anything.

        One cheap read when nothing changed. Listeners hear what this copy missed: an ``undo`` back to
        the last decision both share, the ``decision``s after it with their events, ``setup`` if seats
        or settings changed. `SessionMissing` if the session was deleted.
        """
        if self.store is None or self.id is None:
            return False
        head = self.store.head(self.id)
        if head is None:
            raise SessionMissing(f"{self.store.path}: no session '{self.id}' (it was deleted)")
        if head.revision == self.revision:
            return False
        self._catch_up()
        return True

    def _catch_up(self) -> None:
        """Make this copy the store's: setup, decisions and revision as stored now (see `refresh`)."""
        store, sid = self.store, self.id
        assert store is not None and sid is not None
        with store.reading():
            head = store.head(sid)
            if head is None:
                raise SessionMissing(f"{store.path}: no session '{sid}' (it was deleted)")
            setup = store.setup(sid)
            records = store.history(sid)
            shared = next((i for i, (a, b) in enumerate(zip(self.records, records)) if not _same_decision(a, b)),
                          min(len(self.records), len(records)))
            # listeners hear the events of the decisions this copy missed: replay from before the first of them
            # (no listener, as when loading: from the latest checkpoint, at most CHECKPOINT_EVERY decisions)
            base, checkpoint = store.checkpoint(sid, shared if self.listeners else len(records))
            last, latest = store.checkpoint(sid, len(records))
            first = store.checkpoint(sid, 0)[1]
        setup_changed = setup != {**self.setup_json(), "encounter": setup.get("encounter"),
                                  "source": setup.get("source")}
        undone = len(self.records) > shared
        self.seats = {k: Seat.parse(v) for k, v in setup.get("seats", {}).items()}
        self.defaults = {"pc": Seat.parse(setup.get("pc", "human")), "npc": Seat.parse(setup.get("npc", "scripted"))}
        self.table_dice = bool(setup.get("table_dice"))
        self.autorun = bool(setup.get("autorun"))
        self.ask_routine = bool(setup.get("ask_routine"))
        self.agents = {}  # rebuilt from the states stored with the decisions
        self._seat_of.clear()
        events = self._restore(checkpoint, records[base:])
        self.records = records
        self._checkpoints = {0: _pack(first), base: _pack(checkpoint), last: _pack(latest)}
        self.revision = head.revision
        if not self.listeners:
            return
        if setup_changed:
            self._notify({"type": "setup", "revision": self.revision})
        if undone:
            self._notify({"type": "undo", "decisions": shared, "revision": self.revision})
        for rec, evs in zip(records[shared:], events[shared - base:]):
            self._notify({"type": "decision", "record": rec, "events": [e.to_json() for e in evs],
                          "revision": self.revision})

    # --- events -----------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every session event (decisions, dice requests, undos); returns an unsubscribe."""
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener) if listener in self.listeners else None

    def _notify(self, message: dict[str, Any]) -> None:
        for listener in list(self.listeners):
            listener(message)


def effective_tactics(enc: EncounterBase, given: Mapping[str, Tactics | None]) -> dict[str, Tactics | None]:
    """Each combatant's temperament: the encounter's, then a session's by side, then a session's by combatant.

    Like a seat, a session's temperament may name a whole side; its members each take it (one that the
    block's ``protect`` names does not protect itself), unless a block names that combatant itself.
    """
    out: dict[str, Tactics | None] = dict(enc.tactics or {})
    members: dict[str, list[str]] = {}
    for c in enc.combatants:
        members.setdefault(c.side, []).append(c.id)
    for key, t in given.items():
        if key in members and key not in out:
            for cid in members[key]:
                out[cid] = t if t is None or t.protect != cid else t.model_copy(update={"protect": None})
    out.update({k: v for k, v in given.items() if k not in members or k in {c.id for c in enc.combatants}})
    return out


def parse_tactics(raw: Mapping[str, Any], enc: EncounterBase) -> dict[str, Tactics | None]:
    """Temperaments given to a session (side or combatant id -> block, None: none), checked against the encounter.

    A wrong block is a `TacticsError` naming where: ``tactics.ghoul.focus: focus 'x' names no combatant``.
    """
    out: dict[str, Tactics | None] = {}
    if not isinstance(raw, Mapping):
        raise TacticsError(f"tactics: a mapping of combatant id to a tactics block, got {type(raw).__name__}")
    for cid, block in raw.items():
        if block is None or isinstance(block, Tactics):
            out[cid] = block
            continue
        try:
            out[cid] = Tactics.model_validate(block)
        except ValidationError as e:
            first = e.errors(include_url=False)[0]
            where = ".".join(str(p) for p in ("tactics", cid, *first["loc"]))
            raise TacticsError(f"{where}: {first['msg'].removeprefix('Value error, ')}") from None
    sides = {c.id: c.side for c in enc.combatants}
    for key in out:
        if key not in sides and key not in sides.values():
            raise TacticsError(f"tactics.{key}: '{key}' names no side or combatant (sides: "
                               f"{', '.join(enc.sides())}; combatants: {', '.join(sides)})")
    named = set(out) - set(sides.values())
    touched = named | {cid for cid, side in sides.items() if side in out}
    merged = {k: v for k, v in effective_tactics(enc, out).items() if v is not None}
    problem = check_names({k: v for k, v in merged.items() if k in touched}, sides)
    if problem is not None:
        loc, message, _ = problem
        cid = str(loc[0])
        key = cid if cid in named else sides[cid]  # where the GM wrote it: the combatant, or its side
        where = ".".join(str(p) for p in ("tactics", key, *loc[1:]))
        raise TacticsError(f"{where}: {message}" + ("" if key == cid else f" (for {cid})"))
    return out


def _pack(checkpoint: dict[str, Any]) -> bytes:
    """A checkpoint as a session keeps it in memory: compressed JSON.

    The live objects of a full snapshot (the combat's whole event log included) took megabytes per
    loaded session; this is a few percent of that. Unpacking is the same JSON round trip a checkpoint
    read back from the store makes, so undo from memory and resume from the store restore the same combat.
    """
    return zlib.compress(json.dumps(checkpoint, separators=(",", ":")).encode(), 1)


def _unpack(packed: bytes) -> dict[str, Any]:
    """The checkpoint `_pack` kept."""
    return json.loads(zlib.decompress(packed))


def _same_decision(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two records took the same action with the same hand-rolled faces (the combat after them is equal)."""
    return (a["action"] == b["action"] and a.get("edit") == b.get("edit")
            and [list(f) for f in a["faces"]] == [list(f) for f in b["faces"]]
            and a.get("rollers") == b.get("rollers") and bool(a["by_hand"]) == bool(b["by_hand"]))


def replay_records(checkpoint: dict[str, Any], records: list[dict[str, Any]]) -> Iterator[tuple[Combat, list[Event]]]:
    """Rebuild the combat of `checkpoint`, then apply `records` (with their hand-rolled faces) one by one.

    Yields the combat at the checkpoint (no events), then after each record with that record's events;
    the same `Combat` object every time. Undo, resume and the server's replay of a session read it.
    """
    try:
        dice = TableDice.from_table_state(checkpoint["dice"])
    except (LookupError, TypeError, ValueError, AttributeError) as e:
        raise SnapshotError(f"the checkpoint's dice cannot be restored ({type(e).__name__}: {e})") from None
    combat = Combat.restore(checkpoint["combat"], dice=dice)
    yield combat, []
    for i, rec in enumerate(records):
        if rec.get("edit") is not None:  # a GM's edit: no dice, no action
            try:
                events = apply_edit(combat, GmEdit.from_json(rec["edit"]))
            except (TrpgArenaError, LookupError, TypeError, ValueError, AttributeError) as e:
                raise SnapshotError(f"decision {i + 1} after the checkpoint (a GM edit) cannot be replayed "
                                    f"({type(e).__name__}: {e})") from None
            yield combat, events
            continue
        try:
            dice.by_hand = bool(rec["by_hand"])
            dice.hand = None  # each face typed names its roller (none in records kept before they did: in order)
            dice.begin()
            rollers = rec.get("rollers") or [None] * len(rec["faces"])
            typed = zip(rec["faces"], rollers, strict=True)
            dice.queue([(_face(face), _roller(roller)) for (_, face), roller in typed])
            events = combat.act(Action.from_json(rec["action"]))
            dice.settle(True)
        except (TrpgArenaError, LookupError, TypeError, ValueError, AttributeError) as e:
            dice.settle(False)
            raise SnapshotError(f"decision {i + 1} after the checkpoint cannot be replayed "
                                f"({type(e).__name__}: {e})") from None
        yield combat, events


def _face(face: Any) -> int:
    """A recorded face typed by hand (a whole number from 1 up); `ValueError` for anything else."""
    if isinstance(face, bool) or not isinstance(face, int) or face < 1:
        raise ValueError(f"recorded face {face!r} is not a face of a die")
    return face


def _roller(roller: Any) -> str | None:
    """A recorded face's roller (None in records kept before faces named theirs); `ValueError` for anything else."""
    if roller is not None and not isinstance(roller, str):
        raise ValueError(f"recorded roller {roller!r} names no one")
    return roller


def _same(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    """Whether two `Session._pending_key`s are equal: the same objects (identity, not value), the same numbers."""
    return all(x is y or (type(x) is int and type(y) is int and x == y) for x, y in zip(a, b, strict=True))


def _engine_dice(seed: int) -> Any:
    from trpg_arena.rules import Dice

    return Dice(seed)


def play(combat: Combat, agents: Mapping[str, Any] | list[Any]) -> Any:
    """Play a combat to the end with one agent object per side (a mapping, or a list in side order)."""
    by_side = agents if isinstance(agents, Mapping) else dict(zip(combat.sides, agents))
    Session.attach(combat, by_side).run()
    return combat.outcome
