"""A session's log as a Markdown transcript: setup, every decision with who took it and its events, statistics.

Readable as it is and rendered by any Markdown viewer; the terminal autopilot writes it at the end
of a combat and the HTTP server offers it for download.
"""

from __future__ import annotations

import re

from trpg_arena.table.session import Session
from trpg_arena.table.stats import CombatStats, damage_text, session_stats

SOURCES = {"agent": "agent", "confirmed": "agent's proposal, confirmed", "override": "overridden by the GM",
           "human": "chosen by a person", "gm": "the GM's edit",
           "routine": "the usual answer (the table does not ask it)"}
# what acts in the middle of a line: emphasis, code, HTML, table cells, a link's `](`; dice as ``[3,4]``
# and arrows as ``->`` stay as they are (a bracket or ``>`` alone does nothing there)
_SPECIAL = re.compile(r"([\\`*<|]|\](?=\())")


def _md(text: str) -> str:
    """Text with Markdown's active characters escaped, and only those (``_`` stays: it only acts at word edges)."""
    return _SPECIAL.sub(r"\\\1", text)


def transcript(session: Session, stats: CombatStats | None = None) -> str:
    """The whole session as Markdown."""
    c = session.combat
    stats = stats or session_stats(session)
    setup = session.setup_json()
    seats = ", ".join(f"{k}: `{v}`" for k, v in {"pc": setup["pc"], "npc": setup["npc"], **setup["seats"]}.items())
    out = [f"# {_md(c.system.info.title)}: {_md(c.encounter.label)}", ""]
    if session.id:
        out.append(f"- session: `{session.id}`")
    out += [f"- encounter: `{_md(c.encounter.source)}`, seed {session.seed}", f"- seats: {seats}",
            f"- dice: {'rolled by hand at the table' if session.table_dice else 'rolled by the program'}"]
    outcome = c.outcome
    if outcome is not None:
        out.append(f"- result: **{_md(outcome.result)}** ({outcome.termination.value}) after {outcome.rounds} "
                   f"rounds and {len(session.records)} decisions")
    else:
        out.append(f"- not over: round {c.round}, {len(session.records)} decisions so far")
    out.append("")
    current_round = None
    for record, events, _ in session.replay():
        if record is None:
            out += ["## Before the first decision", ""] + [f"- {_md(e.text)}" for e in events] + [""]
            continue
        if record["round"] != current_round:
            current_round = record["round"]
            out += ["", f"## Round {current_round}", ""]
        how = SOURCES.get(record["source"], record["source"])
        if record["faces"]:
            how += "; dice by hand: " + " ".join(str(face) for _, face in record["faces"])
        out.append(f"{record['n'] + 1}. **{_md(record['actor'])}** ({record['kind']}): {_md(record['text'])} "
                   f"*({_md(how)})*")
        out += [f"    - {_md(e.text)}" for e in events
                if e.kind != "decision" and not _restates(e.text, record["text"])]
    out += ["", *_stats_markdown(stats)]
    return "\n".join(out) + "\n"


def _restates(event: str, decision: str) -> bool:
    """An event that only repeats the decision's line (kiai's ``kaede declares: move to [6, 1]``): listed once."""
    return event.split(": ", 1)[-1] == decision.split(": ", 1)[-1]


def _stats_markdown(stats: CombatStats) -> list[str]:
    out = ["## Statistics", "", "| combatant | side | dealt | taken | healed | hits | misses | hp left |",
           "|---|---|--:|--:|--:|--:|--:|--:|"]
    for f in stats.fighters.values():
        out.append(f"| {_md(f.id)} | {_md(f.side)} | {f.dealt} | {f.taken} | {f.healed} | {f.hits} | {f.misses} | "
                   f"{f.hp_end}/{f.max_hp} |")
    if stats.edits:
        edited = ", ".join(f"{_md(f.id)} {f.edits}" for f in stats.fighters.values() if f.edits)
        out += ["", f"GM edits: {stats.edits} ({edited}); their changes of HP count as nobody's damage or healing."]
    out += ["", "### Damage by source and target", "", "| source | target | damage | hits | misses |",
            "|---|---|--:|--:|--:|"]
    for (source, target), t in stats.pairs.items():
        out.append(f"| {_md(source or '(no one)')} | {_md(target)} | {damage_text(t['damage'], t['beyond'])} | "
                   f"{t['hits']} | {t['misses']} |")
    out += ["", "### Damage dealt per round", ""]
    for r, row in sorted(stats.per_round.items()):
        dealt = ", ".join(f"{_md(cid)} {v['dealt']}" for cid, v in row.items() if v["dealt"])
        taken = ", ".join(f"{_md(cid)} {v['taken']}" for cid, v in row.items() if v["taken"])
        out.append(f"- round {r}: dealt {dealt or 'nothing'}; taken {taken or 'nothing'}")
    out += ["", "### Who fell when", ""]
    out += [f"- round {f.round} (decision {f.decision}): {_md(f.combatant)} {_md(f.status)}"
            + (f", struck last by {_md(f.by)}" if f.by else "") for f in stats.falls] or ["- nobody fell"]
    return out
