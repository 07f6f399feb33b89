"""`Combat`: the state machine that always rests at a decision point.

The kernel owns the loop, the dice, the event log and persistence; the rule system (a
`RuleSystem` plugin) owns the rules. `act` checks legality before anything changes; if the rules
raise while applying a legal action (a dice script running out, say) the combat is rebuilt from
its last base point and the actions since, so it is exactly as before the call.

The base point is a copy of the state (`copier.state_copier`: values shared, containers new) taken
at the start of an act once the actions since the last one reach `REBASE_EVERY`, or at every act
with dice that interrupt by design (`Dice.interrupts`: a table waiting for faces, a script): then a
failed act restores that copy and replays nothing. Memory stays flat however long the combat runs.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic

from pydantic import ValidationError

from trpg_arena.rules.core.battlefield import Battlefield
from trpg_arena.rules.core.compiled import compiled
from trpg_arena.rules.core.copier import state_copier
from trpg_arena.rules.core.dice import Dice
from trpg_arena.rules.core.encounter import EncounterBase, load_encounter
from trpg_arena.rules.core.errors import IllegalActionError, InvalidActionError, SnapshotError, TrpgArenaError
from trpg_arena.rules.core.state_check import short
from trpg_arena.rules.core.system import CombatantView, RuleSystem, S, T, get_ruleset
from trpg_arena.rules.core.values import Action, Decision, DecisionKind, Event, Outcome, freeze_data, remember

SNAPSHOT_FORMAT = "trpg-arena-snapshot/1"
_new_tuple = tuple.__new__
DECISION_KINDS = ("decision", "auto_decision")  # the event kinds `act` and forced decisions log
AUTO_LIMIT = 100_000  # automatic decisions in a row before the kernel calls it a rules bug
# filled-in decisions a combat keeps (see `Combat.decision`): a rule system that opens a new object at every decision
# instead of a shared one must not make a long combat hold every decision it ever met
DECIDED_KEPT = 512
# Acts between two base points with dice that never interrupt (a failure is then a rules bug): a state
# copy every 32 acts costs well under 1 % of play, and a failed act replays at most 31 decisions.
REBASE_EVERY = 32


def _skip_event(*_args: Any, **_kwargs: Any) -> None:
    """`Combat.emit` of a combat that does not record events."""


class Combat(Generic[S, T]):
    """One combat of one rule system. See docs/architecture.md for the public API."""

    _views: list[CombatantView] | None  # set on first read of `combatants`, dropped by every act
    ahead: Any = None  # see `_legal_set`; a class default, so combats built without `__init__` (restored) have it
    worked_out: tuple[Any, Any, dict[Any, Any]] | None = None  # see `_legal_set`; a class default, as `ahead`

    def __init__(self, encounter: str | Path | dict[str, Any] | EncounterBase, seed: int | None = None, *,
                 dice: Dice | None = None, options: dict[str, Any] | None = None, record: bool = True) -> None:
        enc = load_encounter(encounter)
        if options:
            enc = enc.with_options(**options)
        self.encounter: EncounterBase = enc
        self.system: RuleSystem[S, T] = get_ruleset(enc.ruleset)
        self.dice: Dice = dice if dice is not None else Dice(seed)
        self.log: list[Event] = []
        self._seq0 = 0  # events dropped from the front of the log by `trim_log`
        self._n_decisions = 0
        if not record:
            self.recording = False
        built = compiled(enc, self.system)
        self.battlefield: Battlefield = built.battlefield
        self.tables: T = built.tables  # the system's static tables (`RuleSystem.compile`), shared
        self.scratch: dict[Any, Any] | None = None  # see `_legal_set`
        self.ahead: Any = None  # see `_legal_set`
        self._legal: list[Action] | None = None
        self._decided: dict[int, tuple[Decision, Decision]] = {}  # see `decision`; dropped with the sides
        self._sides: dict[str, str] = {}
        self.state: S = self.system.new_state(self)
        self._copy_state: Callable[[S], S] = state_copier(type(self.state))
        self.system.advance(self)
        self._settle()
        self._base: tuple[S, dict[str, Any], int, int] | None = None  # taken by the first act
        self._since: list[Action] = []
        self._acting = False

    def _legal_set(self) -> list[Action]:
        """The system's legal set, with `scratch` open: a dict for pieces the rules memoise while computing it.

        The rules may store there whatever one legal-set computation reads several times (a mover's
        reach, the closed doors); the kernel opens a fresh dict per computation and drops it after, so
        nothing stale survives a change of state, and each combat (thread) has its own.

        `ahead` is for what the rules worked out of the coming legal set while advancing to its decision (an
        offer they had to find non-empty to open it, say): the next computation, which follows the advance
        at once, may take it, and the kernel drops it after every computation and whenever the state is
        forgotten, so it never outlives the decision it was worked out for.

        `worked_out` keeps the latest computation's `scratch` with the state and decision it was worked out
        for, so that an action applied at that decision can hand on (through `ahead`) the pieces it leaves
        true; it is this combat's own, and dropped with the rest whenever the state is forgotten.
        """
        scratch: dict[Any, Any] = {}
        self.scratch = scratch
        try:
            return self.system.legal_actions(self)
        finally:
            self.scratch = None
            self.ahead = None
            self.worked_out = (self.state, self.state.decision, scratch)

    # --- read-only views ------------------------------------------------------------------------
    @property
    def decision(self) -> Decision | None:
        """The open decision point, with its `kind` and the decider's `side`; None when the combat is over."""
        st = self.state
        d = st.decision
        if st.outcome is not None or d is None:
            return None
        if d.side is not None:
            return d
        # rules open shared decisions (`shared_decision`), so a combat meets the same few objects again and again:
        # each one's filled-in form is kept by identity (the pair holds the object, so its id is not reused)
        known = self._decided.get(id(d))
        if known is not None and known[0] is d:
            return known[1]
        full = Decision(d.actor, d.step, d.prompt, self.system.decision_kinds.get(d.step, DecisionKind.CHOICE),
                        self.side_of(d.actor))
        remember(self._decided, id(d), (d, full), DECIDED_KEPT)
        return full

    def side_of(self, cid: str) -> str:
        """The side of a combatant (summons and arrivals included); KeyError for an unknown id."""
        side = self._sides.get(cid)
        if side is None:
            self._sides = {v.id: v.side for v in self.combatants}
            side = self._sides[cid]
        return side

    @property
    def over(self) -> bool:
        """Whether the combat has ended."""
        return self.state.outcome is not None

    @property
    def outcome(self) -> Outcome | None:
        """Winner, termination reason and rounds, once over."""
        return self.state.outcome

    @property
    def result(self) -> str | None:
        """The winning side's name, ``"draw"``, or None while running."""
        return None if self.state.outcome is None else self.state.outcome.result

    @property
    def round(self) -> int:
        """The current round (1-based; 0 before the first round starts)."""
        return self.state.round

    @property
    def phase(self) -> str:
        """The current phase or step name of the rule system."""
        return self.state.phase

    @property
    def combatants(self) -> list[CombatantView]:
        """Every combatant as a read-only `CombatantView` (cached until the next event)."""
        cached = self.__dict__.get("_views")
        if cached is not None:
            return list(cached)
        views = self.system.views(self)
        if not self.__dict__.get("_acting", True):
            self._views = views
        return list(views)

    @property
    def sides(self) -> list[str]:
        """Side names in the encounter's order."""
        return self.encounter.sides()

    # --- events -----------------------------------------------------------------------------------
    def emit(self, kind: str, text: str, *, actor: str | None = None, rule: str | None = None,
             **data: Any) -> Event | None:
        """Record one event and return it (rules call this for every roll and state change).

        A combat that does not record (`recording`) returns None.
        """
        log = self.log
        st = self.state
        # tuple.__new__ skips the named tuple's Python-level __new__: emit runs several times per decision.
        ev: Event = _new_tuple(Event, (self._seq0 + len(log), st.round, st.phase, kind, text, actor, rule,
                                       freeze_data(data)))
        log.append(ev)
        return ev

    # --- decisions --------------------------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        """Legal actions of the current decider, in a stable order (empty once over)."""
        return list(self.legal_view())

    def legal_view(self) -> list[Action]:
        """The cached legal list itself, without a copy: for hot loops (env masks) that only read it."""
        if self.state.outcome is not None:
            return []
        if self._legal is None:
            self._legal = self._legal_set()
        return self._legal

    def is_legal(self, action: Action) -> bool:
        """Whether `action` is legal now (cheap; uses the cached legal list, empty once over)."""
        # A list scan: membership tests compare identity first, and agents hand back the very objects
        # the legal list holds, so this beats building a set for every decision.
        return action in self.legal_view()

    def act(self, action: Action) -> list[Event]:
        """Apply one action of the current decider; returns the new events.

        Raises `IllegalActionError` (nothing changes) if it is not legal now, `InvalidActionError`
        if it is not an `Action` at all.
        """
        if not isinstance(action, Action):
            raise InvalidActionError(f"expected an Action, got {type(action).__name__}: {action!r}")
        if self.state.outcome is not None:
            raise IllegalActionError(f"the combat is over ({self.result}); no action is legal")
        legal = self._legal  # `legal_view` inline: act is the hottest call
        if legal is None:
            legal = self._legal = self._legal_set()
        try:  # a list scan, as in `is_legal`; the rules apply the legal set's own action, whose option a
            # system may type per verb, also when the caller's came from JSON with a plain tuple for it
            action = legal[legal.index(action)]
        except ValueError:
            d = self.state.decision
            assert d is not None
            options = ", ".join(a.describe() for a in (self._legal or [])[:12])
            more = "" if len(self._legal or []) <= 12 else f", ... ({len(self._legal or [])} in all)"
            raise IllegalActionError(f"'{action.describe()}' is not legal for {d.actor} at {d.step} "
                                     f"(legal: {options}{more})") from None
        if self._base is None or len(self._since) >= (1 if self.dice.interrupts else REBASE_EVERY):
            self._mark_base()
        mark = len(self.log)
        self._acting = True
        try:
            self._apply(action)
            self._since.append(action)
        except BaseException:
            self._rollback()
            raise
        finally:
            self._views = None
            self._acting = False
        return self.log[mark:]

    def _apply(self, action: Action) -> None:
        d = self.state.decision
        assert d is not None
        if "emit" not in self.__dict__:  # recording (see `recording`): the sentence is only built to be logged
            self.emit("decision", f"{d.actor}: {self.system.describe(self, action)}", actor=d.actor,
                      decision=d.step, action=action.json_form())
        self._n_decisions += 1
        self._legal = None
        self.system.apply(self, action)
        self._settle()

    def _settle(self) -> None:
        """Take every forced decision (one legal option) until a real choice or the end."""
        system = self.system
        # the default rule (exactly one legal action) without a method call per decision
        auto = None if type(system).auto_resolve is RuleSystem.auto_resolve else system.auto_resolve
        for _ in range(AUTO_LIMIT):
            st = self.state
            if st.outcome is not None:
                self._legal = None
                return
            if st.decision is None:
                raise RuntimeError(f"{system.info.id}: advance() stopped with no decision and no outcome")
            legal = self._legal = self._legal_set()
            if not legal:
                raise RuntimeError(f"{system.info.id}: empty legal set at {st.decision}")
            if (len(legal) != 1) if auto is None else not auto(self, legal):
                return
            d = self.state.decision
            assert d is not None  # checked above; `auto` only reads the combat
            if "emit" not in self.__dict__:
                self.emit("auto_decision", f"{d.actor}: {self.system.describe(self, legal[0])} (only option)",
                          actor=d.actor, decision=d.step, action=legal[0].json_form())
            self._n_decisions += 1
            self._legal = None
            self.system.apply(self, legal[0])
        raise RuntimeError(f"{self.system.info.id}: {AUTO_LIMIT} automatic decisions in a row")

    # --- changes from outside the rules -----------------------------------------------------------
    def outside_change(self, change: Callable[[], None], text: Callable[[], str], data: dict[str, Any]) -> list[Event]:
        """Apply a change the rules did not make (a GM's edit, see `core.edits`); returns its events.

        The ``gm_edit`` event (`text`, `data`) is logged first, then whatever the change emits. All or
        nothing: if `change` raises, or leaves the open decision without a decider or a legal action, the
        state and the log are put back and the error is raised. The dice are not touched; the rollback
        base is taken again at the next act, so a failed act never replays past the edit.
        """
        from trpg_arena.rules.core.edits import EditError

        if self._acting:
            raise RuntimeError("outside_change() inside act()")
        saved = self._copy_state(self.state)
        setup = (self.encounter, self.battlefield, self.tables)  # an added combatant changes the encounter
        mark = len(self.log)
        self._acting = True
        try:
            self.emit("gm_edit", text(), **data)
            change()
            self._forget()
            if self.state.outcome is None:
                d = self.decision
                if d is None or not self.legal_actions():
                    raise EditError("that would leave the open decision without a legal action", where="changes")
        except BaseException:
            self.state = saved
            self.encounter, self.battlefield, self.tables = setup
            del self.log[mark:]
            self._forget()
            raise
        finally:
            self._acting = False
            self._views = None
        self._base = None
        self._since = []
        return self.log[mark:]

    def _forget(self) -> None:
        """Drop everything cached from the state (views, legal set, decision, sides)."""
        self._views = None
        self._legal = None
        self.ahead = None
        self.worked_out = None
        self._decided = {}
        self._sides = {}

    # --- rollback ---------------------------------------------------------------------------------
    def _mark_base(self) -> None:
        """Take the rollback base here: a copy of the state nobody changes (a rollback copies it again)."""
        self._base = (self._copy_state(self.state), self.dice.state(), self._seq0 + len(self.log), self._n_decisions)
        self._since = []

    def _rollback(self) -> None:
        assert self._base is not None
        state, dice, seq, decisions = self._base
        self.state = self._copy_state(state)
        self.dice.load_state(dice)  # in place: the combat keeps the dice it was given (table dice, a logger)
        self.ahead = None
        self.worked_out = None
        keep = seq - self._seq0
        if keep >= 0:
            del self.log[keep:]
        else:  # `trim_log` dropped events after the base point: the replay below emits them again
            self.log.clear()
            self._seq0 = seq
        self._n_decisions = decisions
        self._legal = None
        for a in self._since:
            self._apply(a)

    # --- log size ---------------------------------------------------------------------------------
    @property
    def recording(self) -> bool:
        """Whether events are recorded in `log` (default True; `Combat(..., record=False)` or set it).

        A combat that records nothing plays exactly the same (same dice, same state, same
        `decision_count`) but builds no `Event`s: for headless training, where nobody reads the log.
        `act` then returns an empty list, and `Event.seq` counts recorded events only.
        """
        return "emit" not in self.__dict__

    @recording.setter
    def recording(self, on: bool) -> None:
        if on:
            self.__dict__.pop("emit", None)
        else:  # an instance attribute shadows the method: no flag test on the hot path
            self.emit = _skip_event  # type: ignore[method-assign]  # deliberate shadowing, see the comment above


    @property
    def decision_count(self) -> int:
        """Decisions taken so far (the agents' and the forced ones), trimmed ones included."""
        return self._n_decisions

    def trim_log(self, keep: int) -> None:
        """Drop all but the last `keep` events from memory.

        For long runs and training, where nobody reads old events: a combat that keeps its whole log
        also keeps every event's text and data alive, which costs memory and, in tight loops, time.
        Event numbers (`Event.seq`) and `decision_count` go on counting; `snapshot` saves the kept
        events only (a full record needs an untrimmed combat). Not allowed inside `act`.
        """
        if keep < 0:
            raise ValueError("keep must be >= 0")
        if self._acting:
            raise RuntimeError("trim_log() inside act()")
        drop = len(self.log) - keep
        if drop > 0:
            del self.log[:drop]
            self._seq0 += drop

    # --- persistence ------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """JSON-safe save of everything: encounter, dice (RNG state), rules state and the whole log."""
        return {
            "format": SNAPSHOT_FORMAT,
            "ruleset": self.system.info.id,
            "env_version": self.system.info.env_version,
            "encounter": self.encounter.model_dump(mode="json"),
            "source": self.encounter.source,
            "dice": self.dice.state(),
            "state": self.system.dump_state(self.state),
            "log": [e.to_json() for e in self.log],
            "log_start": self._seq0,
            "decisions": self._n_decisions,
        }

    @classmethod
    def restore(cls, snap: dict[str, Any], *, dice: Dice | None = None) -> Combat:
        """Rebuild a combat from `snapshot()`; it continues identically. Corrupt input raises `SnapshotError`.

        `dice` replaces the saved dice (e.g. `TableDice` around them, for a table that rolls by hand).
        """
        if not isinstance(snap, dict) or snap.get("format") != SNAPSHOT_FORMAT:
            raise SnapshotError(f"not a trpg-arena snapshot (expected format '{SNAPSHOT_FORMAT}')")
        missing = [k for k in ("ruleset", "encounter", "dice", "state", "log") if k not in snap]
        if missing:
            raise SnapshotError(f"snapshot is missing {', '.join(missing)}")
        try:
            self = cls.__new__(cls)
            self.encounter = load_encounter(snap["encounter"], source=snap.get("source"))
            self.system = get_ruleset(snap["ruleset"])
            self.dice = dice if dice is not None else _dice_of(snap["dice"])
            if not isinstance(snap["log"], list):
                raise SnapshotError(f"snapshot's log is a {type(snap['log']).__name__}, not a list of events")
            self.log = [Event.from_json(e) for e in snap["log"]]
            self._seq0 = _count(snap.get("log_start", self.log[0].seq if self.log else 0), "log_start")
            self._n_decisions = _count(snap.get("decisions", sum(1 for e in self.log if e.kind in DECISION_KINDS)),
                                       "decisions")
            built = compiled(self.encounter, self.system)
            self.battlefield, self.tables, self.scratch = built.battlefield, built.tables, None
            self.state = self.system.load_state(snap["state"])
            # fields of the right type can still contradict each other; the system names the first
            self.system.check_state(self.state, self)
            self._copy_state = state_copier(type(self.state))
        except TrpgArenaError as e:
            raise SnapshotError(f"snapshot cannot be restored: {e}") from None
        except ValidationError as e:  # a field of the state of the wrong type: name the first, count the rest
            first = e.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            more = f" (and {e.error_count() - 1} more)" if e.error_count() > 1 else ""
            raise SnapshotError(f"snapshot cannot be restored: state.{where}: {first['msg']}, got "
                                f"{short(first.get('input'))}{more}") from None
        except (LookupError, TypeError, ValueError, AttributeError, ArithmeticError) as e:  # e.g. a negative RNG word
            raise SnapshotError(f"snapshot cannot be restored: corrupt {type(e).__name__}: {e}") from None
        self._forget()
        self._base = None
        self._since = []
        self._acting = False
        self._check_restored()
        return self

    def _check_restored(self) -> None:
        """Ask a restored combat what every user of it asks first; a state that does not hold together is refused.

        Each field of a snapshot's state has its type checked on loading, but a state of valid fields
        can still contradict itself (a fighter in the turn order that is not in the state, a place off
        the board): the rules then fail on their first look at it. That is found here, named with the
        rule module that tripped, instead of surfacing as a bare `KeyError` at the first request.
        """
        doing = "listing the combatants"
        try:
            if not self.combatants:
                raise SnapshotError("snapshot's state has no combatants")
            if self.state.outcome is None:
                doing = "reading the open decision"
                if self.decision is None:
                    raise SnapshotError("snapshot's state has neither an open decision nor an outcome")
                doing = "listing the legal actions"
                if not self.legal_actions():
                    raise SnapshotError(f"snapshot's state leaves {self.decision.actor} no legal action")
        except TrpgArenaError as e:
            raise SnapshotError(f"snapshot cannot be restored: {e}") from None
        except Exception as e:  # noqa: BLE001 - any failure here is the snapshot's, named below
            raise SnapshotError(f"snapshot cannot be restored: its state does not hold together ({doing}: "
                                f"{type(e).__name__} {e} in {_where(e)})") from None
        finally:
            self._forget()

    def clone(self, dice: Dice | None = None) -> Combat[S, T]:
        """An independent copy for search; acting on it leaves this one untouched, and the reverse.

        Cheap: the encounter, battlefield and rule tables are shared, the state is copied by its types
        (values shared, containers new), the dice share their current block of numbers, and the log is
        not copied: the clone's log starts empty and its events are numbered on from this one's.
        `dice` replaces the copy's dice (search agents sample chance from their own generator instead of
        peeking at the live stream).
        """
        other = Combat.__new__(Combat)
        other.encounter = self.encounter
        other.system = self.system
        other.battlefield = self.battlefield
        other.tables = self.tables
        other.scratch = None
        other.ahead = None
        other.dice = dice if dice is not None else self.dice.copy()
        other.log = []
        if not self.recording:
            other.recording = False
        other._seq0 = self._seq0 + len(self.log)
        other._n_decisions = self._n_decisions
        other._copy_state = self._copy_state
        other.state = self._copy_state(self.state)
        other._legal = self._legal
        other._decided = {}
        other._sides = self._sides
        other._views = self.__dict__.get("_views")
        other._acting = False
        other._base = None  # its first act takes one
        other._since = []
        return other

    def __repr__(self) -> str:
        st = self.result if self.over else (self.decision.actor if self.decision else "?")
        return f"<Combat {self.system.info.id}/{self.encounter.encounter} round {self.round} {st}>"


def _dice_of(data: Any) -> Dice:
    """The dice a snapshot saved; `SnapshotError` naming the field for a state that is not theirs."""
    if not isinstance(data, dict):
        raise SnapshotError(f"snapshot's dice are a {type(data).__name__}, not a dice state")
    return Dice.from_state(data)


def _count(value: Any, field: str) -> int:
    """A non-negative whole number of a snapshot (`SnapshotError` naming `field` otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SnapshotError(f"snapshot's {field} is {value!r}, not a count")
    return value


def _where(error: BaseException) -> str:
    """The file and line an error was raised at (``legal.py:177``): where a contradiction tripped the rules."""
    frames = traceback.extract_tb(error.__traceback__)
    return f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
