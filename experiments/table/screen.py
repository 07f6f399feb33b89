"""What the GM sees: the battlefield, the turn order with hit points and conditions, and the open decision.

Everything here builds rich renderables from a `Session` and prints nothing itself; the table loop
(`experiments/table/gm.py`) decides when to show which. Widths fit an 80-column terminal.
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from trpg_arena.rules import Action, Combat, CombatantView, Event
from trpg_arena.table.choices import proposal_odds, unsaid
from trpg_arena.table.menu import Menu, Step
from trpg_arena.table.render import map_legend, map_letters, numbered_map
from trpg_arena.table.session import Pending, Session

SIDE_STYLES = ("bold blue", "bold red", "bold green", "bold yellow")
ROSTER_FIXED = 25  # marker, map letter, hit points and status; the id column comes on top, conditions after
QUIET_EVENTS = {"decision", "gm_edit"}  # shown as the decision's own line instead (a GM edit is one too)
DIM_EVENTS = {"roll", "auto_decision", "state_changed", "time_advanced", "ap_set", "check", "step", "phase_start",
              "slot_spent", "turn_start", "turn_end", "turn_started", "turn_ended"}


def header(session: Session) -> Text:
    """``Moonlit · skirmish · round 2 (main) · session 3fa2c1``."""
    c = session.combat
    system = re.split(r"[:(]", c.system.info.title)[0].strip()
    text = Text(f"{system} · {c.encounter.label} · round {c.round} ({c.phase})", style="bold")
    if session.id:
        text.append(f" · session {session.id}", style="dim")
    if session.table_dice:
        text.append(" · dice rolled at the table", style="yellow")
    return text


def battlefield(combat: Combat, overlay: dict[object, str] | None = None) -> Text:
    """`numbered_map` (squares named as ``x,y``) with each combatant in its side's colour."""
    plain = numbered_map(combat, overlay)
    if combat.battlefield.kind == "zones":
        return Text(plain)
    styles = {}
    sides = combat.sides
    letters = map_letters(combat)
    for v in combat.combatants:
        styles[letters[v.id]] = SIDE_STYLES[sides.index(v.side) % len(SIDE_STYLES)]
    header, *rows = plain.split("\n")
    out = Text()
    out.append(header + "\n", style="dim")
    for y, row in enumerate(rows):
        label = len(f"{y:>2} ")
        out.append(row[:label], style="dim")
        for ch in row[label:]:
            out.append(ch, style=styles.get(ch, "yellow" if ch == "*" else "dim" if ch in ".,#" else ""))
        out.append("\n")
    out.rstrip()
    return out


def turn_order(combat: Combat) -> list[CombatantView]:
    """The combatants in this round's turn order where the log states one, else in roster order."""
    views = combat.combatants
    order: list[str] = []
    for ev in reversed(combat.log):
        found = (ev.data or {}).get("order")
        if isinstance(found, list) and found and all(isinstance(x, str) for x in found):
            order = found
            break
    rank = {cid: i for i, cid in enumerate(order)}
    return sorted(views, key=lambda v: rank.get(v.id, len(rank) + views.index(v)))


def roster(session: Session, width: int = 80) -> Text:
    """Turn order with hit points, status and conditions, one line of at most `width` each; the decider marked ``>``."""
    c = session.combat
    d = c.decision
    sides = c.sides
    letters = map_letters(c) if c.battlefield.kind != "zones" else {}
    id_width = ids_width(c)
    out = Text()
    for v in turn_order(c):
        style = SIDE_STYLES[sides.index(v.side) % len(SIDE_STYLES)] if v.able else "dim"
        out.append(">" if d is not None and v.id == d.actor else " ", style="bold")
        out.append(f" {letters.get(v.id, ' ')} {v.id:<{id_width}} ", style=style)
        if c.system.info.health == "wounds":  # the wound level in words, not boxes left out of a total
            out.append_text(_hp(v, f"{c.system.info.health_text(v)[:21]:<21}"))
        else:
            out.append_text(_hp(v, f"{v.hp:>3}/{v.max_hp:<3}"))
            out.append(f" {v.status[:13]:<13}", style="" if v.able else "dim")
        room = width - ROSTER_FIXED - id_width - 1
        if v.conditions and room > 3:
            conditions = ", ".join(c.system.info.condition_text(k) for k in v.conditions)
            out.append(" " + (conditions if len(conditions) <= room else conditions[:room - 1] + "…"),
                       style="magenta")
        out.append("\n")
    for cid, tactics in session.tactics_json().items():  # how the NPC agents play them: the GM should know
        line = f"  ~ {cid}: {tactics['summary']}"
        out.append((line if len(line) <= width else line[:width - 1] + "…") + "\n", style="cyan")
    out.rstrip()
    return out


def ids_width(combat: Combat) -> int:
    """The roster's id column: every id whole (a GM types them at ``e``), and at least 15 wide to keep it even."""
    return max([15, *(len(v.id) for v in combat.combatants)])


def roster_width(combat: Combat) -> int:
    """The columns a roster line takes before its conditions."""
    return ROSTER_FIXED + ids_width(combat)


def _hp(v: CombatantView, text: str) -> Text:
    frac = v.hp / v.max_hp if v.max_hp else 0.0
    style = "green" if frac > 0.5 else "yellow" if frac > 0.25 else "red"
    return Text(text, style=style)


def board(session: Session, overlay: dict[object, str] | None = None, width: int = 80) -> RenderableType:
    """Map and roster side by side in `width` columns (stacked when the map leaves the roster too little room)."""
    field = battlefield(session.combat, overlay)
    map_width = max((len(line) for line in field.plain.splitlines()), default=0)
    room = width - map_width - 3
    words = map_legend(session.combat)
    legend = [Text(words, style="dim")] if words else []  # under both: it wraps at the terminal's width
    if room < roster_width(session.combat) + 8:
        return Group(field, *legend, roster(session, width))
    grid = Table.grid(padding=(0, 3))
    grid.add_column(no_wrap=True)
    grid.add_column(no_wrap=True)
    grid.add_row(field, roster(session, room))
    return Group(grid, *legend)


def whose(session: Session, pending: Pending) -> Text:
    """``kei (A) · turn · played by human``: whose decision it is, what kind, and who answers it."""
    d = pending.decision
    text = Text(f"{d.actor}", style="bold")
    text.append(f" ({d.side}) · {d.kind.value} · {d.step}")
    if d.prompt:
        text.append(f" · {d.prompt}", style="dim")
    text.append(f" · {pending.seat}", style="cyan")
    return text


def proposal(session: Session, pending: Pending) -> RenderableType:
    """An agent's proposal: the action, its value, the reasons, and the numbered alternatives."""
    p = pending.proposal
    assert p is not None
    c = session.combat
    describe = c.system.describe
    odds = proposal_odds(c, p)
    said = " ".join(p.reasons)

    def odds_note(action: Action, reason: str = "") -> str:
        note = unsaid(odds.get(action), said, reason)
        return f" · {note}" if note else ""

    lines: list[RenderableType] = [Text.assemble(("proposes: ", "bold"), (describe(c, p.action), "bold green"),
                                                 (f"  (value {p.value:.2f}){odds_note(p.action)}", "dim"))]
    for i, reason in enumerate(p.reasons):  # the first says why; the rest are notes (next best, who agrees)
        lines.append(Text(f"  because {reason}" if i == 0 else f"  · {reason}"))
    for i, alt in enumerate(p.alternatives, 1):
        note = f" - {alt.reason}" if alt.reason else ""
        lines.append(Text.assemble((f"  {i} ", "bold"), describe(c, alt.action),
                                   (f"  ({alt.value:.2f}){note}{odds_note(alt.action, alt.reason)}", "dim")))
    return Group(*lines)


SPREAD_LIMIT = 10  # a flat step of at most this many actions may give each one's odds a line of its own


def menu_step(step: Step, width: int = 80, odds: dict[Action, str] | None = None) -> RenderableType:
    """One step of a person's choice: numbered lines with their counts and sentences, in `width` columns.

    The labels get the room they need (up to half the width when sentences follow, all of it when the
    lines are whole actions); the sentences take what is left, cut with an ellipsis only past the edge.
    An action's odds (`odds`) go beside its sentence, on a line of their own, or first on its line: the
    step stays within a 24-line terminal.
    """
    flat = step.facet == "action"
    key_w = max((len(ch.key) for ch in step.choices), default=1)
    count_w = max((len(str(ch.count)) for ch in step.choices if ch.count != 1), default=0)
    room = max(20, width - key_w - count_w - 4)  # the columns' padding
    longest = max((len(ch.text if flat else ch.label) for ch in step.choices), default=1)
    notes = [n for ch in step.choices if ch.action is not None and (n := (odds or {}).get(ch.action))]
    beside = all(len(n) <= room - longest for n in notes)  # every action's odds fit beside the longest sentence
    # where they do not, a flat step of few actions gives each one's odds a line of its own (at most 2 x 10
    # lines); a longer one shows them first on the action's line
    spread = flat and not beside and len(step.choices) <= SPREAD_LIMIT
    if flat and not beside:
        longest = room
    label_w = min(longest, room if flat else max(12, room * 3 // 5))
    table = Table.grid(padding=(0, 1))  # labels and sentences go in as `Text`: names in them are never markup
    table.add_column(justify="right", style="bold", no_wrap=True)
    table.add_column(no_wrap=True, overflow="ellipsis", max_width=label_w)
    table.add_column(justify="right", style="dim", no_wrap=True)
    table.add_column(overflow="ellipsis", no_wrap=True, max_width=max(8, room - label_w))
    text_w = max(8, room - label_w)
    for ch in step.choices:
        note = (odds or {}).get(ch.action) if ch.action is not None else None  # as an NPC proposal cites them
        if flat:
            if beside or note is None:
                table.add_row(ch.key, Text(ch.text), "", Text(note or "", style="cyan"))
            elif spread:  # the odds on a line of their own under the action
                table.add_row(ch.key, Text(ch.text), "", "")
                table.add_row("", Text(f"  {note}", style="cyan"), "", "")
            else:  # one line an action: the odds first, then as much of the sentence as fits
                table.add_row(ch.key, Text.assemble((note, "cyan"), (f"  {ch.text}", "")), "", "")
            continue
        count = "" if ch.count == 1 else f"{ch.count}"
        if note is None or len(ch.text) + 2 + len(note) <= text_w:
            table.add_row(ch.key, Text(ch.label), count,
                          Text.assemble((ch.text, "dim"), (f"  {note}" if note else "", "cyan")))
        else:  # one line a choice: the odds first, then as much of the sentence as fits
            table.add_row(ch.key, Text(ch.label), count, Text.assemble((note, "cyan"), (f"  {ch.text}", "dim")))
    path = " > ".join(step.path)
    title = Text(step.title, style="bold")
    if path:
        title.append(f"  [{path}]", style="dim")
    return Group(title, table)


def destinations(step: Step, menu: Menu) -> dict[object, str]:
    """The squares a row or destination step still offers (where the actions end), to mark on the map with ``*``."""
    if step.facet not in ("row", "destination", "action"):
        return {}
    return {p: "*" for a in menu.actions if isinstance(p := menu.place(a), tuple)}


def narration(events: list[Event]) -> list[Text]:
    """The events of one decision as lines: the decision bold, rolls and bookkeeping dim."""
    out = []
    for ev in events:
        if ev.kind in QUIET_EVENTS:
            out.append(Text(f"r{ev.round} {ev.text}", style="bold"))
            continue
        style = "dim" if ev.kind in DIM_EVENTS else "red" if "damage" in ev.kind or ev.kind == "wound_recorded" else ""
        out.append(Text(f"   {ev.text}", style=style))
    return out


SOURCE_TAGS = {"confirmed": " (confirmed)", "override": " (override)", "routine": " (as usual: not asked)"}


def decision_lines(message: dict[str, Any]) -> list[Text]:
    """A session's ``decision`` message as narration, tagged with how it was decided and any faces typed."""
    if message.get("type") != "decision":
        return []
    rec = message["record"]
    lines = narration([Event.from_json(e) for e in message["events"]])
    tag = SOURCE_TAGS.get(rec["source"], "")
    if rec["faces"]:
        tag += "  dice by hand: " + " ".join(str(face) for _, face in rec["faces"])
    if lines and tag:
        lines[0].append(tag, style="cyan")
    return lines
