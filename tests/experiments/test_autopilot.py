"""The GM autopilot in a pseudo-terminal, played as a GM would: confirm, override, undo, choose in steps.

`Gm` drives ``trpg-arena autopilot`` through pexpect and answers each prompt it recognises; the
session database is then read through the public store API to check what was recorded.
"""

from __future__ import annotations

import os
import re
import signal
import sys
from pathlib import Path

import pexpect

from trpg_arena.table.session import Session
from trpg_arena.table.store import SessionStore

PROMPTS = {"confirm": r"(\S+) confirm> ", "dice": r"dice (\d+)D(\d+)[^>\n]*> ", "over": r"combat over: [^>]*> ",
           "menu": r"(\S+) (verb|target|option(?: \d)?|technique|all-out|ability|row|destination|action)> "}


def _interruptible() -> None:
    """Ctrl-C reaches the table as at a terminal: a test run in the background (CI) inherits SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Gm:
    """A GM at a pseudo-terminal of 80 x 24: waits for a prompt, answers it, keeps the screen text."""

    def __init__(self, *args: str, db: Path, out: Path, timeout: float = 120) -> None:
        env = dict(os.environ, TERM="dumb", NO_COLOR="1", COLUMNS="80", LINES="24")
        self.child = pexpect.spawn(sys.executable, ["-m", "trpg_arena.experiments.cli", "autopilot", *args, "--db",
                                                    str(db), "--out", str(out)],
                                   encoding="utf-8", timeout=timeout, dimensions=(24, 80), env=env,
                                   preexec_fn=_interruptible)
        self.screen = ""
        self.kind = ""
        self.match: re.Match[str] | None = None

    def wait(self) -> str:
        """Wait for the next prompt (or the end); returns its kind: confirm, dice, over, menu or eof."""
        kinds = list(PROMPTS)
        k = self.child.expect([PROMPTS[n] for n in kinds] + [pexpect.EOF])
        self.screen = self.child.before or ""
        self.kind = kinds[k] if k < len(kinds) else "eof"
        self.match = self.child.match if k < len(kinds) else None
        return self.kind

    def send(self, line: str) -> None:
        """Type a line and Enter."""
        self.child.sendline(line)

    def key_of(self, label: str) -> str:
        """The number of the menu line whose label is `label`, read off the screen just shown."""
        found = re.findall(rf"^\s*(\d+) {re.escape(label)}\s", self.screen, re.MULTILINE)
        assert found, f"no line '{label}' on the screen:\n{self.screen[-1500:]}"
        return found[-1]

    def answer_simply(self) -> None:
        """A fixed reply per prompt: confirm NPCs, the first line of every menu, ones on every die."""
        if self.kind in ("confirm", "over"):
            self.send("")
        elif self.kind == "dice":
            assert self.match is not None
            self.send(" ".join(["1"] * int(self.match.group(1))))
        else:
            self.send("1")

    def finish(self) -> int:
        """Answer simply until the program ends; its exit status."""
        while self.wait() != "eof":
            self.answer_simply()
        self.child.close()
        return int(self.child.exitstatus or 0)


def only_session(db: Path) -> Session:
    store = SessionStore(db)
    (row,) = store.sessions()
    return Session.load(store, row.id)


def test_gm_confirms_overrides_undoes_and_chooses_in_steps(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    gm = Gm("reincarnator/skirmish", "--seed", "1", db=db, out=tmp_path)
    assert gm.wait() == "confirm"  # the raiders' surprise round: an NPC proposal first
    assert "proposes:" in gm.screen and "because" in gm.screen
    gm.send("")  # confirm
    assert gm.wait() == "confirm"
    assert "(confirmed)" in gm.screen
    gm.send("o")  # override: choose another action in steps, narrowed by typing
    assert gm.wait() == "menu"
    gm.send("end turn")
    while gm.wait() == "confirm":  # on to the first PC decision
        assert "(override)" in gm.screen or "(confirmed)" in gm.screen
        gm.send("")
    assert gm.kind == "menu" and gm.match is not None and gm.match.group(2) == "verb"
    pc = gm.match.group(1)
    lines = [int(n) for n in re.findall(r"^\s*(\d+) ", gm.screen.split("choose the verb")[-1], re.MULTILINE)]
    assert 2 < max(lines) <= 24  # a few verbs, not hundreds of actions
    gm.send(gm.key_of("move"))  # verb, then the row, then the square
    assert gm.wait() == "menu" and gm.match is not None and gm.match.group(2) == "row"
    assert "*" in gm.screen  # the squares on offer are marked on the map
    gm.send("1")
    assert gm.wait() == "menu" and gm.match is not None and gm.match.group(2) in ("destination", "action")
    gm.send("1")
    gm.wait()
    assert re.search(rf"r\d+ {pc}: move to \d+,\d+", gm.screen)
    gm.send("u")  # undo: back to the PC's decision (the NPC decisions since are taken back too)
    assert gm.wait() == "menu" and "undone" in gm.screen and gm.match is not None and gm.match.group(1) == pc
    gm.send("q")
    assert gm.wait() == "eof" and "is stored" in gm.screen

    session = only_session(db)
    sources = [r["source"] for r in session.records]
    assert sources[:2] == ["confirmed", "override"]
    assert "human" not in sources  # the PC's move was undone
    assert session.pending() is not None and session.pending().decision.actor == pc
