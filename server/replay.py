"""Replays: a combat as frames (the board after each decision), from a stored session or a ``play --log`` file.

A stored session is rebuilt from its first checkpoint and its decision records (hand-rolled faces
included), exactly as undo and resume rebuild it. A log written by ``trpg-arena play --log`` holds
the events only; the engine is deterministic, so the same encounter and seed with the logged
decisions give the same combat again. Every replayed event is checked against the log, and a log
that does not fit (another encounter, seed or option) is refused at the first event that differs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from trpg_arena.rules import RULESETS, Action, Combat, EncounterBase, Event, TrpgArenaError, builtin_encounters
from trpg_arena.server.board import board_json, combatants_json
from trpg_arena.server.encounters import builtin, shape_problem
from trpg_arena.table.session import replay_records
from trpg_arena.table.stats import CombatStats

MAX_LOG_EVENTS = 200_000
MAX_EVENT_DEPTH = 16  # an event's data nests a few levels (an action in a decision's data)


class ReplayError(TrpgArenaError, ValueError):
    """A log that cannot be replayed: not JSON lines of events, or not a combat of the encounter and seed given."""


@dataclass
class Frame:
    """The combat after one decision (frame 0: before the first), with that decision's events."""

    n: int
    round: int
    actor: str | None
    text: str
    source: str | None
    next_actor: str | None
    combatants: list[dict[str, Any]]
    events: list[dict[str, Any]]
    over: bool
    result: str | None

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return dict(self.__dict__)


def _frame(combat: Combat, n: int, record: dict[str, Any] | None, events: list[Event]) -> Frame:
    decision = combat.decision
    text = record["text"] if record else "start"
    return Frame(n, combat.round, record["actor"] if record else None, text,
                 record.get("source") if record else None, decision.actor if decision else None,
                 combatants_json(combat),
                 [{"seq": e.seq, "round": e.round, "kind": e.kind, "text": e.text, "rule": e.rule} for e in events],
                 combat.over, combat.result)


def session_replay(checkpoint: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    """Frames of a stored session from its checkpoint at decision 0 and its live records, and its report."""
    frames: list[Frame] = []
    board: dict[str, Any] | None = None
    steps = _Steps()
    for n, (combat, events) in enumerate(replay_records(checkpoint, records)):
        if board is None:
            board = board_json(combat)
        record = records[n - 1] if n else None
        frames.append(_frame(combat, n, record, events if n else combat.log))
        steps.add(combat, events, round_=int(record["round"]) if record else None)
    assert board is not None
    return {"board": board, "frames": [f.to_json() for f in frames], "report": steps.report(combat)}


class _Steps:
    """What the post-combat report (`CombatStats`) reads while a replay runs: the views and events per decision."""

    def __init__(self) -> None:
        self.start: list[Any] = []
        self.steps: list[tuple[int, list[Event], list[Any]]] = []

    def add(self, combat: Combat, events: list[Event], round_: int | None) -> None:
        """The combat after a decision made in round ``round_`` and its events (``None``: the start)."""
        if round_ is None:
            self.start = combat.combatants
        else:
            self.steps.append((max(1, round_), list(events), combat.combatants))

    def report(self, combat: Combat) -> dict[str, Any]:
        return CombatStats.collect(self.start, self.steps).finish(combat).to_json()


# --- a log written by `trpg-arena play --log` --------------------------------------------------------
def parse_log(text: str) -> list[dict[str, Any]]:
    """The events of a JSON-lines log; `ReplayError` naming the line that is not an event."""
    events = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as e:
            raise ReplayError(f"log line {number}: not JSON ({e.msg} at column {e.colno})") from None
        except RecursionError:  # the parser recurses once per level
            raise ReplayError(f"log line {number}: nested more than {MAX_EVENT_DEPTH} levels deep") from None
        problem = shape_problem(event, max_nodes=10_000, max_depth=MAX_EVENT_DEPTH)
        if problem is not None:
            raise ReplayError(f"log line {number}: {problem}")
        if not isinstance(event, dict) or not {"kind", "text", "seq"} <= event.keys():
            raise ReplayError(f"log line {number}: not an event (expected an object with seq, kind and text)")
        events.append(event)
        if len(events) > MAX_LOG_EVENTS:
            raise ReplayError(f"log has more than {MAX_LOG_EVENTS} events")
    if not events:
        raise ReplayError("the log is empty")
    return events


def ruleset_of_log(events: list[dict[str, Any]]) -> str | None:
    """The rule system whose rule-id prefix (``MOON-``, ``REI-``...) the log's events cite, if one does."""
    prefixes = {RULESETS[rid].info.prefix: rid for rid in RULESETS}
    for event in events:
        head = str(event.get("rule") or "").split("-", 1)[0]
        if head in prefixes:
            return prefixes[head]
    return None


def log_replay(events: list[dict[str, Any]], encounter: EncounterBase | None, seed: int,
               options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Frames of a logged combat; without an encounter, the built-in one of the log's rule system that fits.

    `options` are the flags the game was played with (``play --option``): without them such a log fits no
    encounter, since the rules played differ.
    """
    if encounter is not None:
        return _replay_log(events, encounter.with_options(**options) if options else encounter, seed)
    rid = ruleset_of_log(events)
    if rid is None:
        raise ReplayError("the log cites no rule system's rule ids: name its encounter")
    tried = []
    for name in builtin_encounters(RULESETS[rid]):
        candidate = builtin(name)
        try:
            return _replay_log(events, candidate.with_options(**options) if options else candidate, seed)
        except ReplayError as e:
            tried.append(f"{name}: {e}")
    raise ReplayError(f"no built-in {rid} encounter fits this log with seed {seed} ({'; '.join(tried)})")


def _replay_log(events: list[dict[str, Any]], encounter: EncounterBase, seed: int) -> dict[str, Any]:
    combat = Combat(encounter, seed=seed)
    where = 0  # log events matched so far
    where = _match(events, where, combat.log, encounter, seed)
    frames = [_frame(combat, 0, None, combat.log)]
    steps = _Steps()
    steps.add(combat, combat.log, round_=None)
    while where < len(events):
        logged = events[where]
        if logged["kind"] != "decision" or "action" not in (logged.get("data") or {}):
            raise ReplayError(f"log event {logged['seq']} ('{logged['text']}'): expected the next decision "
                              f"of {encounter.encounter} with seed {seed}")
        try:
            action = Action.from_json(logged["data"]["action"])
            round_ = combat.round
            made = combat.act(action)
        except (TrpgArenaError, KeyError, TypeError, ValueError) as e:
            raise ReplayError(f"log event {logged['seq']}: '{logged['text']}' cannot be played in "
                              f"{encounter.encounter} with seed {seed} ({e})") from None
        where = _match(events, where, made, encounter, seed)
        record = {"actor": logged.get("actor"), "text": logged["text"], "source": "log"}
        frames.append(_frame(combat, len(frames), record, made))
        steps.add(combat, made, round_=round_)
    return {"board": board_json(combat), "frames": [f.to_json() for f in frames], "report": steps.report(combat),
            "encounter": encounter.encounter, "ruleset": encounter.ruleset, "seed": seed}


def _match(logged: list[dict[str, Any]], start: int, made: list[Event], encounter: EncounterBase, seed: int) -> int:
    """Check the replayed events against the log from `start`; returns where the log goes on."""
    for offset, event in enumerate(made):
        i = start + offset
        if i >= len(logged):
            raise ReplayError(f"the log ends at event {len(logged)}, but {encounter.encounter} with seed {seed} "
                              f"goes on: '{event.text}'")
        if logged[i]["text"] != event.text:
            raise ReplayError(f"log event {logged[i]['seq']} says '{logged[i]['text']}', but {encounter.encounter} "
                              f"with seed {seed} gives '{event.text}'")
    return start + len(made)
