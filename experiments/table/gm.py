"""The GM's loop at the terminal: whoever decides is asked, one line typed at a time.

- An **agent** seat's decisions are taken at once and narrated.
- An **agent under review** shows its proposal, reasons and alternatives: Enter confirms, a number
  takes an alternative, ``o`` overrides with an action chosen in steps (or typed words name it),
  ``a`` lets the NPCs run unattended until a person must act.
- A **person** chooses in steps (`table.menu.Menu`): a number per step, or words of the action's
  sentence to narrow it down, ``b`` to step back.
- **Dice rolled at the table** are asked for with the die, the count and what they are for; a
  wrong entry is refused and asked again.

Everywhere: ``u`` undoes back to the last decision a person made (NPCs running unattended are put back
under review: they would take it all again at once), ``e`` edits a combatant (see
`edit`), ``t`` switches the whole table to hand-rolled dice and back, ``?`` explains the keys,
``q`` leaves (the session is stored after every decision, so nothing is lost).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from trpg_arena.experiments.table import screen
from trpg_arena.experiments.table.edit import edit_prompt
from trpg_arena.rules import Action, TrpgArenaError
from trpg_arena.rules.core.wording import counted
from trpg_arena.table.menu import Menu, MenuError, Step
from trpg_arena.table.odds import action_odds
from trpg_arena.table.seats import SeatKind
from trpg_arena.table.session import Pending, Session, SessionError, StaleRevision
from trpg_arena.table.store import StoreBusy

COMMON_KEYS = "u undo · e edit · t table dice · a NPCs unattended · ? help · q quit"
HELP_KEYS = (  # one line a key: the table below wraps each at the terminal's width, under its own key
    ("Enter", "confirms an NPC's proposal"),
    ("1, 2...", "take the line of that number (12 as well as 2); a label typed as shown takes it too"),
    ("o", "overrides the NPC with an action chosen in steps; or type words of the action you want instead"),
    ("words", "(or /words) narrow a person's choice to the actions whose sentence holds them, e.g. a name, "
              "'knock', '7,3'"),
    ("b", "steps back"),
    ("u", "undoes back to the last decision a person made (and puts NPCs running unattended back under review)"),
    ("e", "edits a combatant: its damage, pools, conditions or place; takes it out or adds one"),
    ("t", "switches the whole table to dice rolled by hand (and back)"),
    ("a", "lets NPCs run unattended until a person must act (a again: review them)"),
    ("r", "asks PCs the routine questions too ({routine}); r again: they answer as usual, unasked"),
    ("m", "shows the map again"),
    ("?", "explains the keys"),
    ("q", "leaves the table (the session is stored)"),
)


def help_keys(session: Session) -> Table:
    """The keys, one a line, each explanation wrapped under itself; ``r`` where the rules ask routine questions."""
    routine = session.combat.system.info.routine
    asked = ", ".join(f"{step}: {verb} unless asked" for step, verb in routine.items())
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for key, text in HELP_KEYS:
        if key != "r" or routine:
            grid.add_row(key, Text(text.format(routine=asked)))
    return grid


class Quit(Exception):
    """The GM left the table; the session stays stored."""


class _Replan(Exception):
    """The open decision changed under a prompt (undo, a seat or dice switch): ask again from the top."""


class GmTable:
    """Drives a `Session` at the terminal: `play` returns when the combat is over and the GM is done."""

    def __init__(self, session: Session, console: Console, read: Callable[[str], str] | None = None,
                 on_over: Callable[[], None] | None = None, seen: int | None = None) -> None:
        """`seen`: how many of the session's decisions the GM has seen (None: all); the rest are narrated first."""
        self.session = session
        self.console = console
        # markup=False: a prompt names combatants, which are shown as written, never read as markup
        self.read = read or (lambda prompt: console.input(prompt, markup=False))
        self.on_over = on_over  # called as the combat ends, before the GM is asked anything (the reports)
        session.subscribe(self._narrate)
        self._narrate_taken(len(session.records) if seen is None else seen)

    def _narrate_taken(self, first: int) -> None:
        """Narrate the decisions from `first` on, taken before this table listened (a new session's routine answers).

        Their events are the log's last ones: each decision's begin with its ``decision`` (or ``gm_edit``) line.
        """
        s = self.session
        records = s.records[first:]
        log = s.combat.log
        starts = [i for i, e in enumerate(log) if e.kind in ("decision", "gm_edit")][-len(records):]
        if not records or len(starts) != len(records):
            return  # none, or the log no longer holds them all (a resumed session's starts at a checkpoint)
        for record, begin, end in zip(records, starts, [*starts[1:], len(log)], strict=True):
            self._narrate({"type": "decision", "record": record, "events": [e.to_json() for e in log[begin:end]]})

    # --- the loop ---------------------------------------------------------------------------------
    def play(self) -> None:
        """Ask whoever decides until the combat ends and the GM finishes (raises `Quit` if the GM leaves)."""
        s = self.session
        routine = True  # once, as the table opens (see `_answer_routine`)
        while True:
            self._catch_up()
            try:
                if routine:
                    routine = False
                    self._answer_routine()
                p = s.pending()
                if p is None:
                    if self._over():
                        return
                elif p.dice is not None:
                    self._dice(p)
                elif p.seat.kind is SeatKind.AGENT or (p.seat.kind is SeatKind.REVIEW and s.autorun):
                    s.run()
                elif p.seat.kind is SeatKind.REVIEW:
                    # the session gives a routine question's usual answer unasked (stored as `routine`): the GM
                    # reviews the proposal only if that left the decision as it was (`pending` is then the same
                    # object); dice the answer needs, or what comes after it, are asked from the top
                    if not s.run() and s.pending() is p:
                        self._review(p)
                else:
                    self._person(p)
            except _Replan:
                continue
            except StaleRevision:  # a page or another terminal decided first: this one has caught up
                self.console.print(Text("the session was changed elsewhere meanwhile: nothing was done here; "
                                        "it is shown as it is now", style="yellow"))
            except StoreBusy as e:  # nothing was stored, so nothing was done: the same decision is asked again
                self.console.print(Text(f"not stored: {e}", style="red"))

    def _answer_routine(self) -> None:
        """Give a person's routine question the usual answer, as the table always does, where it stands unanswered.

        A table left while that answer's dice were asked stored no answer (the dice are asked in memory only):
        resumed, the answer is given again and its dice asked for, not the question put to the person.
        """
        self.session.settle_routine()

    def _catch_up(self) -> None:
        """Follow what a page or another terminal did to the session since (their decisions are narrated)."""
        s = self.session
        taken = len(s.records)
        if s.refresh():
            self.console.print(Text(f"the session was changed elsewhere: {counted(len(s.records), 'decision')} now "
                                    f"({len(s.records) - taken:+d})", style="yellow"))

    def _ask(self, prompt: str) -> str:
        try:
            return self.read(prompt).strip()
        except (EOFError, KeyboardInterrupt):
            self.console.print()
            raise Quit from None

    def _common(self, key: str) -> bool:
        """Handle a key every prompt knows; True if it was one. Raises `_Replan` when the decision changed."""
        s = self.session
        if key == "q":
            raise Quit
        if key == "?":
            self.console.print(help_keys(s))
            return True
        if key == "m":
            self.console.print(screen.board(s, width=self.console.width))
            return True
        if key == "u":
            self._undo()
            raise _Replan
        if key == "e":
            edit_prompt(s, self.console, self._ask)  # stored and narrated as the GM's decision
            raise _Replan
        if key == "t":
            s.set_table_dice(not s.table_dice)
            self.console.print("dice are now rolled " + ("by hand at the table" if s.table_dice else "by the program"))
            raise _Replan
        if key == "r" and s.combat.system.info.routine:
            s.set_ask_routine(not s.ask_routine)  # stored, as the other switches
            asked = ", ".join(f"{step} ({verb} unless asked)" for step, verb in s.combat.system.info.routine.items())
            self.console.print(f"PCs are now asked: {asked}" if s.ask_routine
                               else f"PCs are no longer asked: {asked}")
            raise _Replan
        if key == "a":
            s.set_autorun(not s.autorun)  # stored: a resumed table keeps it
            self.console.print("NPCs now run unattended until a person must act" if s.autorun
                               else "NPC proposals are shown for review again")
            raise _Replan
        return False

    def _undo(self) -> None:
        """Undo back to the last decision a person made (as the browser, the HTTP API and MCP count it).

        Then NPCs no longer run unattended: they would at once take again all that was undone.
        """
        s = self.session
        try:
            taken = s.to_last_person()
        except SessionError as e:
            self.console.print(Text(str(e), style="red"))
            return
        # a person's action waiting for its dice is taken back alone (an agent's goes with the decision before it)
        waiting = s.dice_asked is not None and taken == 1
        if not waiting and all(rec["source"] in ("agent", "routine") for rec in s.records):
            # agents alone would only take it again
            self.console.print(Text("nothing to undo: no decision has been made by a person yet", style="red"))
            return
        s.undo(taken)
        d = s.combat.decision
        self.console.print(Text(f"undone {counted(taken, 'decision')}: back to {d.actor if d else '?'} in round "
                                f"{s.combat.round}", style="yellow"))
        if s.autorun:
            s.set_autorun(False)  # stored, as 'a' stores it
            self.console.print("NPC proposals are shown for review again after the undo (a lets them run unattended)")

    # --- screens ------------------------------------------------------------------------------------
    def _show(self, p: Pending, overlay: dict[object, str] | None = None) -> None:
        c = self.console
        c.rule(screen.header(self.session), style="dim")
        c.print(screen.board(self.session, overlay, c.width))
        c.print(screen.whose(self.session, p))

    # --- an agent under review ----------------------------------------------------------------------
    def _review(self, p: Pending) -> None:
        s = self.session
        assert p.proposal is not None
        self._show(p)
        self.console.print(screen.proposal(s, p))
        alts = len(p.proposal.alternatives)
        numbers = "" if not alts else " · 1 alternative" if alts == 1 else f" · 1-{alts} alternatives"
        keys = "Enter confirm" + numbers + " · o override · " + COMMON_KEYS
        self.console.print(Text(keys, style="dim"))
        while True:
            key = self._ask(f"{p.decision.actor} confirm> ")
            if key in ("", "y", "c"):
                s.confirm()
                return
            if key.isdecimal() and 1 <= int(key) <= alts:
                s.override(p.proposal.alternatives[int(key) - 1].action)
                return
            if key == "o":
                action = self._choose(p, Menu(s.combat, p.legal), can_leave=True)
                if action is not None:
                    s.override(action)
                    return
                self.console.print(screen.proposal(s, p))
                continue
            if len(key) > 1 and not key.isdecimal():  # words: override with the action they name
                action = self._override_by_words(p, key)
                if action is not None:
                    s.override(action)
                    return
                continue
            if not self._common(key):
                self.console.print(Text(f"'{key}': Enter confirms, o overrides, ? explains the keys", style="red"))

    def _override_by_words(self, p: Pending, words: str) -> Action | None:
        """The action typed words name: at once if only one fits, else chosen among those that do."""
        menu = Menu(self.session.combat, p.legal)
        try:
            picked = menu.filter(words.removeprefix("/"))
        except MenuError as e:
            self.console.print(Text(str(e), style="red"))
            return None
        return picked if picked is not None else self._choose(p, menu, can_leave=True)

    # --- a person's decision ------------------------------------------------------------------------
    def _person(self, p: Pending) -> None:
        action = self._choose(p, Menu(self.session.combat, p.legal), can_leave=False)
        assert action is not None
        self.session.submit(action)

    def _choose(self, p: Pending, menu: Menu, *, can_leave: bool) -> Action | None:
        """Walk the menu until one action is chosen (None: the GM stepped back out of an override)."""
        shown: dict[object, str] | None = None
        odds = action_odds(self.session.combat, menu.legal)  # the numbers an NPC's proposal would cite
        while True:
            step = menu.step()
            overlay = screen.destinations(step, menu)
            if shown is None or overlay != shown:  # the board again when the marked squares change
                self._show(p, overlay)
                shown = overlay
            self.console.print(screen.menu_step(step, self.console.width, odds))
            self.console.print(Text("number · words to narrow · b back · " + COMMON_KEYS, style="dim"))
            key = self._ask(f"{p.decision.actor} {step.facet}> ")
            try:
                picked = self._menu_key(menu, step, key)
            except MenuError as e:
                self.console.print(Text(str(e), style="red"))
                continue
            if picked == "leave":
                if can_leave:
                    return None
                self.console.print(Text("this is the first step", style="red"))
            elif isinstance(picked, Action):
                return picked

    def _menu_key(self, menu: Menu, step: Step, key: str) -> Action | str | None:
        if key.isdecimal():
            return menu.choose(key)
        if key == "b":
            return None if menu.back() else "leave"
        if key.startswith("/"):
            return menu.filter(key[1:])
        named = [ch for ch in step.choices if len(key) > 1 and key.lower() in (ch.label.lower(), ch.text.lower())]
        if len(named) == 1:  # a label (or a whole line) typed as shown, e.g. 'plain' or 'row 3'
            return menu.choose(named[0].key)
        if len(key) <= 1:
            if key == "":
                raise MenuError(f"type a number (1-{len(step.choices)}) or words of the action")
            if self._common(key):
                return None
            raise MenuError(f"'{key}' is no key here; ? explains them (to search for one letter, type /{key})")
        return menu.filter(key)

    # --- dice rolled at the table -------------------------------------------------------------------
    def _dice(self, p: Pending) -> None:
        s = self.session
        request = p.dice
        assert request is not None
        self.console.print(Text.assemble(("roll at the table: ", "bold yellow"), request.text(),
                                         (f"  (each die: {request.faces_help})", "dim")))
        self.console.print(Text(f"type the faces, e.g. '{request.example}' · c give up this action · "
                                "t the program rolls the rest · " + COMMON_KEYS.replace("t table dice · ", ""),
                                style="dim"))
        while True:
            entry = self._ask(f"dice {request.die}" + (f" for {request.roller}" if request.roller else "") + "> ")
            if entry == "c":
                s.cancel_dice()
                return
            # `t` switches the table's dice off: the waiting action goes on with the faces typed so far
            if len(entry) == 1 and not entry.isdecimal() and self._common(entry):
                continue
            try:
                s.enter_dice(entry)
                return
            except (StaleRevision, StoreBusy):
                raise  # not a wrong entry: the loop says what happened and asks again
            except TrpgArenaError as e:
                self.console.print(Text(f"refused: {e}", style="red"))

    # --- the end ------------------------------------------------------------------------------------
    def _over(self) -> bool:
        """The combat is over: show it; True when the GM is done, False after an undo."""
        s = self.session
        c = self.console
        c.rule(screen.header(s), style="dim")
        c.print(screen.board(s, width=c.width))
        outcome = s.combat.outcome
        assert outcome is not None
        result = "draw" if outcome.winner is None else f"side {outcome.winner} wins"  # as the narration says it
        c.print(Text(f"combat over: {result} ({outcome.termination.value}) after {counted(outcome.rounds, 'round')}, "
                     f"{counted(len(s.records), 'decision')}", style="bold green"))
        if self.on_over is not None:
            self.on_over()  # written now: a table closed at this prompt loses nothing
        while True:
            key = self._ask("combat over: Enter finishes, u undoes> ")
            if key in ("", "q"):
                return True
            if key == "u":
                self._undo()
                return False
            c.print(Text("Enter finishes, u undoes the last decision a person made", style="red"))

    # --- narration ----------------------------------------------------------------------------------
    def _narrate(self, message: dict[str, Any]) -> None:
        for line in screen.decision_lines(message):
            self.console.print(line)
