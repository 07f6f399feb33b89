"""The one JSON form of an open decision (`Pending.to_json`): what the page, the API and MCP clients read.

Legal actions are grouped by verb, with GM sentences.

Each action keeps its index in the legal list (what `submit` takes) and names its target and
destination by the board's keys, so a client can offer "click a token" and "click a square" for a
verb without knowing the rule system. The agent's proposal and its alternatives carry their indices
too, so the page can point at them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trpg_arena.agents.proposal import Proposal
from trpg_arena.rules import Action, Combat
from trpg_arena.table.menu import option_parts
from trpg_arena.table.odds import action_odds

if TYPE_CHECKING:
    from trpg_arena.table.session import Pending


def node_key(node: Any) -> str | None:
    """The text key of a battlefield node (``"3,4"`` for a cell, the name for a zone), None for no place."""
    if node is None:
        return None
    if isinstance(node, tuple | list):
        return ",".join(str(v) for v in node)
    return str(node)


def action_json(combat: Combat, index: int, action: Action, places: bool = True, odds: str | None = None
                ) -> dict[str, Any]:
    """One legal action: its index, GM sentence, JSON form, target / destination as board keys, and its odds.

    ``dest`` is a place's key only if `places` says the verb's destinations are places of the board;
    ``odds`` is what an NPC's proposal would cite for it (chance to hit, dice, damage), where estimated.
    """
    return {"index": index, "text": combat.system.describe(combat, action), "action": action.to_json(),
            "target": action.target, "dest": node_key(combat.system.place_of(combat, action)) if places else None,
            "odds": odds, "notes": option_notes(combat, action)}


def option_notes(combat: Combat, action: Action) -> list[str]:
    """What the options an action is taken with do, as the rule system words them.

    Kiai: "technique 20: hit -20, foe's dodge -20". Options left at nothing (no technique, not all-out) say nothing.
    """
    notes = []
    for i, part in enumerate(option_parts(action.option)):
        named = combat.system.option_part(combat, action.verb, i) if part else None
        words = named[1](part) if named is not None else None
        if words:
            notes.append(words)
    return notes


def _is_node(graph: Any, node: Any) -> bool:
    try:
        return node in graph
    except TypeError:  # an unhashable destination is no place
        return False


def group_by_verb(combat: Combat, legal: list[Action]) -> list[dict[str, Any]]:
    """Legal actions grouped by verb, verbs in the order the rule system lists them.

    An action's ``dest`` is the place it ends on (the rule system's `place_of`: reincarnator's charge
    stores an offset from its target, and ends on that square). A verb whose destinations are not
    all places of the board uses them otherwise: its actions name no place, and a click on the target
    chooses them.
    """
    by_verb: dict[str, list[tuple[int, Action]]] = {}
    for i, action in enumerate(legal):
        by_verb.setdefault(action.verb, []).append((i, action))
    graph = combat.battlefield.graph
    odds = action_odds(combat, legal)
    out = []
    for verb, members in by_verb.items():
        place_of = combat.system.place_of
        places = all((p := place_of(combat, a)) is None or _is_node(graph, p) for _, a in members)
        items = [action_json(combat, i, a, places, odds.get(a)) for i, a in members]
        out.append({"verb": verb, "label": verb.replace("_", " "), "count": len(items),
                    "targets": sorted({a["target"] for a in items if a["target"] is not None}),
                    "dests": sorted({a["dest"] for a in items if a["dest"] is not None}), "actions": items})
    return out


def proposal_json(combat: Combat, proposal: Proposal, legal: list[Action]) -> dict[str, Any]:
    """An agent's proposal with the legal index of its action and of each alternative, and their odds.

    ``odds`` is the note `action_odds` gives an attack (chance to hit, expected damage), or null: the numbers a
    scripted proposal cites in its reasons, shown for every agent's (a learned policy gives only its own
    probability).
    """
    out = proposal.to_json(combat)
    index = {a: i for i, a in enumerate(legal)}
    odds = proposal_odds(combat, proposal)
    out["index"] = index.get(proposal.action)
    out["odds"] = odds.get(proposal.action)
    for alt, data in zip(proposal.alternatives, out["alternatives"]):
        data["index"] = index.get(alt.action)
        data["odds"] = odds.get(alt.action)
    return out


def unsaid(note: str | None, *words: str) -> str | None:
    """An action's odds note unless the agent's own words already give it (scripted reasons cite their odds)."""
    return note if note and not any(note in w for w in words) else None


def proposal_odds(combat: Combat, proposal: Proposal) -> dict[Action, str]:
    """The odds of the proposed action and its alternatives that can be estimated (attacks), by action."""
    if combat.over:
        return {}
    return action_odds(combat, [proposal.action, *(a.action for a in proposal.alternatives)])


def pending_json(combat: Combat, pending: Pending) -> dict[str, Any]:
    """The open decision: who decides and how, the proposal, any dice asked for, and the actions by verb.

    What `Pending.to_json` returns (the one serialiser of an open decision).
    """
    return {"decision": pending.decision.to_json(), "seat": pending.seat.to_json(),
            "needs_person": pending.needs_person, "thinking": pending.thinking,  # the proposal is being computed
            "proposal": proposal_json(combat, pending.proposal, pending.legal) if pending.proposal else None,
            "dice": pending.dice.to_json() if pending.dice else None, "legal_count": len(pending.legal),
            "groups": group_by_verb(combat, pending.legal)}


def find_legal(legal: list[Action], wanted: dict[str, Any]) -> int | None:
    """The index of the legal action whose JSON form is `wanted` (as `Action.to_json` writes it), or None."""
    for i, action in enumerate(legal):
        if action.to_json() == wanted:
            return i
    return None
