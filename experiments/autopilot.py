"""GM autopilot: a stored `Session` played at the terminal (see `experiments/table/gm.py` for the keys).

Every start is a new session in the session database; ``--resume`` continues a named one exactly
(agents included). Seats come from the encounter's ``controllers:`` section, then ``--pc``, ``--npc``
and ``--seat KEY=SEAT``; with ``--review`` (the default) every agent seat proposes and waits for the
GM. At the end the statistics are printed and written with the Markdown log.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from trpg_arena.agents.spec import UnknownAgentError, resolve
from trpg_arena.experiments.out_files import check_folder
from trpg_arena.experiments.table.gm import GmTable, Quit
from trpg_arena.experiments.table.report import print_end
from trpg_arena.experiments.table.sessions import db_option, pick, program
from trpg_arena.rules import EncounterBase, TrpgArenaError
from trpg_arena.rules.core.wording import counted
from trpg_arena.table.seats import Seat, SeatKind, check_controllers
from trpg_arena.table.session import Session
from trpg_arena.table.stats import session_stats
from trpg_arena.table.store import SessionStore, StoreError


class AutopilotError(TrpgArenaError, ValueError):
    """Autopilot options that do not fit together (no encounter named, a malformed --seat)."""


@dataclass(frozen=True)
class AutopilotArgs:
    """What the ``autopilot`` command was asked for."""

    encounter: EncounterBase | None  # None with --resume: the stored session says
    wanted: str | None  # with --resume: a session id (prefix) or an encounter name
    db: Path
    out: Path
    pc: str = "human"
    npc: str = "scripted"
    seats: tuple[str, ...] = ()  # KEY=SEAT
    review: bool = True
    dice: bool = False
    autorun: bool = False
    ask_routine: bool = False  # ask people the routine decisions (moonlit's escape) instead of answering as usual
    seed: int | None = None  # None: a new one is drawn (and printed), so new sessions are not all one fight
    resume: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    tactics: tuple[str, ...] = ()  # ID=KEY:VALUE,... NPC temperaments (by combatant or side) over the encounter's


def tactics_of(args: AutopilotArgs) -> dict[str, dict[str, str]]:
    """``--tactics ghoul=aggression:cautious,morale:25%,focus:casters`` as blocks by combatant id (checked later)."""
    out: dict[str, dict[str, str]] = {}
    for item in args.tactics:
        cid, sep, body = item.partition("=")
        pairs = [p.partition(":") for p in body.split(",") if p.strip()]
        if not sep or not cid.strip() or not pairs or any(not s or not k.strip() or not v.strip() for k, s, v in pairs):
            raise AutopilotError(f"--tactics needs ID=KEY:VALUE,... (aggression, morale, focus, protect), e.g. "
                                 f"ghoul=aggression:cautious,morale:25%,focus:casters; got '{item}'")
        out[cid.strip()] = {k.strip(): v.strip() for k, _, v in pairs}
    return out


def _seat(text: str, review: bool, ruleset: str, where: str) -> Seat:
    """A seat from its text, put under review if asked; its agent is checked now, not at its first decision."""
    try:
        seat = Seat.parse(text)
        if seat.agent is not None:
            resolve(seat.agent, ruleset)
    except UnknownAgentError as e:
        raise AutopilotError(f"{where}: {e}") from None
    if review and seat.kind is SeatKind.AGENT:
        return Seat(SeatKind.REVIEW, seat.agent, seat.by_hand)
    return seat


def seats_of(args: AutopilotArgs, enc: EncounterBase) -> tuple[Seat, Seat, dict[str, Seat]]:
    """The PC and NPC default seats and the seats per side or combatant (the encounter's, then the command line's)."""
    rid = enc.ruleset
    pc = _seat(args.pc, args.review, rid, "--pc")
    npc = _seat(args.npc, args.review, rid, "--npc")
    check_controllers(enc)  # each agent named there, with its values, refused at its field
    seats = {key: _seat(text, args.review, rid, "") for key, text in (enc.controllers or {}).items()}
    for item in args.seats:
        key, sep, text = item.partition("=")
        if not sep or not key.strip() or not text.strip():
            raise AutopilotError(f"--seat needs KEY=SEAT (a side or combatant = human, an agent spec or "
                                 f"review:<agent>), got '{item}'")
        seats[key.strip()] = _seat(text.strip(), args.review, rid, f"--seat {key.strip()}")
    return pc, npc, seats


DEFAULTS = AutopilotArgs(None, None, Path(), Path())  # what the command line gives when an option is left out


def check_resume_options(args: AutopilotArgs) -> None:
    """Options a resumed session cannot take are refused, not ignored: it keeps its seed and its encounter."""
    if args.seed is not None:
        raise AutopilotError("--seed: a resumed session keeps the seed it was started with; leave --seed out")
    if args.options:
        raise AutopilotError("--option: a resumed session keeps its encounter's options; start a new session "
                             "to play with other ones")
    if args.review != DEFAULTS.review and not (args.seats or args.pc != DEFAULTS.pc or args.npc != DEFAULTS.npc):
        raise AutopilotError("--no-review on --resume applies to the seats given with it (--seat, --pc, --npc); "
                             "the stored seats stay as they are (press 'a' at the table to let NPCs run)")


def open_session(args: AutopilotArgs, store: SessionStore, console: Console) -> tuple[Session, int]:
    """A new stored session, or the stored one `--resume` names (with any seat or dice changes asked for).

    With how many of its decisions the GM has seen: a resumed session's stored ones; none of a new session's (the
    routine answers given as it starts), nor those a change asked for here gave (a seat made a person's).
    """
    if args.resume:
        check_resume_options(args)
        row = pick(store, args.wanted)
        session = Session.load(store, row.id)
        seen = len(session.records)
        # the changes asked for come first: a seat whose agent can no longer be built (its model file gone) is
        # replaced here rather than refused below
        for cid, block in tactics_of(args).items():
            session.set_tactics(cid, block)
        pc, npc, seats = seats_of(args, session.encounter)
        changed = {key: seat for key, seat in seats.items() if args.seats}  # the encounter's are stored already
        if args.pc != DEFAULTS.pc:
            changed["pc"] = pc
        if args.npc != DEFAULTS.npc:
            changed["npc"] = npc
        for key, seat in changed.items():
            session.set_seat(key, seat)
        if args.dice:
            session.set_table_dice(True)
        if args.ask_routine:  # it was applied only beside --seat or --dice
            session.set_ask_routine(True)
        try:
            session.pending()  # a hand-edited state can load and still not hold together: find out now
        except (KeyError, IndexError, TypeError, ValueError) as e:
            hint = (f"; give that seat another agent, e.g. {resume_command(session, store)} --seat npc=scripted "
                    "(or the side's or combatant's key)") if isinstance(e, TrpgArenaError) else ""
            raise StoreError(f"{store.path}: session {row.id} cannot be restored ({type(e).__name__}: {e}){hint}") \
                from None
        decisions = counted(len(session.records), "decision")
        console.print(Text(f"resumed session {session.id}: {row.ruleset}/{row.encounter}, {decisions}, "
                           f"round {session.combat.round}"))  # Text: a name is shown, never read as markup
    else:
        if args.encounter is None:
            raise AutopilotError("name an encounter (e.g. moonlit/skirmish), or --resume [ID] a stored session, "
                                 "or --list them")
        enc = args.encounter
        pc, npc, seats = seats_of(args, enc)
        seed = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
        session = Session(enc, seed=seed, seats=seats, pc=pc, npc=npc, table_dice=args.dice, store=store,
                          ask_routine=args.ask_routine, tactics=tactics_of(args))
        seen = 0
        console.print(Text(f"new session {session.id} (seed {seed}) in {store.path}; continue it later with "
                           f"{resume_command(session, store)}"))
    if args.autorun:
        session.autorun = True
    return session, seen


def resume_command(session: Session, store: SessionStore) -> str:
    """The command that continues `session`, as it can be typed: with ``--db`` unless the store is the default."""
    return f"{program()} autopilot --resume {session.id}{db_option(store.path)}"


def run_autopilot(args: AutopilotArgs, console: Console) -> Session:
    """Play a session at the terminal until the combat is over (or the GM leaves), then report on it."""
    if not args.resume and args.encounter is not None:
        seats_of(args, args.encounter)  # a wrong seat is refused before the database is even opened
    check_folder(args.out)  # before play: a wrong --out found after the whole fight would lose its reports
    if args.resume and not Path(args.db).exists():  # a mistyped --db must not become a new, empty database
        raise AutopilotError(f"no session database at {args.db}: nothing to resume (check --db, or start a session "
                             "with `trpg-arena autopilot ENCOUNTER`)")
    store = SessionStore(args.db)
    try:
        session, seen = open_session(args, store, console)
        try:
            GmTable(session, console, seen=seen,
                    on_over=lambda: print_end(console, session, session_stats(session), args.out)).play()
        except (Quit, KeyboardInterrupt) as e:
            if isinstance(e, KeyboardInterrupt):  # while an agent thought or a roll was made: not at a prompt
                console.print()
            console.print(Text(f"left the table: session {session.id} is stored; continue with "
                               f"{resume_command(session, store)}"))
            if isinstance(e, KeyboardInterrupt):
                raise  # the command's exit status says it was interrupted (130)
            return session
        return session
    finally:
        store.close()
