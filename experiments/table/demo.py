"""``trpg-arena demo``: one NPC turn proposed, explained and carried out on the map, in a screen or two.

Agents play a built-in skirmish up to the first NPC turn that attacks (or aims at an enemy) and
hurts someone; the GM's screen for it is shown (map, turn order, the proposal with its reasons and
alternatives), the proposal is confirmed as a GM would with Enter, and the map is shown again with
what happened.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from trpg_arena.experiments.table import screen
from trpg_arena.experiments.table.sessions import program
from trpg_arena.rules import DecisionKind
from trpg_arena.table.seats import Seat, SeatKind
from trpg_arena.table.session import Pending, Session

SEARCH_LIMIT = 400  # decisions played looking for a telling NPC turn


def _telling(session: Session, p: Pending) -> bool:
    """An NPC's turn (not a reaction) whose proposal attacks, or aims at someone of another side."""
    if p.decision.kind is not DecisionKind.TURN or p.seat.kind is not SeatKind.REVIEW or p.proposal is None:
        return False
    action = p.proposal.action
    c = session.combat
    enemies = {v.id for v in c.combatants if v.side != p.decision.side}
    return "attack" in action.verb or action.target in enemies


def run_demo(ruleset: str, seed: int, console: Console) -> Session:
    """Show the first NPC turn of ``<ruleset>/skirmish`` that hurts someone: proposed, explained, confirmed, done."""
    session = Session(f"{ruleset}/skirmish", seed=seed, pc=Seat(SeatKind.AGENT, "scripted"),
                      npc=Seat(SeatKind.REVIEW, "scripted"))
    for _ in range(SEARCH_LIMIT):
        session.run()
        p = session.pending()
        if p is None:
            break
        if not _telling(session, p):
            session.confirm()
            continue
        with console.capture() as before:
            _before(console, session, p)
        hp = {v.id: v.hp for v in session.combat.combatants}
        lines = _carry_out(session, p.decision.side)
        if _hurt(session, p.decision.side, hp):
            console.print(before.get(), end="")
            for line in lines:
                console.print(line)
            console.rule(screen.header(session), style="dim")
            console.print(screen.board(session, width=console.width))
            console.print(Text(f"play a whole fight as its GM: {program()} autopilot {ruleset}/skirmish "
                               "(PCs chosen in steps, NPCs proposed for you to confirm)", style="bold"))
            return session
    console.print(f"no NPC turn hurt anyone in {len(session.records)} decisions ({session.combat.result or 'running'})")
    return session


def _before(console: Console, session: Session, p: Pending) -> None:
    console.rule(screen.header(session), style="dim")
    console.print(Text(f"agents played the first {len(session.records)} decisions; now an NPC's turn, as the GM "
                       "sees it in trpg-arena autopilot:", style="italic"))
    console.print(screen.board(session, width=console.width))
    console.print(screen.whose(session, p))
    console.print(screen.proposal(session, p))
    alts = len(p.proposal.alternatives) if p.proposal else 0
    console.print(Text("Enter confirm" + (f" · 1-{alts} alternative" if alts else "") +
                       " · o override · u undo · a NPCs unattended", style="dim"))
    console.print(Text(f"{p.decision.actor} confirm> ", style="bold"), end="")
    console.print("(Enter)")


def _carry_out(session: Session, side: str | None) -> list[Text]:
    """Confirm the proposal and follow it (follow-up choices, reactions) until it hurts a foe or a turn begins.

    Returns the narration of what happened.
    """
    hp = {v.id: v.hp for v in session.combat.combatants}
    lines: list[Text] = []
    stop = session.subscribe(lambda message: lines.extend(screen.decision_lines(message)))
    session.confirm()
    for _ in range(SEARCH_LIMIT):
        p = session.pending()
        if p is None or p.decision.kind is DecisionKind.TURN or _hurt(session, side, hp):
            break
        if p.seat.kind is SeatKind.REVIEW:
            session.confirm()
        else:
            session.run(max_decisions=1)
    stop()
    return lines


def _hurt(session: Session, side: str | None, hp: dict[str, int]) -> bool:
    """Whether someone of another side than `side` has fewer hit points than in `hp`."""
    return any(v.hp < hp.get(v.id, v.hp) and v.side != side for v in session.combat.combatants)
