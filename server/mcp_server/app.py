"""`build_server`: the MCP server (the official SDK's `MCPServer`) with the table's tools, resources and prompt.

Each tool has a typed input schema (from its annotated parameters), checked strictly (`arguments`:
no unknown argument, no coercion), and answers with a structured JSON result plus one short line a
model reads well. A refusal is an MCP tool error (``isError``) whose text is the located message of
the CLI and the HTTP API; its structured part names the kind (snake_case, as the HTTP API's) and,
for a stale revision, holds the state now. An unexpected failure answers a generic error: no
traceback reaches the client.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from trpg_arena.rules import RULESETS
from trpg_arena.rules.core.wording import counted
from trpg_arena.server.mcp_server.arguments import Arguments, AsSent
from trpg_arena.server.mcp_server.prompt import npc_assistant
from trpg_arena.server.mcp_server.table import RUN_LIMIT, Doc, Table, ToolRefusal
from trpg_arena.server.models import ActionIn
from trpg_arena.table.choices import unsaid

log = logging.getLogger("trpg_arena.mcp")

SessionId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="the session's id (start_session, "
                                                                                 "list_sessions)")]
Revision = Annotated[int, Field(ge=0, le=2**62, description="the session's revision as get_state / get_pending "
                                                            "report it: a stale one is refused with the state now")]
Run = Annotated[bool, Field(description="then let agent seats decide until a person must act")]
Index = Annotated[int | None, Field(ge=0, description="the legal action's index, as get_pending lists it")]
# checked as the API checks it (`ActionIn`): a misspelt or extra field is refused, not read as an illegal action
ActionJson = Annotated[ActionIn | None, Field(description="or the action's JSON form {verb, target, dest, option} "
                                                          "as get_pending lists it")]
Seat = Annotated[str, Field(min_length=1, max_length=200)]
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
CHANGES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)
# takes back what was decided (undo), forgets faces typed (cancel_dice), takes a combatant out (edit_combatant)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False)
# each system's rules reference, shipped with the package (copies of docs/rules/<id>.md, which a test keeps equal)
RULES_DOCS = Path(__file__).resolve().parent / "rules"


def _answer(doc: Doc, text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=doc)


def _refused(e: ToolRefusal) -> CallToolResult:
    doc: Doc = {"error": e.kind, "message": str(e)}
    if e.where is not None:
        doc["where"] = e.where
    if e.state is not None:
        doc["state"] = e.state
    return CallToolResult(content=[TextContent(type="text", text=str(e))], structured_content=doc, is_error=True)


def _guarded(work: Callable[[], CallToolResult], tool: str) -> CallToolResult:
    """Run a tool's work: refusals become tool errors; anything else a generic one (logged on the server)."""
    try:
        return work()
    except ToolRefusal as e:
        return _refused(e)
    except Exception:  # an unexpected failure: its text and traceback stay in the server's log
        log.exception("tool %s failed", tool)
        # what the tool stored before it failed stands (a decision is stored first, then answered): say so
        return _refused(ToolRefusal(f"{tool} failed unexpectedly (the server's log says why); read the session "
                                    "with get_state before calling again: what was stored stands", "internal"))


def _action(action: ActionIn | None) -> Doc | None:
    return action.model_dump() if action is not None else None


def _over_line(state: Doc) -> str:
    """The end in words that agree whatever a side is called ("side investigators wins", not "investigators wins")."""
    outcome = state.get("outcome") or {}
    winner = outcome.get("winner")
    end = f"side {winner} wins" if winner else "draw"
    return f"over: {end} ({outcome['termination']})" if outcome.get("termination") else f"over: {end}"


def _statistics_line(stats: Doc) -> str:
    """Where each side stands, in one line: ``so far after 3 decisions in 1 round: side A: 4 damage dealt, ...``."""
    if stats["over"]:
        end = "draw" if stats["result"] == "draw" else f"side {stats['result']} wins"
        when = f"final ({end}) after"
    else:
        when = "so far after"
    sides = "; ".join(f"side {s['side']}: {s['damage_dealt']} damage dealt, {s['damage_taken']} taken, "
                      f"{counted(s['taken_out'], 'foe')} taken out, {s['standing']} of {s['combatants']} standing"
                      for s in stats["sides"])
    return (f"{when} {counted(stats['decisions'], 'decision')} in {counted(stats['rounds'], 'round')}: "
            f"{sides}")


def _pending_line(state: Doc) -> str:
    if state.get("over"):
        return _over_line(state)
    p = state.get("pending")
    if not p:
        return state.get("agent_error") or "no open decision"
    d = p["decision"]
    if p["dice"]:
        return f"{d['actor']} waits for dice: {p['dice'].get('text', p['dice'])}"
    how = p["seat"]["kind"]
    line = f"round {state['round']}: {d['actor']} decides ({how}, {p['legal_count']} legal actions)"
    if p["proposal"]:
        line += f"; proposed: {p['proposal'].get('text', '')}"
    elif p.get("thinking"):
        line += "; its agent is still thinking (this call's time ran out): get_pending shows its proposal"
    return line


def _changed_line(out: Doc) -> str:
    state = out["state"]
    done = "; ".join(e["text"] for e in out["events"][:6] if e.get("text"))
    more = len(out["events"]) - 6
    if more > 0:
        done += f" (+{more} events)"
    return f"revision {state['revision']}. {done or 'no events'}. Now: {_pending_line(state)}"


def _tool(fn: Callable[..., CallToolResult], annotations: ToolAnnotations) -> Tool:
    """The SDK's tool for `fn`: its input schema from `fn`'s signature, its arguments checked by `Arguments`."""
    name = fn.__name__
    arguments = Arguments(name, fn)

    @functools.wraps(fn)  # the same signature, so the same input schema
    def guarded(**given: Any) -> CallToolResult:
        return _guarded(lambda: fn(**arguments.check(given)), name)

    made = Tool.from_function(guarded, name=name, description=fn.__doc__, annotations=annotations,
                              structured_output=False)
    made.fn_metadata = AsSent(arg_model=made.fn_metadata.arg_model)  # checked by `arguments`, strictly
    made.parameters["additionalProperties"] = False  # the schema says what `arguments` refuses
    return made


def build_server(table: Table) -> MCPServer:
    """The MCP server over `table` (see the module docstring)."""
    tools: list[Tool] = []

    def tool(annotations: ToolAnnotations) -> Callable[[Callable[..., CallToolResult]], Callable[..., CallToolResult]]:
        def register(fn: Callable[..., CallToolResult]) -> Callable[..., CallToolResult]:
            tools.append(_tool(fn, annotations))
            return fn

        return register

    @tool(READ_ONLY)
    def list_rulesets() -> CallToolResult:
        """Rule systems with their built-in encounters and the agents (NAME[:PRESET]) a seat may name."""
        out = table.list_rulesets()
        names = ", ".join(f"{r['id']} ({len(r['encounters'])} encounters)" for r in out["rulesets"])
        return _answer(out, f"rule systems: {names}")

    @tool(READ_ONLY)
    def validate_encounter(text: Annotated[str, Field(max_length=8 * 1024 * 1024,
                                                      description="an encounter file's YAML or JSON text")],
                           name: Annotated[str, Field(max_length=200, description="its file name, for messages")]
                           = "upload") -> CallToolResult:
        """Check an encounter's YAML/JSON text: its summary, or the located error `trpg-arena validate` prints."""
        out = table.validate_encounter(text, name)
        return _answer(out, f"ok: {out['ruleset']} encounter '{out['encounter']}', {out['combatants']} combatants, "
                            f"sides {', '.join(out['sides'])}")

    @tool(CHANGES)
    def start_session(
            encounter: Annotated[str | None, Field(max_length=100, description="a built-in encounter, e.g. "
                                                                                "'moonlit/duel' (list_rulesets)")]
            = None,
            encounter_text: Annotated[str | None, Field(max_length=8 * 1024 * 1024,
                                                        description="or an encounter's YAML/JSON text")] = None,
            seed: Annotated[int, Field(ge=0, le=2**32 - 1, description="seed of the dice and agents")] = 0,
            pc: Annotated[Seat, Field(description="default seat of PCs: human, an agent spec, review:<agent>; "
                                                  "+dice rolls its dice by hand")] = "human",
            npc: Annotated[Seat, Field(description="default seat of NPCs")] = "review:scripted",
            seats: Annotated[dict[str, Seat], Field(max_length=64, description="seats by side or combatant id, "
                                                                               "over pc / npc")] | None = None,
            table_dice: Annotated[bool, Field(description="every seat rolls physical dice, entered by hand")]
            = False,
            name: Annotated[str | None, Field(max_length=200, description="the session's name")] = None,
            tactics: Annotated[dict[str, dict[str, Any] | None], Field(
                max_length=128, description="NPC temperaments by combatant id: aggression (reckless, bold, steady, "
                "cautious), morale (share of HP, 0.25), focus (weakest, strongest, nearest, healers, casters, "
                "or an id), protect (an ally's id)")] | None = None,
            ask_routine: Annotated[bool, Field(description="ask people the decisions a table rarely wants asked "
                                                           "(moonlit: escape or stay each round); off: the usual "
                                                           "answer is given for them")] = False,
            run: Run = True) -> CallToolResult:
        """Start and store a session (seats as in `trpg-arena autopilot`); agent seats play until a person must."""
        out = table.start_session(encounter, encounter_text, seed=seed, pc=pc, npc=npc, seats=seats or {},
                                  table_dice=table_dice, name=name, run=run, tactics=tactics,
                                  ask_routine=ask_routine)
        state = out["state"]
        return _answer(out, f"session {state['id']} ({state['encounter']}, revision {state['revision']}). "
                            f"Now: {_pending_line(state)}")

    @tool(READ_ONLY)
    def list_sessions() -> CallToolResult:
        """Stored sessions (also those of the terminal and the browser), most recently played first."""
        out = table.list_sessions()
        shown = ", ".join(f"{s['id']} {s['name']} ({s['status']})" for s in out["sessions"][:20])
        return _answer(out, counted(len(out["sessions"]), "session") + (f": {shown}" if shown else ""))

    @tool(READ_ONLY)
    def get_state(session: SessionId) -> CallToolResult:
        """Round, turn order, combatants with HP and conditions, seats, the open decision and the battlefield."""
        out = table.get_state(session)
        return _answer(out, f"revision {out['revision']}, {_pending_line(out)}\n{out['battlefield']}")

    @tool(READ_ONLY)
    def get_pending(session: SessionId) -> CallToolResult:
        """Whose decision, its kind, the legal actions by verb (index + GM sentence), the proposal, any dice asked."""
        out = table.get_pending(session)
        return _answer(out, f"revision {out['revision']}, {_pending_line(out)}")

    @tool(READ_ONLY)
    def propose(session: SessionId,
                agent: Annotated[str | None, Field(max_length=200, description="an agent spec (default: the "
                                                                                "seat's, else scripted)")] = None
                ) -> CallToolResult:
        """Ask an agent what it would do now, with reasons and alternatives; changes nothing."""
        out = table.propose(session, agent)
        p = out["proposal"]
        why = "; ".join(p.get("reasons") or [])

        def odds(item: dict[str, Any]) -> str:  # an attack's odds, unless the reasons give them already
            note = unsaid(item.get("odds"), why, item.get("reason") or "")
            return f" [{note}]" if note else ""

        others = ", ".join(f"#{a.get('index')} {a.get('text', '')}{odds(a)}" for a in p.get("alternatives", [])[:4])
        return _answer(out, f"{out['agent']} proposes #{p.get('index')}: {p.get('text', '')}{odds(p)}"
                            + (f" ({why})" if why else "") + (f"; alternatives: {others}" if others else ""))

    @tool(CHANGES)
    def submit_action(session: SessionId, revision: Revision, index: Index = None, action: ActionJson = None,
                      run: Run = True) -> CallToolResult:
        """Take a legal action for the open decision (on an agent's seat this overrides its proposal)."""
        out = table.submit_action(session, revision, index, _action(action), run)
        return _answer(out, _changed_line(out))

    @tool(CHANGES)
    def confirm(session: SessionId, revision: Revision, run: Run = True) -> CallToolResult:
        """Accept the review seat's proposal for the open decision."""
        out = table.confirm(session, revision, run)
        return _answer(out, _changed_line(out))

    @tool(CHANGES)
    def override(session: SessionId, revision: Revision, index: Index = None, action: ActionJson = None,
                 run: Run = True) -> CallToolResult:
        """Apply another legal action instead of the review seat's proposal (recorded as an override)."""
        out = table.override(session, revision, index, _action(action), run)
        return _answer(out, _changed_line(out))

    @tool(CHANGES)
    def run_agents(session: SessionId, revision: Revision,
                   max_decisions: Annotated[int | None, Field(ge=1, le=10_000, description=(
                       "stop after this many agent decisions (default: when a person must act, after "
                       f"{RUN_LIMIT} or when the call's agent time is spent)"))] = None) -> CallToolResult:
        """Let agent seats decide until a person must act (or `max_decisions`)."""
        out = table.run_agents(session, revision, max_decisions)
        return _answer(out, _changed_line(out))

    @tool(CHANGES)
    def enter_dice(session: SessionId, revision: Revision,
                   faces: Annotated[str, Field(min_length=1, max_length=2000, description="the faces rolled, "
                                                                                          "e.g. '4 6'")],
                   run: Run = True) -> CallToolResult:
        """Enter the faces rolled at the table for the dice asked for; the action is tried again."""
        out = table.enter_dice(session, revision, faces, run)
        return _answer(out, _changed_line(out))

    @tool(DESTRUCTIVE)
    def cancel_dice(session: SessionId, revision: Revision) -> CallToolResult:
        """Give up the action waiting for dice (the faces typed for it are forgotten); its decision is open again."""
        out = table.cancel_dice(session, revision)
        return _answer(out, f"revision {out['state']['revision']}. Now: {_pending_line(out['state'])}")

    @tool(DESTRUCTIVE)
    def undo(session: SessionId, revision: Revision,
             decisions: Annotated[int | None, Field(ge=1, le=100_000, description="how many decisions to take "
                                                                                    "back (default: back to the "
                                                                                    "last a person made)")] = None
             ) -> CallToolResult:
        """Reopen the last decision a person made or confirmed (agents' later ones undone too), or undo `decisions`.

        An action waiting for its dice is the last decision: undo gives it up (as cancel_dice).
        """
        out = table.undo(session, revision, decisions)
        return _answer(out, f"revision {out['state']['revision']}. Now: {_pending_line(out['state'])}")

    @tool(READ_ONLY)
    def get_editable(session: SessionId) -> CallToolResult:
        """What the GM may edit of each combatant now: its fields (value, kind, bounds the rules allow)."""
        out = table.get_edits(session)
        lines = [f"{c['id']}: " + ", ".join(f"{f['name']}={f['value']}" + (f" ({f['low']}-{f['high']})"
                                                                          if f["kind"] == "int" else "")
                                           for f in c["fields"] if f["kind"] != "place")
                 for c in out["combatants"] if c["fields"]]
        return _answer(out, f"revision {out['revision']}\n" + "\n".join(lines))

    @tool(DESTRUCTIVE)
    def edit_combatant(
            session: SessionId, revision: Revision,
            combatant: Annotated[str, Field(min_length=1, max_length=100, description="the combatant's id")],
            changes: Annotated[dict[str, bool | int | str | list[int]], Field(
                max_length=20, description="field -> new value, as get_editable lists them, e.g. {\"hp\": 12}")]
            | None = None,
            remove: Annotated[bool, Field(description="take the combatant out of the fight")] = False,
            add: Annotated[dict[str, Any] | None, Field(description="add a combatant with this id instead: its "
                                                                    "encounter entry, or {\"like\": \"ghoul_1\", "
                                                                    "\"zone\": \"B_front\"} to copy one")] = None,
            run: Run = False) -> CallToolResult:
        """The GM edits a combatant mid-fight (HP or wounds, pools, conditions, place), takes it out or adds one."""
        out = table.edit_combatant(session, revision, combatant, changes or {}, remove, run, add)
        return _answer(out, _changed_line(out))

    @tool(READ_ONLY)
    def get_log(session: SessionId,
                since: Annotated[int, Field(ge=0, le=10**9, description="first event number")] = 0,
                limit: Annotated[int, Field(ge=1, le=5000, description="at most this many events (page on "
                                                                       "with `since` = the answer's `next`)")]
                = 1000) -> CallToolResult:
        """The narrated events from number `since` on: round, kind, text and rule id each."""
        out = table.get_log(session, since, limit)
        return _answer(out, "\n".join(e["text"] for e in out["events"] if e.get("text")) or "no events")

    @tool(READ_ONLY)
    def get_statistics(session: SessionId) -> CallToolResult:
        """Damage, take-downs and decision sources per combatant and side (so far, or final once over)."""
        out = table.get_statistics(session)
        return _answer(out, _statistics_line(out))

    server: MCPServer = MCPServer(
        name="trpg-arena", log_level="WARNING", title="trpg-arena: tabletop combat with exact rules", tools=tools,
        instructions="Run tabletop-RPG combats with exact rules: start_session, then get_pending shows whose "
                     "decision it is and its legal actions (grouped by verb, each with an index and the sentence "
                     "a GM reads); submit_action / confirm / override / enter_dice / cancel_dice / undo change the "
                     "session and take the revision get_pending reported. propose asks an agent with reasons "
                     "(changes nothing).")
    _add_resources(server, table)
    server.prompt(name="npc_assistant", title="The GM's assistant for NPC turns")(npc_assistant)
    return server


def _reader(path: Path) -> Callable[[], str]:
    def read() -> str:
        return path.read_text(encoding="utf-8")

    return read


def _add_resources(server: MCPServer, table: Table) -> None:
    """Each rule system's reference, and a session's state, for a host to put in the model's context."""
    for rid in RULESETS:
        path = RULES_DOCS / f"{rid}.md"
        if not path.is_file():  # a system added without its reference: the tools still name its rules
            continue
        server.resource(f"trpg-arena://rules/{rid}", name=f"rules-{rid}", title=f"Rules of {rid}",
                        mime_type="text/markdown")(_reader(path))

    def session_state(session: str) -> str:
        try:
            return json.dumps(table.get_state(session))
        except ToolRefusal as e:  # its reason reaches the client (the SDK would say only that reading failed)
            raise (ResourceNotFoundError if e.kind == "unknown_session" else ResourceError)(str(e)) from None

    server.resource("trpg-arena://sessions/{session}", name="session-state", title="A session's state",
                    mime_type="application/json")(session_state)
