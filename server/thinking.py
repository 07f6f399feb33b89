"""Agent thinking for the server's sessions, off the request threads and outside the session locks.

A session held by the server never computes a proposal while a request holds it (`Session.think_here`
is off). Instead `Thinker.advance` (called with the session's lock held, after every request on it)
takes copies of the agent and the combat (`Session.think`), and a worker thread computes the proposal
on them under a `Deadline` of the server's agent time limit, counted from when the worker starts it
(`WORKERS` at once; the rest wait their turn and are not rushed). The worker then takes the lock only to
hand the result back (`Session.take`, refused if the session moved on meanwhile) and to go on: a run of
agent decisions (`Entry.run_left`) applies it and thinks about the next decision, and so on until a
person must act. Watchers hear ``{"type": "proposal"}`` when a proposal is ready.

Work is cancelled when it goes stale (an undo, a seat changed, the session deleted: the next
`advance` sees another decision or none) and at shutdown (`stop_all_agents` expires every deadline).
A request that needs the result waits for it briefly (`settle`) without holding the lock, then answers
with what there is (the state says ``thinking``).
"""

from __future__ import annotations

import logging
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trpg_arena.agents.deadline import Deadline, within
from trpg_arena.rules import TrpgArenaError
from trpg_arena.table.session import Thought
from trpg_arena.table.store import StoreBusy, StoreError, StoreUnusable

if TYPE_CHECKING:
    from trpg_arena.server.hub import Entry

WORKERS = 4  # proposals computed at once (over all sessions); more wait their turn
SWITCH_INTERVAL = 0.0005  # seconds a thread may hold the GIL while another waits for it (see `Thinker`)
log = logging.getLogger("trpg_arena.server")


@dataclass
class Job:
    """A thought being computed for one session, and the deadline that stops it.

    The time limit counts from when a worker starts the job, not from when it was queued: on a busy
    server a queued search would otherwise get only what was left of it (or nothing) and propose
    almost at random.
    """

    thought: Thought
    seconds: float | None  # the server's agent time limit (None: none)
    shown: bool = False  # a request answered while it was being computed: watchers are told when it is ready
    deadline: Deadline | None = None  # set by `start`
    cancelled: bool = False

    def same(self, other: Thought) -> bool:
        """Whether `other` asks for the same proposal (same revision, decision and seat)."""
        t = self.thought
        return (t.revision, t.decision, t.key) == (other.revision, other.decision, other.key)

    def start(self) -> Deadline | None:
        """The job's deadline, counted from now; None if it was cancelled before a worker took it."""
        # the deadline is set before `cancelled` is read, and `cancel` sets `cancelled` before reading the
        # deadline: whichever runs second sees the other's write, so a cancellation is never lost
        deadline = self.deadline = Deadline(self.seconds)
        return None if self.cancelled else deadline

    def cancel(self) -> None:
        """Stop the job: at once if it runs, or before it starts."""
        self.cancelled = True
        if self.deadline is not None:
            self.deadline.cancel()


class Thinker:
    """The worker threads computing proposals for a hub's sessions (see the module docstring)."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        # searches hold the GIL for its whole switch interval (5 ms by default) each time a request thread
        # gives it up around an SQLite call, so a request reading many rows waited seconds behind one search:
        # a short interval keeps requests answering while agents think
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
        self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="trpg-arena agent")

    def advance(self, entry: Entry) -> None:
        """Apply what is ready (a run going on), start the thinking the open decision needs (lock held)."""
        s = entry.session
        if s is None or entry.deleted:  # unloaded or deleted: nothing to think about here
            entry.run_left = 0
            self.cancel(entry)
            return
        s.think_here = False
        if entry.run_left > 0:
            try:
                taken = s.run(max_decisions=entry.run_left)
            except StoreBusy as e:  # what was decided is stored: the next request goes on
                entry.run_left, entry.run_error = 0, f"the agents stopped: {e}"
                taken = 0
            except StoreUnusable as e:  # nothing can be stored any more: the request is answered 503, not 200
                entry.run_left, entry.store_failure = 0, e
                taken = 0
            except (StoreError, TrpgArenaError, ValueError, ArithmeticError, LookupError, TypeError) as e:
                entry.run_left, entry.run_error = 0, f"the agents stopped: {e}"
                taken = 0
            entry.run_left = max(0, entry.run_left - taken)
            entry.progress += taken
        # every open agent decision is thought about, so that it is shown (and confirmed) as soon as possible
        thought = s.think()
        if thought is None:  # nothing to compute: a person decides, dice are asked for, or it is over
            entry.run_left = 0
            self.cancel(entry)
            return
        if entry.job is not None and entry.job.same(thought):
            return  # already being computed
        self.cancel(entry)
        job = entry.job = Job(thought, self.seconds)
        entry.quiet.clear()
        self._pool.submit(self._work, entry, job)

    def cancel(self, entry: Entry) -> None:
        """Stop the thinking going on for `entry` (lock held): its result will be dropped."""
        if entry.job is not None:
            entry.job.cancel()
            entry.job = None
        if entry.run_left == 0:
            entry.quiet.set()

    def _work(self, entry: Entry, job: Job) -> None:
        result: object
        deadline = job.start()
        if deadline is None:
            return  # cancelled before it started (`cancel` took it off the entry)
        try:
            with within(deadline):
                result = job.thought.compute()
        except (TrpgArenaError, ValueError, ArithmeticError, LookupError, TypeError) as e:
            result = e
        except Exception as e:  # an agent's own failure must not kill the worker: shown as its error
            log.exception("agent thinking for session %s", entry.id)
            result = RuntimeError(f"{type(e).__name__}: {e}")
        with entry.lock:
            if entry.job is not job:
                return  # cancelled or replaced meanwhile
            entry.job = None
            s = entry.session
            try:
                taken = s is not None and not entry.deleted and s.take(job.thought, result)
                if s is not None and taken and job.shown and entry.watchers:  # pages showing "thinking" refetch
                    entry.publish({"type": "proposal", "revision": s.revision})
                self.advance(entry)
            except Exception:  # never leave a waiting request without an answer
                log.exception("session %s after its agent's proposal", entry.id)
                entry.run_left = 0
                entry.quiet.set()

    def settle(self, entry: Entry, seconds: float, until: float | None = None) -> None:
        """Wait (lock not held) until `entry` is quiet, at most `seconds` without progress, and never past `until`.

        A run whose decisions keep landing is waited for on (its answer lists them all, as a run done
        inside the request would); a proposal that takes longer than `seconds` is not.
        """
        seen = entry.progress
        while not entry.quiet.wait(seconds if until is None else max(0.0, min(seconds, until - time.monotonic()))):
            if entry.progress == seen or (until is not None and time.monotonic() >= until):
                return
            seen = entry.progress

    def shutdown(self) -> None:
        """Stop taking work (the deadlines were expired by the shutdown)."""
        self._pool.shutdown(wait=False, cancel_futures=True)

